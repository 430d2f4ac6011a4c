"""Accounts that cost a person something: sign-up with a confirmed e-mail address.

With ``CARDROOM_SIGNUP_CONFIRMATION = "email"`` an account made by sign-up (the site's
form or ``POST /api/auth/register/``) is sent a link, signed and valid for
``CARDROOM_SIGNUP_CONFIRM_DAYS``; until it is opened the account has no allowance at
all (:func:`confirmed_or_raise`, called by ``bots.allowances.allowance_check``: no bot,
upload, entry, version test or challenge). So every working account is a mailbox
someone opened, and the allowances count per confirmed account. With ``none`` an account
made by sign-up works at once but its address stays unconfirmed (:func:`email_confirmed`):
it stores fewer bytes, and all such accounts together have a total
(``bots.allowances``), so that accounts made by the dozen cannot fill the disk. Accounts
made before sign-ups were recorded, or by staff, count as confirmed.

A client (an address; an IPv6 /64 counts as one) makes at most
``CARDROOM_THROTTLE_RATES["signup"]`` accounts a window (:class:`SignupsExceeded`), and
each sign-up keeps a keyed hash of it, which links accounts made from one place
(``bots.links``).

Public play waits (:func:`public_play_check`): an account enters a public ladder, or
challenges another author's bot, once it is ``CARDROOM_PUBLIC_PLAY_MIN_AGE_H`` hours old
and (with confirmation on) confirmed; until then it plays its own bots and the
built-ins. A throw-away account made for one evening cannot sit beside its maker.

One door for both: :func:`account_register`, :func:`account_confirm` and
:func:`confirmation_send` are what the site and the API call.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from bots import links
from bots.models import AccountConfirmation
from config import throttles

SALT = "cardroom.accounts.confirm"
#: What a username may hold (letters, digits and @/./+/-/_), and what is said otherwise.
USERNAME_PATTERN = r"^[\w.@+-]+\Z"
USERNAME_INVALID = "Letters, digits and @/./+/-/_ only."
USERNAME_TAKEN = "That username is taken."
#: How often a waiting account may ask for the link again.
RESEND_EVERY_S = 60


class AccountUnconfirmed(ValidationError):
    """A request of an account that has not confirmed its e-mail address yet (the API's
    403, the site's form error)."""

    def __init__(self, email: str) -> None:
        super().__init__(
            f"Confirm your e-mail address first: open the link sent to {email} "
            "(or ask for a new one on your account page, POST /api/auth/confirm/resend/).",
            code="unconfirmed",
        )


def confirmation_required() -> bool:
    return settings.CARDROOM_SIGNUP_CONFIRMATION == "email"


def pending_email(*, user) -> str | None:
    """The address ``user`` must confirm before any allowance, or None (an account that
    may use its allowances)."""
    if not getattr(user, "pk", None):
        return None
    return (
        AccountConfirmation.objects.filter(
            user_id=user.pk, confirmed_at__isnull=True, required=True
        )
        .values_list("email", flat=True)
        .first()
    )


def unconfirmed_accounts() -> QuerySet[AccountConfirmation]:
    """The sign-ups whose address is not confirmed (their ``user_id``: staff are left out)."""
    return AccountConfirmation.objects.filter(confirmed_at__isnull=True, user__is_staff=False)


def email_confirmed(*, user) -> bool:
    """Whether ``user`` counts as confirmed: staff, an account made by sign-up that opened
    its link, and an account with no sign-up row (made before they were recorded, or by
    staff). An account made by sign-up with confirmation off is not, until it confirms."""
    if user.is_staff:
        return True
    return not unconfirmed_accounts().filter(user_id=user.pk).exists()


def confirmed_or_raise(*, user) -> None:
    """Raise :class:`AccountUnconfirmed` if ``user`` must still confirm an address."""
    email = pending_email(user=user)
    if email is not None and not user.is_staff:
        raise AccountUnconfirmed(email)


def confirmation_token(confirmation: AccountConfirmation) -> str:
    return signing.dumps({"user": confirmation.user_id, "email": confirmation.email}, salt=SALT)


def confirmation_send(*, user, link_for: Callable[[str], str], force: bool = False) -> None:
    """Mail ``user`` their confirmation link (``link_for(token)`` makes the URL).

    Raises ``ValidationError`` for a confirmed account, or when the last link went out
    less than :data:`RESEND_EVERY_S` ago (unless ``force``: the sign-up itself).
    """
    with transaction.atomic():
        confirmation = (
            AccountConfirmation.objects.select_for_update()
            .filter(user_id=user.pk, confirmed_at__isnull=True)
            .first()
        )
        if confirmation is None:
            raise ValidationError("This account is confirmed already.", code="confirmed")
        if not confirmation.email:
            raise ValidationError(
                "This account has no e-mail address to confirm.", code="no-address"
            )
        now = timezone.now()
        if (
            not force
            and confirmation.sent_at
            and (now - confirmation.sent_at).total_seconds() < RESEND_EVERY_S
        ):
            raise ValidationError(
                f"A link was sent less than {RESEND_EVERY_S} s ago; look in your mailbox.",
                code="throttled",
            )
        confirmation.sent_at = now
        confirmation.save(update_fields=["sent_at"])
    link = link_for(confirmation_token(confirmation))
    days = settings.CARDROOM_SIGNUP_CONFIRM_DAYS
    send_mail(
        "Confirm your Cardroom account",
        f"Hello {user.username},\n\nopen this link to confirm your e-mail address and start "
        f"uploading bots:\n\n{link}\n\nIt works for {days} days. If you did not sign up, "
        "ignore this message.\n",
        settings.DEFAULT_FROM_EMAIL,
        [confirmation.email],
    )


def username_taken(username: str) -> bool:
    """Whether an account has ``username`` already, whatever its case."""
    return get_user_model().objects.filter(username__iexact=username).exists()


def password_problems(*, username: str, email: str, password: str) -> list[str]:
    """What the password validators say of ``password`` for that account ([]: nothing)."""
    user = get_user_model()(username=username, email=email)
    try:
        password_validation.validate_password(password, user)
    except ValidationError as exc:
        return list(exc.messages)
    return []


def registration_errors(*, username: str, email: str, password: str) -> dict[str, list[str]]:
    """What is wrong with a new account's details, field -> messages ({}: nothing): the
    first of a username of other characters, a taken username, the password validators'
    verdict. ``POST /api/auth/register/`` makes the same checks with the same messages
    (``api.accounts.RegistrationSerializer``); the site's sign-up form asks here."""
    if not re.match(USERNAME_PATTERN, username):
        return {"username": [USERNAME_INVALID]}
    if username_taken(username):
        return {"username": [USERNAME_TAKEN]}
    problems = password_problems(username=username, email=email, password=password)
    return {"password": problems} if problems else {}


def account_register(
    *, username: str, email: str, password: str, link_for: Callable[[str], str], address: str = ""
):
    """Create an account (fields checked by the caller) for the client at ``address``
    (counted: :class:`SignupsExceeded` past its sign-ups; its hash kept, linking it with
    the accounts made from there: ``bots.links``); with confirmation on, an
    address is required and the link is mailed. Either way its sign-up is recorded
    unconfirmed (an :class:`AccountConfirmation`, ``required`` with confirmation on)."""
    if confirmation_required() and not email:
        raise ValidationError(
            {"email": ["An e-mail address is required: a link to confirm it is sent there."]}
        )
    if address and (wait := throttles.signup_wait(address)) is not None:
        raise SignupsExceeded(wait)
    with transaction.atomic():
        user = get_user_model().objects.create_user(
            username=username, email=email, password=password
        )
        if address:
            links.signup_record(user=user, address=address)
        AccountConfirmation.objects.create(user=user, email=email, required=confirmation_required())
    if confirmation_required():
        confirmation_send(user=user, link_for=link_for, force=True)
    return user


def account_confirm(*, token: str):
    """Confirm the account a link was made for; returns the user.

    A token that is not ours, altered or expired is a ``ValidationError`` in words; a
    second click on a good link confirms nothing more and is not an error.
    """
    max_age = settings.CARDROOM_SIGNUP_CONFIRM_DAYS * 86400
    try:
        data = signing.loads(token, salt=SALT, max_age=max_age)
    except signing.SignatureExpired:
        raise ValidationError(
            "This confirmation link has expired: ask for a new one.", code="expired"
        ) from None
    except signing.BadSignature:
        raise ValidationError("This confirmation link is not valid.", code="invalid") from None
    confirmation = (
        AccountConfirmation.objects.select_related("user")
        .filter(user_id=data.get("user"), email=data.get("email"))
        .first()
    )
    if confirmation is None:
        raise ValidationError("This confirmation link is not valid.", code="invalid")
    if confirmation.confirmed_at is None:
        confirmation.confirmed_at = timezone.now()
        confirmation.save(update_fields=["confirmed_at"])
    return confirmation.user


class SignupsExceeded(ValidationError):
    """A sign-up from a client that made its accounts of the window already (the API's
    429, the site's); ``wait``: seconds until the window ends."""

    def __init__(self, wait: int) -> None:
        self.wait = wait
        super().__init__(
            "Too many accounts were made from your address (or its network) lately: "
            f"the next may be made in {_duration(wait)}.",
            code="signups",
        )


class PublicPlayRefused(ValidationError):
    """A request of an account not yet allowed to play in public (:func:`public_play_check`):
    the API's 403, the site's form error. ``reason`` is ``unconfirmed`` or ``too-new``;
    ``allowed_at``, when the account is old enough (once confirmed, if it must be)."""

    def __init__(self, message: str, *, reason: str, allowed_at: datetime) -> None:
        self.reason, self.allowed_at = reason, allowed_at
        super().__init__(message, code="public_play")


def _duration(seconds: float) -> str:
    """``seconds`` in words, rounded up: minutes under two hours, else hours."""
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes} minutes" if minutes < 120 else f"{math.ceil(minutes / 60)} hours"


