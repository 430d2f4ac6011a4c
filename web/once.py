"""A form submitted twice does its work once.

Every form of the site's write pages carries a random ``once`` value
(:func:`form_token`). The first POST with a value claims it (an atomic cache
``add``); a repeated POST with the same value (a double click, a reload that
re-sends the form) does nothing and is sent where the first one went.

A value is accepted only in the form the server makes: a random part and its
HMAC (the site's ``SECRET_KEY``) bound to the signed-in user's session, at most
:data:`MAX_LENGTH` characters. Anything else (a forged, altered, overlong value or
one made for another session) is treated as no value at all: the form is handled
once as usual and nothing is written to the cache, so a client cannot grow the
cache by sending values of its own.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from typing import Any

from django import forms
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.crypto import salted_hmac

FIELD = "once"
#: How long a submitted form's value is remembered.
REMEMBER_S = 6 * 3600
_CLAIMED = "claimed"
#: The longest value the server makes (22 random + "." + 43 signature characters).
MAX_LENGTH = 80
_SALT = "cardroom.once"


def _binding(request: HttpRequest) -> str:
    """What a value is bound to: the session (the user's, when signed in)."""
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None) or ""
    user = getattr(request, "user", None)
    return f"{key}:{getattr(user, 'pk', '') or ''}"


def _signature(nonce: str, request: HttpRequest) -> str:
    return salted_hmac(_SALT, f"{nonce}|{_binding(request)}", algorithm="sha256").hexdigest()[:43]


def form_token(request: HttpRequest) -> str:
    """A new value for a form of this request's session: ``<random>.<signature>``."""
    session = getattr(request, "session", None)
    if session is not None and session.session_key is None:
        session.save()  # a value needs a session to be bound to
    nonce = secrets.token_urlsafe(16)
    return f"{nonce}.{_signature(nonce, request)}"


def _genuine(value: str | None, request: HttpRequest) -> str | None:
    """``value`` if the server made it for this session, else None."""
    if not value or len(value) > MAX_LENGTH or value.count(".") != 1:
        return None
    nonce, signature = value.split(".")
    return value if hmac.compare_digest(signature, _signature(nonce, request)) else None


def submitted(request: HttpRequest) -> str | None:
    """The request's genuine ``once`` value (see the module's docstring), or None."""
    return _genuine(request.POST.get(FIELD), request)


def _key(value: str) -> str:
    return f"form-once:{value}"


def claim(value: str | None) -> bool | str:
    """True if this submission is the first with ``value`` (or has none); otherwise the
    address the first one was sent to ("" while it is still running)."""
    if not value:
        return True
    if cache.add(_key(value), _CLAIMED, REMEMBER_S):
        return True
    seen = cache.get(_key(value))
    return "" if seen in (None, _CLAIMED) else seen


def settle(value: str | None, url: str) -> None:
    """Remember where the first submission with ``value`` was sent."""
    if value:
        cache.set(_key(value), url, REMEMBER_S)


def release(value: str | None) -> None:
    """The first submission failed (its errors are shown): the form may be sent again."""
    if value:
        cache.delete(_key(value))


def repeated(request: HttpRequest, fallback: str) -> HttpResponse | None:
    """The answer to a form sent a second time: a redirect to where the first one was
    sent (``fallback`` while it still runs); None for the first time."""
    first = claim(submitted(request))
    return None if first is True else redirect(first or fallback)


def submit(
    request: HttpRequest,
    form: forms.Form,
    write: Callable[[dict[str, Any]], str],
    on_error: Callable[[forms.Form, ValidationError], None],
) -> HttpResponse | None:
    """The write of a form sent for the first time (see :func:`repeated`).

    For a valid ``form``, ``write(form.cleaned_data)`` runs in a transaction and
    returns the address to go to: the answer is a redirect there, remembered for a
    repeated submission. A ``ValidationError`` of the service goes onto the form
    (``on_error``); then, as for an invalid form, the value is released and None is
    returned: the caller shows the form again with its errors.
    """
    value = submitted(request)
    if form.is_valid():
        try:
            with transaction.atomic():
                url = write(form.cleaned_data)
        except ValidationError as error:
            on_error(form, error)
        else:
            settle(value, url)
            return redirect(url)
    release(value)
    return None
