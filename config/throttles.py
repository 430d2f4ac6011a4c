"""Rate limits of the doors an attacker knocks on: registration, tokens, logins.

Counts live in Django's default cache (``config.settings``: Redis when
``REDIS_URL`` is set, else a file cache under ``var/``), so every web process
of an installation shares them. Rates are ``<n>/<period>`` strings
(``s``, ``min``, ``hour``, ``day``) of ``CARDROOM_THROTTLE_RATES``, read at each
request so that a changed setting takes effect at once:

- ``register``: sign-up requests per client (below);
- ``signup``: accounts made per client (:func:`signup_wait`, called by
  ``bots.accounts.account_register`` once the details are good: a sign-up refused
  for a taken name or a weak password costs nothing of it);
- ``token``: ``POST /api/auth/token/`` attempts per client;
- ``login-ip`` and ``login-user``: failed logins (token, site or admin) per client
  address, and per username from one client address; once either is used up,
  further attempts from that address get a 429 until the window ends, whether
  the password is right or not. The count of a username is kept per (username,
  address), so failures from one address never lock the user out from another:
  nobody can lock another person out by guessing wrong.

Heavy reads are counted per client (:func:`client_wait`): per account when signed in,
per client address otherwise, so that neither a visitor nor an account can take the
server's time from everyone else; staff are not counted:

- ``replay``: replay pages of finished games (``web.dashboard.replay_cache``);
- ``download``: downloads of every match result of a competition (site and API);
- ``record``: game records with their whole record (``GET /api/games/<id>/``);
- ``transcript``: a seat's transcript of a game (``GET /api/games/<id>/transcript/``).

An HTML page past its rate answers a page saying so (:func:`rate_limited`, the
``429.html`` template), an API a 429 (:class:`ClientRateThrottle`); both with
``Retry-After``.

The client address is ``REMOTE_ADDR``, unless that is a proxy named in
``CARDROOM_TRUSTED_PROXIES`` (none by default): then the right-most address of
``X-Forwarded-For`` that is not one of them (``config.proxies``). A header from
anyone else is ignored, so a client cannot count its attempts against addresses of
its choosing. A cache that fails is logged and lets the request through: the limits
protect the login, they do not guard it.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from config import proxies

log = logging.getLogger(__name__)

REGISTER = "register"
SIGNUP = "signup"
TOKEN = "token"
LOGIN_IP = "login-ip"
LOGIN_USER = "login-user"


def client_address(request: HttpRequest) -> str:
    """The client's address: ``REMOTE_ADDR``, or from a trusted proxy the right-most
    untrusted hop of its ``X-Forwarded-For`` (:func:`config.proxies.client_address`)."""
    return proxies.client_address(
        request.META.get("REMOTE_ADDR") or "unknown",
        request.META.get("HTTP_X_FORWARDED_FOR", ""),
        proxies.trusted_networks(settings.CARDROOM_TRUSTED_PROXIES),
    )


def client_block(request: HttpRequest) -> str:
    """What the per-client limits count the request against: the client's address,
    or its IPv6 /64 network (:func:`config.proxies.client_block`)."""
    return proxies.client_block(client_address(request))


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
    """A DRF throttle of one scope, per client (an address, an IPv6 /64:
    :func:`client_block`), at the current settings' rate."""

    def get_rate(self) -> str:
        return settings.CARDROOM_THROTTLE_RATES[self.scope]

    def parse_rate(self, rate: str) -> tuple[int, int]:
        return rate_of(self.scope)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_block(request)}

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


