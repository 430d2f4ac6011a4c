"""A form submitted twice does its work once.

Every form of the site's write pages carries a random ``once`` value
(:func:`form_token`). The first POST with a value claims it (an atomic cache
``add``); a repeated POST with the same value (a double click, a reload that
re-sends the form) does nothing and is sent where the first one went.
"""

from __future__ import annotations

import secrets

from django.core.cache import cache

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
