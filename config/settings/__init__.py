"""Cardroom settings: every difference comes from the environment.

This package is the settings module (``DJANGO_SETTINGS_MODULE=config.settings``); the
accounts' settings are in ``accounts.py``, the workers' and the queues' in
``workers.py``, and this module imports every name of theirs.

Environment variables (all optional; the defaults run a local development
instance on SQLite):

- ``CARDROOM_DEBUG``: ``1`` for debug mode (default ``0``).
- ``CARDROOM_SECRET_KEY``: the secret key. Without it a random key is created
  once in ``var/secret_key`` (never committed).
- ``CARDROOM_ALLOWED_HOSTS``: comma-separated host names (default local names).
- ``DATABASE_URL``: e.g. ``postgres://user@127.0.0.1:5432/cardroom``
  (default SQLite in ``var/cardroom.sqlite3``).
- ``REDIS_URL``: broker and channel layer (default ``redis://127.0.0.1:6379/0``).
- ``CARDROOM_CHANNEL_LAYER``: ``memory`` for an in-process channel layer (tests);
  ``CARDROOM_CHANNEL_PREFIX``: the Redis prefix of the channel layer (``cardroom``).
- ``CARDROOM_HTTPS``: ``1`` behind TLS (deployments): HTTPS redirect, secure cookies,
  HSTS (``CARDROOM_HSTS_SECONDS``, ``CARDROOM_HSTS_INCLUDE_SUBDOMAINS``,
  ``CARDROOM_HSTS_PRELOAD``); ``CARDROOM_PROXY_SSL_HEADER``; ``CARDROOM_CSP``.
- Rate limits ``CARDROOM_THROTTLE_REGISTER``, ``_TOKEN``, ``_LOGIN_IP``, ``_LOGIN_USER``,
  ``_REPLAY``, ``_DOWNLOAD``, ``_RECORD``, ``_TRANSCRIPT`` (``10/min``, ``20/min``,
  ``20/min``, ``20/hour``, ``30/min``, ``10/min``, ``120/min``, ``60/min``),
  ``CARDROOM_TRUSTED_PROXIES`` (the proxies whose ``X-Forwarded-For`` is believed;
  none);
  ``CARDROOM_CACHE_PREFIX``; ``CARDROOM_TOKEN_TTL_HOURS`` (720);
  ``CARDROOM_JSON_MAX_DEPTH`` (32); ``CARDROOM_VALIDATE_QUEUE``, ``_GRACE_S``.
- ``CARDROOM_BOT_STORE``: where uploads are kept, ``db`` (default) or ``s3``
  (``CARDROOM_BOT_STORE_BUCKET``, ``_ENDPOINT``, ``_PREFIX``); a worker's cache
  ``CARDROOM_BOT_CACHE_DIR`` (``<var>/bot-cache``), ``CARDROOM_BOT_CACHE_MB`` (1024).
- ``CARDROOM_MAX_REQUEST_BYTES``: larger requests are refused (413) unread (5 MiB + 64 KiB).
- ``CARDROOM_CACHE_URL``: the cache's Redis (default: ``REDIS_URL``'s server, the next
  database number); ``CARDROOM_WS_PER_CLIENT`` (20), ``CARDROOM_WS_MAX_FRAME_BYTES`` (4096).
- ``CARDROOM_WORKER_PREFETCH``: Celery's prefetch multiplier for workers (default ``1``).
- ``CARDROOM_WORKER_NICE``: the CPU niceness a worker takes at start (0..19, default 10;
  its pool processes inherit it), so that on a shared machine the web tier answers first.
- ``CARDROOM_SANDBOX_CPU_WEIGHT``: the CPU weight of the group holding every bot against the
  machine's other work at 100 (1..10000, default 20; ``bots.sandbox.cgroup``).
- Queues by kind, most urgent first (``CARDROOM_QUEUES``): ``CARDROOM_PERIODIC_QUEUE``,
  ``_MATCH_QUEUE``, ``_LADDER_QUEUE``, ``_VALIDATE_QUEUE``, ``_CHALLENGE_QUEUE``,
  ``_VERSION_TEST_QUEUE``, ``_DEFAULT_QUEUE`` (``periodic``, ``matches``, ``ladders``,
  ``validations``, ``challenges``, ``version-tests``, ``celery``, each after
  ``CARDROOM_QUEUE_PREFIX``); ``CARDROOM_COMPETITION_WINDOW`` (4 messages a competition
  in the broker at a time); ``CARDROOM_DRAIN_GRACE_S`` (60).
- ``CARDROOM_TASK_GAMES``: matches shorter than this share Celery tasks (default ``20``;
  ``1``: one task per match); ``CARDROOM_TASK_BUDGET_S`` (``10``).
- ``CARDROOM_PREPARED_STATEMENTS``: ``0`` for a PostgreSQL connection pooler that
  cannot keep prepared statements (default ``1``: the claim and the recording are
  prepared, and connections plan prepared statements generically).
- ``CARDROOM_CLAIM_AHEAD``: ``1`` to send the next match's claim in the round trip that
  records the one before it, which pays where PostgreSQL is a network hop away from the
  workers (default ``0``: each match claimed on its own; bench/README.md). It applies
  where a list plays its matches one at a time (``CARDROOM_RECORD_BATCH=1``).
- ``CARDROOM_RECORD_BATCH``: a worker playing a list of short matches claims, and then
  records, up to this many in one statement each (default ``32``; as many as it plays
  in about 50 ms; ``1``: each match claimed and recorded on its own).

- Allowances per user ``CARDROOM_ALLOWANCE_BOTS``, ``_VERSIONS_PER_DAY``,
  ``_UPLOAD_BYTES_PER_DAY``, ``_VERSION_TEST_GAMES_PER_DAY``, ``_OPEN_VERSION_TESTS``,
  ``_CHALLENGE_GAMES_PER_DAY``, ``_OPEN_CHALLENGES``, ``_LADDER_ENTRIES``, ``_STORED_BYTES``,
  ``_STORED_BYTES_UNCONFIRMED``, ``_UNCONFIRMED_STORED_BYTES_TOTAL``, ``_STDERR_LOG_BYTES``
  (50 MiB of compressed full stderr logs a user, the oldest dropped first; bots.allowances);
  pruning ``CARDROOM_PRUNE_AFTER_DAYS`` (14), ``CARDROOM_PRUNE_EVERY_S`` (21600).
- Sign-up: ``CARDROOM_SIGNUP_CONFIRMATION`` (``email``, the default: a new account has no
  allowance until it opens the link mailed to it; or ``none``; bots.accounts),
  ``CARDROOM_SIGNUP_CONFIRM_DAYS`` (3); mail through ``EMAIL_BACKEND`` (the console when
  unset), ``EMAIL_HOST``, ``EMAIL_PORT``, ``EMAIL_HOST_USER``, ``EMAIL_HOST_PASSWORD``,
  ``EMAIL_USE_TLS``, ``DEFAULT_FROM_EMAIL``; ``CARDROOM_THROTTLE_SIGNUP`` (``3/day``:
  accounts made per client address, an IPv6 /64 counting as one);
  ``CARDROOM_PUBLIC_PLAY_MIN_AGE_H`` (24: the hours an account must be, and confirmed,
  before its bots enter a public ladder or challenge another author's; 0: at once).
- Metrics: ``CARDROOM_METRICS_TOKEN`` (bearer token of /metrics), ``CARDROOM_WORKER_METRICS_PORT``,
  ``PROMETHEUS_MULTIPROC_DIR`` (config.metrics).

Everything Cardroom writes under ``CARDROOM_VAR_DIR`` is private to its user.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.private_files import private_directory, private_file, private_sqlite_database
from config.proxies import trusted_networks
from config.settings.accounts import *  # noqa: F403 (the accounts' settings)
from config.settings.environment import ALLOWANCE_MAX as ALLOWANCE_MAX
from config.settings.environment import REDIS_URL, env_bool
from config.settings.workers import *  # noqa: F403 (the workers' settings)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("CARDROOM_VAR_DIR", BASE_DIR / "var"))
# Created 0700 (config.private_files); on a host where it cannot be created here, what
# needs it says so later.
with contextlib.suppress(OSError):
    private_directory(VAR_DIR)


def _secret_key() -> str:
    key = os.environ.get("CARDROOM_SECRET_KEY")
    if key:
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        private_directory(VAR_DIR)
        private_file(path)
        path.write_text(secrets.token_urlsafe(50))
    private_file(path, create=False)
    return path.read_text().strip()


DEBUG = env_bool("CARDROOM_DEBUG")
SECRET_KEY = _secret_key()
ALLOWED_HOSTS = os.environ.get("CARDROOM_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")

# --- HTTPS (deployments: CARDROOM_HTTPS=1; deploy/cardroom.env.example) ---
# The site is served over TLS only: plain HTTP is redirected, cookies are secure-only and
# browsers are told to keep to HTTPS (HSTS) for CARDROOM_HSTS_SECONDS. Behind nginx the
# ASGI server (uvicorn --proxy-headers) learns the scheme from X-Forwarded-Proto; a server
# that does not can trust that header from its proxy with CARDROOM_PROXY_SSL_HEADER=1.
CARDROOM_HTTPS = env_bool("CARDROOM_HTTPS")
SECURE_SSL_REDIRECT = CARDROOM_HTTPS
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = CARDROOM_HTTPS
SECURE_HSTS_SECONDS = (
    int(os.environ.get("CARDROOM_HSTS_SECONDS", str(365 * 24 * 3600))) if CARDROOM_HTTPS else 0
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("CARDROOM_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("CARDROOM_HSTS_PRELOAD", True)
if env_bool("CARDROOM_PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Content-Security-Policy of every response (config.middleware): scripts from this site
# only (the pages have no inline script; data goes in json_script blocks), inline styles
# (the dashboard's templates use them), the live WebSocket to this site, no framing.
CARDROOM_CSP = os.environ.get(
    "CARDROOM_CSP",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'",
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "bots",
    "tournaments",
    # The HTML pages (web/): their templates and static files, found as an app's.
    "web",
]

MIDDLEWARE = [
    # First: a body too large is refused before anything reads it (config.request_size).
    "config.request_size.RequestSizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "config.middleware.AdminLoginLimitMiddleware",
]

ROOT_URLCONF = "config.urls"
# The site's own login page (web.site), also for @login_required pages.
LOGIN_URL = "site:login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The site's templates are the web app's (web/templates/): cardroom/base.html
        # (every page extends it), dashboard/, bots_web/, organise/, registration/ (the
        # login page), 403.html and 429.html.
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# The claim and the recording run as prepared statements (planned once per connection);
# off for a connection pooler in transaction mode that cannot keep them.
CARDROOM_PREPARED_STATEMENTS = env_bool("CARDROOM_PREPARED_STATEMENTS", True)
CARDROOM_CLAIM_AHEAD = env_bool("CARDROOM_CLAIM_AHEAD", False)
CARDROOM_RECORD_BATCH = max(1, int(os.environ.get("CARDROOM_RECORD_BATCH", "32")))
# An empty DATABASE_URL is as good as none: SQLite in the var directory.
_DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'cardroom.sqlite3'}"
try:
    DATABASES = {"default": dj_database_url.parse(_DATABASE_URL, conn_max_age=60)}
except ValueError as exc:  # an unknown scheme too
    raise ImproperlyConfigured(
        f"DATABASE_URL is not a database URL Cardroom can use ({exc}): e.g. "
        "postgres://user:password@host:5432/name or sqlite:////path/to/file.sqlite3"
    ) from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    if DATABASES["default"]["NAME"] and DATABASES["default"]["NAME"] != ":memory:":
        private_sqlite_database(Path(DATABASES["default"]["NAME"]))
    # Several processes (web, workers) share the file: writers queue for the lock
    # instead of failing with "database is locked", readers never block writers.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL",
        }
    )
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # The workers' claim and recording are prepared statements
    # (tournaments.services.record_statements):
    # planned once with their parameters left open, not again at every execution (the
    # server's "auto" mode re-plans a statement whose generic plan it thinks costlier,
    # which these writes' plans always are). Only prepared statements are affected.
    if CARDROOM_PREPARED_STATEMENTS:
        _options = DATABASES["default"].setdefault("OPTIONS", {})
        _options["options"] = (
            _options.get("options", "") + " -c plan_cache_mode=force_generic_plan"
        ).strip()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


def _next_database(url: str) -> str:
    """``url`` (a Redis URL) with the database number after its own: ``/0`` -> ``/1``."""
    parts = urlsplit(url)
    number = parts.path.strip("/") or "0"
    if not number.isdigit():
        raise ImproperlyConfigured(f"REDIS_URL has no database number: {url!r}")
    return urlunsplit(parts._replace(path=f"/{int(number) + 1}"))


# --- Cache ---
# It holds the rate limits (config.throttles), which every web process must share, and the
# pages kept for a while (finished replays). Its own Redis database (CARDROOM_CACHE_URL;
# default: the server of REDIS_URL, the database after REDIS_URL's), so that the broker's
# queues and the channel layer are never among what a full cache evicts; deploy/README.md
# ("The cache") gives it a memory limit and an eviction policy. ``CARDROOM_CACHE_PREFIX``
# separates installations. Without REDIS_URL: files under var/cache (one machine's
# processes).
CARDROOM_CACHE_URL = os.environ.get("CARDROOM_CACHE_URL", "")
if os.environ.get("REDIS_URL") and not CARDROOM_CACHE_URL:
    CARDROOM_CACHE_URL = _next_database(REDIS_URL)
if CARDROOM_CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CARDROOM_CACHE_URL,
            "KEY_PREFIX": os.environ.get("CARDROOM_CACHE_PREFIX", "cardroom"),
            "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# --- Rate limits (config.throttles) ---
# ``<n>/<s|min|hour|day>``: registrations per client address, token requests per address,
# failed logins (API token, site and admin) per address and per (username, address);
# heavy reads per account when signed in, per address otherwise (staff are not counted);
# beyond them, a 429.
CARDROOM_THROTTLE_RATES = {
    "register": os.environ.get("CARDROOM_THROTTLE_REGISTER", "10/min"),
    # Accounts made per client address (an IPv6 /64 is one client).
    "signup": os.environ.get("CARDROOM_THROTTLE_SIGNUP", "3/day"),
    "token": os.environ.get("CARDROOM_THROTTLE_TOKEN", "20/min"),
    "login-ip": os.environ.get("CARDROOM_THROTTLE_LOGIN_IP", "20/min"),
    "login-user": os.environ.get("CARDROOM_THROTTLE_LOGIN_USER", "20/hour"),
    # Replay pages of finished games (heavy pages).
    "replay": os.environ.get("CARDROOM_THROTTLE_REPLAY", "30/min"),
    # Downloads of every match result of a competition (site and API): an open ladder's
    # grow with every match it plays.
    "download": os.environ.get("CARDROOM_THROTTLE_DOWNLOAD", "10/min"),
    # Whole game records (GET /api/games/<id>/) and seats' transcripts of games.
    "record": os.environ.get("CARDROOM_THROTTLE_RECORD", "120/min"),
    "transcript": os.environ.get("CARDROOM_THROTTLE_TRANSCRIPT", "60/min"),
}
# The reverse proxies in front of the web server, comma-separated addresses or networks
# (IPv4, IPv6): X-Forwarded-For is believed from them only, and the rate limits count
# the right-most address in it that is not one of them (config.proxies). None by default
# (the demo): every client is its own peer address. deploy/ sets nginx's.
CARDROOM_TRUSTED_PROXIES = os.environ.get("CARDROOM_TRUSTED_PROXIES", "").strip()
try:
    trusted_networks(CARDROOM_TRUSTED_PROXIES)
except ValueError as exc:
    raise ImproperlyConfigured(str(exc)) from None

# --- Channels ---
# Live events of the dashboard (tournaments.live.events) go through Redis pub/sub, so that
# the web processes receive what the workers announce. ``CARDROOM_CHANNEL_LAYER=memory``
# keeps them inside one process (tests); ``CARDROOM_CHANNEL_PREFIX`` separates instances
# sharing one Redis.
ASGI_APPLICATION = "config.asgi.application"
CARDROOM_CHANNEL_LAYER = os.environ.get("CARDROOM_CHANNEL_LAYER", "redis").strip().lower()
if CARDROOM_CHANNEL_LAYER == "memory":
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [REDIS_URL],
                "prefix": os.environ.get("CARDROOM_CHANNEL_PREFIX", "cardroom"),
            },
        }
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

MEDIA_ROOT = Path(os.environ.get("CARDROOM_MEDIA_ROOT", VAR_DIR / "media"))
MEDIA_URL = "media/"
# Stored uploads are for Cardroom's own processes only (workers read them as the same user).
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700

# --- Bot store and cache (bots.store, bots.cache) ---
# Uploads are kept by their SHA-256 where every worker reaches them: ``db`` (the
# default: rows of the database, bytea) or ``s3`` (an S3-compatible object store through
# django-storages, ``pip install 'cardroom[s3]'``: bucket CARDROOM_BOT_STORE_BUCKET,
# endpoint CARDROOM_BOT_STORE_ENDPOINT, credentials from AWS_ACCESS_KEY_ID /
# AWS_SECRET_ACCESS_KEY as boto3 reads them). Each worker caches what it fetched under
# CARDROOM_BOT_CACHE_DIR, at most CARDROOM_BOT_CACHE_MB (least recently used go first).
CARDROOM_BOT_STORE = os.environ.get("CARDROOM_BOT_STORE", "db").strip().lower()
if CARDROOM_BOT_STORE not in ("db", "s3"):
    raise ImproperlyConfigured(f"CARDROOM_BOT_STORE must be db or s3, got {CARDROOM_BOT_STORE!r}")
CARDROOM_BOT_CACHE_DIR = Path(os.environ.get("CARDROOM_BOT_CACHE_DIR", VAR_DIR / "bot-cache"))
CARDROOM_BOT_CACHE_MB = int(os.environ.get("CARDROOM_BOT_CACHE_MB", "1024"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
if CARDROOM_BOT_STORE == "s3":
    STORAGES["bots"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ.get("CARDROOM_BOT_STORE_BUCKET", "cardroom-bots"),
            "endpoint_url": os.environ.get("CARDROOM_BOT_STORE_ENDPOINT") or None,
            "location": os.environ.get("CARDROOM_BOT_STORE_PREFIX", "bots"),
            "file_overwrite": False,
            "default_acl": None,
        },
    }

# The pages' scripts, styles and icon are the web app's static files (web/static/),
# loaded from this site (CARDROOM_CSP: script-src 'self'). nginx serves
# them from STATIC_ROOT (manage.py collectstatic, deploy/); the demo's server serves them
# itself (config.asgi, CARDROOM_SERVE_STATIC=1).
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"

# Request size limits: JSON and form bodies are small; a bot upload is a file part,
# whose size the API checks before the body is read (api.bots.views).
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
# No request may be larger than the largest bot upload (5 MiB, bots.archive.Limits) and
# its form fields: a larger one is refused (413) before its body is read.
CARDROOM_MAX_REQUEST_BYTES = int(
    os.environ.get("CARDROOM_MAX_REQUEST_BYTES", str(5 * 1024 * 1024 + 64 * 1024))
)
DATA_UPLOAD_MAX_NUMBER_FIELDS = 200
# A JSON body nesting arrays and objects deeper than this is refused with a 400.
CARDROOM_JSON_MAX_DEPTH = int(os.environ.get("CARDROOM_JSON_MAX_DEPTH", "32"))
DATA_UPLOAD_MAX_NUMBER_FILES = 5
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

# WebSockets (config.websocket_limits): sockets open at once per signed-in user (else per
# client address) in one web process (0: no limit), and the largest frame a client may
# send (the live stream is one-way; the ASGI server's --ws-max-size is the same).
CARDROOM_WS_PER_CLIENT = int(os.environ.get("CARDROOM_WS_PER_CLIENT", "20"))
CARDROOM_WS_MAX_FRAME_BYTES = int(os.environ.get("CARDROOM_WS_MAX_FRAME_BYTES", "4096"))
for _name in ("CARDROOM_WS_PER_CLIENT", "CARDROOM_WS_MAX_FRAME_BYTES"):
    if globals()[_name] < 0:
        raise ImproperlyConfigured(f"{_name} must be 0 or more, not {globals()[_name]}")

REST_FRAMEWORK = {
    # Token first, so that an anonymous request is told how to authenticate (401).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "config.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # The API's views page with api.defaults.Pagination (up to 100 per page, ?page_size=).
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.defaults.exception_handler",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

# API tokens are refused this many hours after they were issued (0: never); asking for
# a token again (POST /api/auth/token/) replaces an expired one.
CARDROOM_TOKEN_TTL_HOURS = float(os.environ.get("CARDROOM_TOKEN_TTL_HOURS", str(24 * 30)))

SPECTACULAR_SETTINGS = {
    "TITLE": "Cardroom API",
    "DESCRIPTION": (
        "Bots, versions, competitions, entries, rounds, matches, game records, standings, "
        "ratings and head-to-head results of the Cardroom bot platform. Authenticate with a "
        "session or with `Authorization: Token <key>` (POST /api/auth/token/)."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "BotVersionStatusEnum": "bots.models.BotVersion.Status",
        "CompetitionStatusEnum": "tournaments.models.Competition.Status",
        "RoundStatusEnum": "tournaments.models.Round.Status",
        "MatchStatusEnum": "tournaments.models.Match.Status",
        "CompetitionKindEnum": "tournaments.models.Competition.Kind",
        "CompetitionFormatEnum": "tournaments.models.Competition.Format",
        # What an organiser may create (a challenge's competition is made by its challenge).
        "OrganisedKindEnum": "tournaments.models.ORGANISED_KINDS",
        "OrganisedFormatEnum": "tournaments.models.ORGANISED_FORMATS",
    },
}