def signup_wait(address: str) -> int | None:
    """Count one account made from ``address`` (its client: an IPv6 address's /64) in
    the ``signup`` scope, a fixed window counted atomically with the cache's ``incr``;
    the seconds until the window ends once its rate is used up, else None. A cache that
    fails is logged and lets the sign-up through."""
    limit, seconds = rate_of(SIGNUP)
    try:
        now = time.time()
        window = int(now // seconds)
        key = f"signups:{proxies.client_block(address)}:{window}"
        cache.add(key, 0, timeout=seconds + 1)
        if cache.incr(key) > limit:
            return max(1, int((window + 1) * seconds - now) + 1)
        return None
    except Exception:
        log.warning("sign-ups: cache unavailable, sign-up allowed", exc_info=True)
        return None


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


# --- heavy reads per client -----------------------------------------------------------


def client_of(request: HttpRequest) -> str | None:
    """Whom a heavy read is counted against: ``user:<id>`` when signed in, else
    ``address:<client address>``; None for staff, who are not counted."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return None if user.is_staff else f"user:{user.pk}"
    return f"address:{client_address(request)}"


def client_wait(request: HttpRequest, scope: str) -> int | None:
    """Count one request of this client (:func:`client_of`: the account, else the
    address) in ``scope``; the seconds until the window ends once the scope's rate is
    used up, else None (always None for staff)."""
    client = client_of(request)
    return None if client is None else window_wait(scope, client)


def window_wait(scope: str, client: str) -> int | None:
    """Count one request of ``client`` in ``scope`` (fixed windows, counted atomically
    with the cache's ``incr``); the seconds until the window ends once the scope's rate
    is used up, else None. Raises ``ValueError`` for a scope without a rate; a cache that
    fails is logged and lets the request through."""
    try:
        limit, seconds = rate_of(scope)
        now = time.time()
        window = int(now // seconds)
        key = f"client-rate:{scope}:{client}:{window}"
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


#: The scopes of heavy reads, each counted per account or per anonymous address.
REPLAY = "replay"
DOWNLOAD = "download"
RECORD = "record"
TRANSCRIPT = "transcript"

#: What a client past a scope's rate is told (``{wait}``: seconds); an anonymous one also
#: reads :data:`SIGN_IN`, since everyone at its address shares its count.
TOO_OFTEN = {
    REPLAY: "Too many replays from here in a short time: reload the page in {wait} seconds.",
    DOWNLOAD: "Too many downloads of every match result from here in a short time: try "
    "again in {wait} seconds.",
    RECORD: "Too many game records from here in a short time: try again in {wait} seconds.",
    TRANSCRIPT: "Too many transcripts from here in a short time: try again in {wait} " "seconds.",
}
SIGN_IN = " Or sign in: an account is counted on its own, not with everyone at its address."


def too_often(request: HttpRequest, scope: str, wait: int) -> str:
    """The words of a refusal in ``scope``: how long to wait, and for a visitor that
    signing in gives a count of its own."""
    words = TOO_OFTEN[scope].format(wait=wait)
    user = getattr(request, "user", None)
    return words if user is not None and user.is_authenticated else words + SIGN_IN


def too_many_page(request: HttpRequest, scope: str, wait: int) -> HttpResponse:
    """The 429 page of an HTML page past ``scope``'s rate, with ``Retry-After``."""
    context = {"refusal": too_often(request, scope, wait), "wait": wait}
    response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response


def rate_limited(scope: str) -> Callable:
    """A view decorator: each request counts against the client's ``scope``
    (:func:`client_wait`), and past its rate the view is not called (a 429 page,
    :func:`too_many_page`), so that a refusal costs next to nothing."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def limited(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if (wait := client_wait(request, scope)) is not None:
                return too_many_page(request, scope, wait)
            return view(request, *args, **kwargs)

        return limited

    return decorate


class ClientRateThrottle(BaseThrottle):
    """A DRF throttle of one heavy-read scope per client (:func:`client_wait`): a 429 with
    ``Retry-After`` past its rate. Subclasses name the ``scope``."""

    scope = ""

    def allow_request(self, request, view) -> bool:
        self._wait = client_wait(request, self.scope)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait


class RecordThrottle(ClientRateThrottle):
    scope = RECORD


class TranscriptThrottle(ClientRateThrottle):
    scope = TRANSCRIPT


def download_wait(request: HttpRequest) -> int | None:
    """Seconds a client (an account, else an address; staff are not counted) must wait
    before its next download of a competition's every match result (site or API); None
    when it may have one now."""
    return client_wait(request, DOWNLOAD)
