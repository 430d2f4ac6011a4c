"""A form submitted twice does its work once.

Every form of the site's write pages carries a random ``once`` value
(:func:`form_token`). The first POST with a value claims it (an atomic cache
``add``); a repeated POST with the same value (a double click, a reload that
re-sends the form) does nothing and is sent where the first one went.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from django import forms
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

FIELD = "once"
#: How long a submitted form's value is remembered.
REMEMBER_S = 6 * 3600
_CLAIMED = "claimed"


def form_token() -> str:
    return secrets.token_urlsafe(16)


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
    first = claim(request.POST.get(FIELD))
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
    value = request.POST.get(FIELD)
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
