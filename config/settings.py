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
- Rate limits ``CARDROOM_THROTTLE_REGISTER``, ``_TOKEN``, ``_LOGIN_IP``, ``_LOGIN_USER``
  (``10/min``, ``20/min``, ``20/min``, ``20/hour``), ``CARDROOM_NUM_PROXIES``;
  ``CARDROOM_CACHE_PREFIX``; ``CARDROOM_TOKEN_TTL_HOURS`` (720);
  ``CARDROOM_JSON_MAX_DEPTH`` (32); ``CARDROOM_VALIDATE_QUEUE``, ``_GRACE_S``.
- ``CARDROOM_BOT_STORE``: where uploads are kept, ``db`` (default) or ``s3``
  (``CARDROOM_BOT_STORE_BUCKET``, ``_ENDPOINT``, ``_PREFIX``); a worker's cache
  ``CARDROOM_BOT_CACHE_DIR`` (``<var>/bot-cache``), ``CARDROOM_BOT_CACHE_MB`` (1024).
- ``CARDROOM_MAX_REQUEST_BYTES``: larger requests are refused (413) unread (5 MiB + 64 KiB).
- ``CARDROOM_WORKER_PREFETCH``: Celery's prefetch multiplier for workers (default ``1``).
- ``CARDROOM_TASK_GAMES``: matches shorter than this share Celery tasks (default ``20``;
  ``1``: one task per match); ``CARDROOM_TASK_BUDGET_S`` (``10``).
- ``CARDROOM_PREPARED_STATEMENTS``: ``0`` for a PostgreSQL connection pooler that
  cannot keep prepared statements (default ``1``: the claim and the recording are
  prepared, and connections plan prepared statements generically).

Everything Cardroom writes under ``CARDROOM_VAR_DIR`` is private to its user.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

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
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'cardroom.sqlite3'}"),
        conn_max_age=60,
    )
}
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

# --- Cache ---
# It holds the rate limits (config.throttles), which every web process must share: the
# Redis of REDIS_URL when that is set (``CARDROOM_CACHE_PREFIX`` separates instances),
# else files under var/cache (one machine's processes).
if os.environ.get("REDIS_URL"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
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
# failed logins (API token and admin) per address and per username; beyond them, a 429.
CARDROOM_THROTTLE_RATES = {
    "register": os.environ.get("CARDROOM_THROTTLE_REGISTER", "10/min"),
    "token": os.environ.get("CARDROOM_THROTTLE_TOKEN", "20/min"),
    "login-ip": os.environ.get("CARDROOM_THROTTLE_LOGIN_IP", "20/min"),
    "login-user": os.environ.get("CARDROOM_THROTTLE_LOGIN_USER", "20/hour"),
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
    },
}

# --- Celery ---
# Match tasks on the ``matches`` queue (tournaments.tasks); the periodic reaper
# and other small tasks use the default queue. The broker and the result backend are
# the Redis of REDIS_URL. Times are seconds; every value can be set from the environment.
CARDROOM_MATCH_QUEUE = os.environ.get("CARDROOM_MATCH_QUEUE", "matches")
CARDROOM_DEFAULT_QUEUE = os.environ.get("CARDROOM_DEFAULT_QUEUE", "celery")
# Uploads are always validated on a worker (bots.tasks), never inside the upload request:
# on this queue (its workers need the sandbox; uploads come from the bot store). A validation queued
# this long ago that has not started is sent again (its message was lost).
CARDROOM_VALIDATE_QUEUE = os.environ.get("CARDROOM_VALIDATE_QUEUE", CARDROOM_DEFAULT_QUEUE)
CARDROOM_VALIDATE_GRACE_S = int(os.environ.get("CARDROOM_VALIDATE_GRACE_S", "600"))
# Matches shorter than this many games share tasks: a round of them goes out as one
# task that plays its waiting matches one after another and brings in free workers
# (tournaments.execution.match_tasks); 1 sends one task per match. A task that has
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
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CARDROOM_MATCH_LEASE_S + 600}
CELERY_TASK_DEFAULT_QUEUE = CARDROOM_DEFAULT_QUEUE
CELERY_TASK_ROUTES = {
    "tournaments.match_run": {"queue": CARDROOM_MATCH_QUEUE},
    "tournaments.matches_run": {"queue": CARDROOM_MATCH_QUEUE},
    "bots.version_validate": {"queue": CARDROOM_VALIDATE_QUEUE},
}
CELERY_BEAT_SCHEDULE = {
    "matches-reap": {"task": "tournaments.matches_reap", "schedule": CARDROOM_REAP_EVERY_S},
    "bot-versions-requeue": {"task": "bots.versions_requeue", "schedule": 60.0},
}