def public_play_check(*, user) -> None:
    """Raise :class:`PublicPlayRefused` unless ``user`` may enter a public ladder or
    challenge another author's bot: staff, or an account at least
    ``CARDROOM_PUBLIC_PLAY_MIN_AGE_H`` hours old (0: any) whose e-mail address, when the
    installation asks for one, is confirmed. The words say why and from when."""
    if user.is_staff:
        return
    hours = settings.CARDROOM_PUBLIC_PLAY_MIN_AGE_H
    allowed_at = user.date_joined + timedelta(hours=hours)
    email = pending_email(user=user) if confirmation_required() else None
    now = timezone.now()
    if email is None and now >= allowed_at:
        return
    rule = (
        f"an account enters public ladders and challenges other authors' bots once it is "
        f"{hours} hours old with its e-mail address confirmed; until then it plays its own "
        "bots and the built-ins"
    )
    when = f"{allowed_at:%Y-%m-%d %H:%M} UTC"
    if email is not None:
        later = f"from {when}" if allowed_at > now else "at once"
        raise PublicPlayRefused(
            f"Confirm your e-mail address first (open the link sent to {email}): {rule}. "
            f"Once it is confirmed, yours may {later}.",
            reason="unconfirmed",
            allowed_at=max(allowed_at, now),
        )
    raise PublicPlayRefused(
        f"Your account is too new: {rule}. Yours may from {when} "
        f"(in {_duration((allowed_at - now).total_seconds())}).",
        reason="too-new",
        allowed_at=allowed_at,
    )
