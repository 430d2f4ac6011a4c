"""Rate limits of the doors an attacker knocks on: registration, tokens, logins.

Counts live in Django's default cache (``config.settings``: Redis when
``REDIS_URL`` is set, else a file cache under ``var/``), so every web process
of an installation shares them. Rates are ``<n>/<period>`` strings
(``s``, ``min``, ``hour``, ``day``) of ``CARDROOM_THROTTLE_RATES``, read at each
request so that a changed setting takes effect at once:

- ``register``: account creations per client address;
- ``token``: ``POST /api/auth/token/`` attempts per client address;
- ``login-ip`` and ``login-user``: failed logins (token, site or admin) per client
  address, and per username from one client address; once either is used up,
  further attempts from that address get a 429 until the window ends, whether
  the password is right or not. The count of a username is kept per (username,
  address), so failures from one address never lock the user out from another:
  nobody can lock another person out by guessing wrong.

- ``replay``: replay pages of finished games per anonymous client address
  (``tournaments.dashboard.replay_cache``; :func:`address_wait`).

The client address is ``REMOTE_ADDR`` (the ASGI server sets it from the proxy's
``X-Forwarded-For``; see deploy/), or with ``CARDROOM_NUM_PROXIES`` = n the n-th
address from the right of ``X-Forwarded-For``. A cache that fails is logged and
lets the request through: the limits protect the login, they do not guard it.
"""

from __future__ import annotations

import hashlib
import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.throttling import SimpleRateThrottle

log = logging.getLogger(__name__)

REGISTER = "register"
TOKEN = "token"
LOGIN_IP = "login-ip"
LOGIN_USER = "login-user"


def client_address(request: HttpRequest) -> str:
    """The client's address: ``REMOTE_ADDR``, or the trusted ``X-Forwarded-For`` hop."""
    proxies = int(getattr(settings, "CARDROOM_NUM_PROXIES", 0) or 0)
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies > 0 and forwarded:
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-min(proxies, len(hops))]
    return request.META.get("REMOTE_ADDR") or "unknown"


def rate_of(scope: str) -> tuple[int, int]:
    """(requests, seconds) of ``scope`` in ``CARDROOM_THROTTLE_RATES``.

    Raises ``ValueError`` naming the scope for a missing or malformed rate.
    """
    rate = settings.CARDROOM_THROTTLE_RATES.get(scope)
    try:
        number, period = rate.split("/")
        return int(number), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period.strip()[0]]
    except (AttributeError, ValueError, KeyError, IndexError):
        raise ValueError(f"CARDROOM_THROTTLE_RATES[{scope!r}] is not a rate: {rate!r}") from None


class AddressRateThrottle(SimpleRateThrottle):
    """A DRF throttle of one scope, per client address, at the current settings' rate."""

    def get_rate(self) -> str:
        return settings.CARDROOM_THROTTLE_RATES[self.scope]

    def parse_rate(self, rate: str) -> tuple[int, int]:
        return rate_of(self.scope)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except Exception:
            log.warning(
                "throttle %s: cache unavailable, request allowed", self.scope, exc_info=True
            )
            return True


class RegisterThrottle(AddressRateThrottle):
    scope = REGISTER


class TokenThrottle(AddressRateThrottle):
    """Only ``POST`` (obtaining a token) is limited; revoking one is not."""

    scope = TOKEN

    def allow_request(self, request, view) -> bool:
        return request.method != "POST" or super().allow_request(request, view)


# --- failed logins ----------------------------------------------------------------------


def _failure_keys(request: HttpRequest, username: str) -> list[tuple[str, str]]:
    """(scope, cache key) of the failure counters a login attempt counts against."""
    address = client_address(request)
    keys = [(LOGIN_IP, f"login-failures:ip:{address}")]
    if username:
        # Per (username, address): wrong guesses from one place lock out only that place.
        digest = hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]
        keys.append((LOGIN_USER, f"login-failures:user:{digest}:{address}"))
    return keys


def login_blocked_for(request: HttpRequest, username: str) -> int | None:
    """Seconds until a login by this client or for ``username`` may be tried again;
    None when it may be tried now."""
    try:
        now = time.time()
        waits = []
        for scope, key in _failure_keys(request, username):
            limit, _ = rate_of(scope)
            count, window_ends = cache.get(key, (0, 0.0))
            if count >= limit and window_ends > now:
                waits.append(window_ends - now)
        return max(1, int(max(waits)) + 1) if waits else None
    except ValueError:
        raise
    except Exception:
        log.warning("login limits: cache unavailable, attempt allowed", exc_info=True)
        return None


def login_failed(request: HttpRequest, username: str) -> None:
    """Count one failed login of this client, and of ``username`` from this client
    (fixed windows)."""
    try:
        now = time.time()
        for scope, key in _failure_keys(request, username):
            _, seconds = rate_of(scope)
            count, window_ends = cache.get(key, (0, 0.0))
            if window_ends <= now:
                count, window_ends = 0, now + seconds
            cache.set(key, (count + 1, window_ends), timeout=max(1, int(window_ends - now) + 1))
    except ValueError:
        raise
    except Exception:
        log.warning("login limits: cache unavailable, failure not counted", exc_info=True)


# --- pages per address -------------------------------------------------------------------


def address_wait(request: HttpRequest, scope: str) -> int | None:
    """Count one request of this client in ``scope`` (fixed windows, counted atomically
    with the cache's ``incr``); the seconds until the window ends once the scope's rate is
    used up, else None."""
    try:
        limit, seconds = rate_of(scope)
        now = time.time()
        window = int(now // seconds)
        key = f"address-rate:{scope}:{client_address(request)}:{window}"
        cache.add(key, 0, timeout=seconds + 1)
        count = cache.incr(key)
        if count > limit:
            return max(1, int((window + 1) * seconds - now) + 1)
        return None
    except ValueError as exc:
        if "not a rate" in str(exc):
            raise
        log.warning("rate %s: count lost, request allowed", scope, exc_info=True)
        return None
    except Exception:
        log.warning("rate %s: cache unavailable, request allowed", scope, exc_info=True)
        return None


#: The scope of the downloads of every match result of a competition.
DOWNLOAD = "download"
DOWNLOADS_TOO_OFTEN = (
    "Too many downloads of every match result from here in a short time: try again in "
    "{wait} seconds, or sign in (signed-in users are not limited)."
)


def download_wait(request: HttpRequest) -> int | None:
    """Seconds an anonymous client must wait before its next download of a competition's
    every match result (site or API); None when it may have one now (and always for a
    signed-in user)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return None
    return address_wait(request, DOWNLOAD)
