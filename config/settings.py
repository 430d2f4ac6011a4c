"""Cardroom settings: one module, every difference comes from the environment.

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
  ``_REPLAY``, ``_DOWNLOAD`` (``10/min``, ``20/min``, ``20/min``, ``20/hour``, ``30/min``,
  ``10/min``),
  ``CARDROOM_NUM_PROXIES``;
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

- Allowances per user ``CARDROOM_ALLOWANCE_BOTS``, ``_VERSIONS_PER_DAY``,
  ``_UPLOAD_BYTES_PER_DAY``, ``_VERSION_TEST_GAMES_PER_DAY``, ``_OPEN_VERSION_TESTS``,
  ``_CHALLENGE_GAMES_PER_DAY``, ``_OPEN_CHALLENGES``, ``_LADDER_ENTRIES`` (bots.allowances);
  pruning ``CARDROOM_PRUNE_AFTER_DAYS`` (14), ``CARDROOM_PRUNE_EVERY_S`` (21600).
- Sign-up: ``CARDROOM_SIGNUP_CONFIRMATION`` (``none``, or ``email``: a new account has no
  allowance until it opens the link mailed to it; bots.accounts),
  ``CARDROOM_SIGNUP_CONFIRM_DAYS`` (3); mail through ``EMAIL_BACKEND`` (the console when
  unset), ``EMAIL_HOST``, ``EMAIL_PORT``, ``EMAIL_HOST_USER``, ``EMAIL_HOST_PASSWORD``,
  ``EMAIL_USE_TLS``, ``DEFAULT_FROM_EMAIL``.
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

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("CARDROOM_VAR_DIR", BASE_DIR / "var"))
# Created 0700 (config.private_files); on a host where it cannot be created here, what
# needs it says so later.
with contextlib.suppress(OSError):
    private_directory(VAR_DIR)


def _env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


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


DEBUG = _env_bool("CARDROOM_DEBUG")
SECRET_KEY = _secret_key()
ALLOWED_HOSTS = os.environ.get("CARDROOM_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")

# --- HTTPS (deployments: CARDROOM_HTTPS=1; deploy/cardroom.env.example) ---
# The site is served over TLS only: plain HTTP is redirected, cookies are secure-only and
# browsers are told to keep to HTTPS (HSTS) for CARDROOM_HSTS_SECONDS. Behind nginx the
# ASGI server (uvicorn --proxy-headers) learns the scheme from X-Forwarded-Proto; a server
# that does not can trust that header from its proxy with CARDROOM_PROXY_SSL_HEADER=1.
CARDROOM_HTTPS = _env_bool("CARDROOM_HTTPS")
SECURE_SSL_REDIRECT = CARDROOM_HTTPS
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = CARDROOM_HTTPS
SECURE_HSTS_SECONDS = (
    int(os.environ.get("CARDROOM_HSTS_SECONDS", str(365 * 24 * 3600))) if CARDROOM_HTTPS else 0
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("CARDROOM_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = _env_bool("CARDROOM_HSTS_PRELOAD", True)
if _env_bool("CARDROOM_PROXY_SSL_HEADER"):
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
# The site's own login page (tournaments.site), also for @login_required pages.
LOGIN_URL = "site:login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The site's templates: cardroom/base.html (every page extends it), dashboard/,
        # registration/ (the login page).
        "DIRS": [BASE_DIR / "tournaments" / "dashboard" / "templates"],
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
CARDROOM_PREPARED_STATEMENTS = _env_bool("CARDROOM_PREPARED_STATEMENTS", True)
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
    # The workers' claim and recording are prepared statements (tournaments.recording):
    # planned once with their parameters left open, not again at every execution (the
    # server's "auto" mode re-plans a statement whose generic plan it thinks costlier,
    # which these writes' plans always are). Only prepared statements are affected.
    if CARDROOM_PREPARED_STATEMENTS:
        _options = DATABASES["default"].setdefault("OPTIONS", {})
        _options["options"] = (
            _options.get("options", "") + " -c plan_cache_mode=force_generic_plan"
        ).strip()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


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
# beyond them, a 429.
CARDROOM_THROTTLE_RATES = {
    "register": os.environ.get("CARDROOM_THROTTLE_REGISTER", "10/min"),
    "token": os.environ.get("CARDROOM_THROTTLE_TOKEN", "20/min"),
    "login-ip": os.environ.get("CARDROOM_THROTTLE_LOGIN_IP", "20/min"),
    "login-user": os.environ.get("CARDROOM_THROTTLE_LOGIN_USER", "20/hour"),
    # Replay pages of finished games per anonymous client address (heavy pages).
    "replay": os.environ.get("CARDROOM_THROTTLE_REPLAY", "30/min"),
    # Downloads of every match result of a competition (site and API) per anonymous
    # client address: an open ladder's grow with every match it plays.
    "download": os.environ.get("CARDROOM_THROTTLE_DOWNLOAD", "10/min"),
}
# Proxies in front of the ASGI server that append to X-Forwarded-For. 0 (the default)
# trusts REMOTE_ADDR only, which uvicorn --proxy-headers sets from its trusted proxy.
CARDROOM_NUM_PROXIES = int(os.environ.get("CARDROOM_NUM_PROXIES", "0"))

# --- Channels ---
# Live events of the dashboard (tournaments.events) go through Redis pub/sub, so that
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

# The pages' scripts, styles and icon are the apps' static files (tournaments/static/,
# bots/static/), loaded from this site (CARDROOM_CSP: script-src 'self'). nginx serves
# them from STATIC_ROOT (manage.py collectstatic, deploy/); the demo's server serves them
# itself (config.asgi, CARDROOM_SERVE_STATIC=1).
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"

# Request size limits: JSON and form bodies are small; a bot upload is a file part,
# whose size the API checks before the body is read (bots.api.views).
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
    # The API's views page with config.api.Pagination (up to 100 per page, ?page_size=).
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
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

# --- Allowances per user (bots.allowances; deploy/README.md "Allowances") ---
# What one user may take of the shared platform; staff raise them per user in the admin
# (User allowances). "A day" counts since midnight UTC. A value that is not a whole
# number from 0 to 10**12 stops the start-up with the setting's name.
ALLOWANCE_MAX = 10**12


def _env_allowance(name: str, default: int) -> int:
    raw = os.environ.get(name, str(default)).strip().replace("_", "")
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if not 0 <= value <= ALLOWANCE_MAX:
        raise ImproperlyConfigured(
            f"{name} must be a whole number from 0 to {ALLOWANCE_MAX}, got {os.environ[name]!r}"
        )
    return value


CARDROOM_ALLOWANCE_BOTS = _env_allowance("CARDROOM_ALLOWANCE_BOTS", 20)
CARDROOM_ALLOWANCE_VERSIONS_PER_DAY = _env_allowance("CARDROOM_ALLOWANCE_VERSIONS_PER_DAY", 24)
CARDROOM_ALLOWANCE_UPLOAD_BYTES_PER_DAY = _env_allowance(
    "CARDROOM_ALLOWANCE_UPLOAD_BYTES_PER_DAY", 50 * 1024 * 1024
)
CARDROOM_ALLOWANCE_VERSION_TEST_GAMES_PER_DAY = _env_allowance(
    "CARDROOM_ALLOWANCE_VERSION_TEST_GAMES_PER_DAY", 100_000
)
CARDROOM_ALLOWANCE_OPEN_VERSION_TESTS = _env_allowance("CARDROOM_ALLOWANCE_OPEN_VERSION_TESTS", 2)
CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = _env_allowance(
    "CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY", 2_000
)
CARDROOM_ALLOWANCE_OPEN_CHALLENGES = _env_allowance("CARDROOM_ALLOWANCE_OPEN_CHALLENGES", 5)
CARDROOM_ALLOWANCE_LADDER_ENTRIES = _env_allowance("CARDROOM_ALLOWANCE_LADDER_ENTRIES", 10)

# --- Sign-up (bots.accounts; deploy/README.md "Accounts") ---
# ``email``: an account made by sign-up must open the link mailed to it before it gets
# any allowance (bots, uploads, entries, tests), so each working account costs a person
# a mailbox. ``none``: accounts work at once (the demo, a club on one machine).
CARDROOM_SIGNUP_CONFIRMATION = os.environ.get("CARDROOM_SIGNUP_CONFIRMATION", "none").strip()
if CARDROOM_SIGNUP_CONFIRMATION not in ("none", "email"):
    raise ImproperlyConfigured(
        f"CARDROOM_SIGNUP_CONFIRMATION must be none or email, got {CARDROOM_SIGNUP_CONFIRMATION!r}"
    )
CARDROOM_SIGNUP_CONFIRM_DAYS = _env_allowance("CARDROOM_SIGNUP_CONFIRM_DAYS", 3)
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _env_bool("EMAIL_USE_TLS")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "cardroom@localhost")

# --- Storage pruning (bots.pruning; deploy/README.md "Storage") ---
# Versions rejected, or ready but superseded and never played, this many days ago are
# deleted (with their stored upload when no other version shares it) by the periodic
# ``bots.versions_prune`` (every CARDROOM_PRUNE_EVERY_S; 0 turns it off) and by
# ``manage.py prune_versions``. A version any match, entry or version test names is kept.
CARDROOM_PRUNE_AFTER_DAYS = _env_allowance("CARDROOM_PRUNE_AFTER_DAYS", 14)
CARDROOM_PRUNE_EVERY_S = _env_allowance("CARDROOM_PRUNE_EVERY_S", 6 * 3600)

# --- Metrics (config.metrics; deploy/README.md "Metrics") ---
# /metrics answers staff sessions and ``Authorization: Bearer <CARDROOM_METRICS_TOKEN>``
# (unset: staff only). Workers serve their own on CARDROOM_WORKER_METRICS_PORT (0: off),
# gathered from their processes through PROMETHEUS_MULTIPROC_DIR (config.metrics).
CARDROOM_METRICS_TOKEN = os.environ.get("CARDROOM_METRICS_TOKEN", "")
CARDROOM_WORKER_METRICS_PORT = _env_allowance("CARDROOM_WORKER_METRICS_PORT", 0)
if CARDROOM_WORKER_METRICS_PORT > 65535:
    raise ImproperlyConfigured(
        f"CARDROOM_WORKER_METRICS_PORT must be a TCP port (1 to 65535) or 0 (off), "
        f"got {CARDROOM_WORKER_METRICS_PORT}"
    )

# --- Workers ---
# A worker lowers its own CPU priority (its pool processes inherit it): where workers
# share a machine with the web tier (a club's one machine, the demo), pages and live
# pushes are served before bulk matches. Bots lose nothing: they run in cgroups whose
# weight the sandbox sets, are charged their CPU time, and the time they waited for a CPU
# is not charged. 0 keeps the priority.
CARDROOM_WORKER_NICE = _env_allowance("CARDROOM_WORKER_NICE", 10)
if CARDROOM_WORKER_NICE > 19:
    raise ImproperlyConfigured(
        f"CARDROOM_WORKER_NICE must be a whole number from 0 to 19, got {CARDROOM_WORKER_NICE}"
    )

# The group holding every bot gets a CPU weight below the rest of the machine's. The
# sandbox reads the variable itself (bots.sandbox.cgroup.base_weight, the same rule); a
# bad value stops the start here, naming it, rather than at a worker's first match.
_weight = os.environ.get("CARDROOM_SANDBOX_CPU_WEIGHT", "20").strip() or "20"
if not _weight.isdigit() or not 1 <= int(_weight) <= 10_000:
    raise ImproperlyConfigured(
        f"CARDROOM_SANDBOX_CPU_WEIGHT must be a whole number from 1 to 10000, got {_weight!r}"
    )
CARDROOM_SANDBOX_CPU_WEIGHT = int(_weight)

# --- Celery ---
# Work is queued by kind, one queue each (names below; CARDROOM_QUEUE_PREFIX goes before
# every default name). A worker listens to the queues of CARDROOM_QUEUES in that order
# and always takes from the first that has work (the Redis transport's "priority" order,
# CELERY_BROKER_TRANSPORT_OPTIONS below): periodic tasks, then the matches of
# tournaments and leagues (a round waits on them), of ladders, validations, challenges,
# version tests, anything else. See docs/queues.md and deploy/README.md. The broker and
# the result backend are the Redis of REDIS_URL. Times are seconds; every value can be
# set from the environment.
CARDROOM_QUEUE_PREFIX = os.environ.get("CARDROOM_QUEUE_PREFIX", "")


def _queue_name(variable: str, default: str) -> str:
    return os.environ.get(variable, CARDROOM_QUEUE_PREFIX + default)


# The reaper and the validations' requeuing (beat): a worker of their own serves them.
CARDROOM_PERIODIC_QUEUE = _queue_name("CARDROOM_PERIODIC_QUEUE", "periodic")
# Matches of knockouts, round robins, Swiss (tournaments and league seasons).
CARDROOM_MATCH_QUEUE = _queue_name("CARDROOM_MATCH_QUEUE", "matches")
CARDROOM_LADDER_QUEUE = _queue_name("CARDROOM_LADDER_QUEUE", "ladders")
# Uploads are always validated on a worker (bots.tasks), never inside the upload request:
# on this queue (its workers need the sandbox; uploads come from the bot store). A validation queued
# this long ago that has not started is sent again (its message was lost).
CARDROOM_VALIDATE_QUEUE = _queue_name("CARDROOM_VALIDATE_QUEUE", "validations")
CARDROOM_VALIDATE_GRACE_S = int(os.environ.get("CARDROOM_VALIDATE_GRACE_S", "600"))
CARDROOM_CHALLENGE_QUEUE = _queue_name("CARDROOM_CHALLENGE_QUEUE", "challenges")
CARDROOM_VERSION_TEST_QUEUE = _queue_name("CARDROOM_VERSION_TEST_QUEUE", "version-tests")
CARDROOM_DEFAULT_QUEUE = _queue_name("CARDROOM_DEFAULT_QUEUE", "celery")
#: (kind, queue) of all work, most urgent first: what a worker listens to, in this order
#: (``celery -A config worker -Q`` + the names joined by commas; ``manage.py
#: worker_queues`` prints them). Metrics and allowances read the kinds from here.
CARDROOM_QUEUES: tuple[tuple[str, str], ...] = (
    ("periodic", CARDROOM_PERIODIC_QUEUE),
    ("competition", CARDROOM_MATCH_QUEUE),
    ("ladder", CARDROOM_LADDER_QUEUE),
    ("validation", CARDROOM_VALIDATE_QUEUE),
    ("challenge", CARDROOM_CHALLENGE_QUEUE),
    ("version-test", CARDROOM_VERSION_TEST_QUEUE),
    ("default", CARDROOM_DEFAULT_QUEUE),
)
# A competition has at most this many messages waiting in its queue (a message: one match,
# or a list of up to 64 short ones); the rest wait in the database and are sent as workers
# take those, behind the other competitions' (tournaments.execution: turns within a kind).
CARDROOM_COMPETITION_WINDOW = int(os.environ.get("CARDROOM_COMPETITION_WINDOW", "4"))
# A worker told to stop (SIGTERM) claims nothing more and lets the match it plays finish
# for this long; then it gives the match back to the queue (tournaments.drain).
CARDROOM_DRAIN_GRACE_S = float(os.environ.get("CARDROOM_DRAIN_GRACE_S", "60"))
if CARDROOM_COMPETITION_WINDOW < 1:
    raise ImproperlyConfigured(
        f"CARDROOM_COMPETITION_WINDOW must be at least 1, got {CARDROOM_COMPETITION_WINDOW}"
    )
if not 0 <= CARDROOM_DRAIN_GRACE_S <= 86400:
    raise ImproperlyConfigured(
        f"CARDROOM_DRAIN_GRACE_S must be from 0 to 86400 seconds, got {CARDROOM_DRAIN_GRACE_S}"
    )
# Matches shorter than this many games share tasks: a round of them goes out as one
# task that plays its waiting matches one after another and brings in free workers
# (tournaments.services.queue.match_tasks); 1 sends one task per match. A task that has
# played for CARDROOM_TASK_BUDGET_S seconds sends the rest of its list again.
CARDROOM_TASK_GAMES = int(os.environ.get("CARDROOM_TASK_GAMES", "20"))
CARDROOM_TASK_BUDGET_S = float(os.environ.get("CARDROOM_TASK_BUDGET_S", "10"))
# Soft limit of one match task (the hard limit is 30 s later); no match may run longer.
CARDROOM_MATCH_TIME_LIMIT_S = int(os.environ.get("CARDROOM_MATCH_TIME_LIMIT_S", "1800"))
# A claimed match belongs to its worker for this long; after it the reaper requeues it.
CARDROOM_MATCH_LEASE_S = int(
    os.environ.get("CARDROOM_MATCH_LEASE_S", str(CARDROOM_MATCH_TIME_LIMIT_S + 60))
)
# A queued match whose task has not started within this time is enqueued again
# (a message lost with the broker); a duplicate message is harmless.
CARDROOM_QUEUE_GRACE_S = int(os.environ.get("CARDROOM_QUEUE_GRACE_S", "3600"))
# Infrastructure errors (sandbox, database, OS) are retried this often, with backoff.
CARDROOM_MATCH_MAX_RETRIES = int(os.environ.get("CARDROOM_MATCH_MAX_RETRIES", "5"))
CARDROOM_MATCH_RETRY_BACKOFF_S = float(os.environ.get("CARDROOM_MATCH_RETRY_BACKOFF_S", "5"))
# On PostgreSQL a worker's claim and recording commit without waiting for the disk
# (synchronous_commit off for those transactions; safe, see tournaments/execution.py).
CARDROOM_MATCH_ASYNC_COMMIT = os.environ.get("CARDROOM_MATCH_ASYNC_COMMIT", "1") not in (
    "0",
    "false",
    "no",
)
# Watching a match while it is played (tournaments.live): the worker publishes each game
# as it finishes and the game in progress, through the cache, at most once per
# CARDROOM_LIVE_MOVES_S for moves and once per CARDROOM_LIVE_GAMES_S for finished games,
# nothing before the match has been played for CARDROOM_LIVE_AFTER_S.
CARDROOM_LIVE = os.environ.get("CARDROOM_LIVE", "1") not in ("0", "false", "no")
CARDROOM_LIVE_MOVES_S = float(os.environ.get("CARDROOM_LIVE_MOVES_S", "0.25"))
CARDROOM_LIVE_GAMES_S = float(os.environ.get("CARDROOM_LIVE_GAMES_S", "0.05"))
CARDROOM_LIVE_AFTER_S = float(os.environ.get("CARDROOM_LIVE_AFTER_S", "0.5"))
# A match whose lease expired this many times (its worker died each time) fails.
CARDROOM_MATCH_MAX_ATTEMPTS = int(os.environ.get("CARDROOM_MATCH_MAX_ATTEMPTS", "8"))
CARDROOM_REAP_EVERY_S = float(os.environ.get("CARDROOM_REAP_EVERY_S", "30"))
# A ladder pairs its next batch as soon as one ends; with a pause, the reaper pairs it
# once the last batch has been over this long (a paced ladder; the demo uses one).
CARDROOM_LADDER_PAUSE_S = float(os.environ.get("CARDROOM_LADDER_PAUSE_S", "0"))

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
if CELERY_BROKER_URL.startswith("redis://"):
    # kombu's Redis transport, with a worker-stopping fault on a lost broker mended.
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", REDIS_URL)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True  # results live in the database
# Celery's Django fixup closes the database connection after every task unless this is
# set (a new connection per match: several milliseconds). Tasks keep their connection;
# config.celery closes it when Django would (errors, CONN_MAX_AGE) around each task.
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Messages a worker process holds beyond the matches it plays: 1 takes the next only
# once a match is over (no match waits behind a long one on a busy worker); 2 keeps
# one in hand, which saves the fetch between short matches.
CELERY_WORKER_PREFETCH_MULTIPLIER = int(os.environ.get("CARDROOM_WORKER_PREFETCH", "1"))
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False  # they record via the DB
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SOFT_TIME_LIMIT = CARDROOM_MATCH_TIME_LIMIT_S
CELERY_TASK_TIME_LIMIT = CARDROOM_MATCH_TIME_LIMIT_S + 30
# Unacknowledged messages come back after this; it must outlast the longest match.
# "priority": a worker's BRPOP names its queues in the order it was given them, always
# (kombu's default, round robin, moves the queue it last took from to the end).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CARDROOM_MATCH_LEASE_S + 600,
    "queue_order_strategy": "priority",
}
CELERY_TASK_DEFAULT_QUEUE = CARDROOM_DEFAULT_QUEUE
CELERY_TASK_ROUTES = {
    "tournaments.match_run": {"queue": CARDROOM_MATCH_QUEUE},
    "tournaments.matches_run": {"queue": CARDROOM_MATCH_QUEUE},
    "bots.version_validate": {"queue": CARDROOM_VALIDATE_QUEUE},
    "tournaments.version_test_run": {"queue": CARDROOM_VERSION_TEST_QUEUE},
    "tournaments.matches_reap": {"queue": CARDROOM_PERIODIC_QUEUE},
    "bots.versions_requeue": {"queue": CARDROOM_PERIODIC_QUEUE},
}
CELERY_BEAT_SCHEDULE = {
    "matches-reap": {
        "task": "tournaments.matches_reap",
        "schedule": CARDROOM_REAP_EVERY_S,
        "options": {"queue": CARDROOM_PERIODIC_QUEUE},
    },
    "bot-versions-requeue": {
        "task": "bots.versions_requeue",
        "schedule": 60.0,
        "options": {"queue": CARDROOM_PERIODIC_QUEUE},
    },
}
if CARDROOM_PRUNE_EVERY_S:
    CELERY_BEAT_SCHEDULE["bot-versions-prune"] = {
        "task": "bots.versions_prune",
        "schedule": float(CARDROOM_PRUNE_EVERY_S),
    }
