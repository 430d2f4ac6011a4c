"""Accounts that cost a person something: sign-up with a confirmed e-mail address.

With ``CARDROOM_SIGNUP_CONFIRMATION = "email"`` an account made by sign-up (the site's
form or ``POST /api/auth/register/``) is sent a link, signed and valid for
``CARDROOM_SIGNUP_CONFIRM_DAYS``; until it is opened the account has no allowance at
all (:func:`confirmed_or_raise`, called by ``bots.allowances.allowance_check``: no bot,
upload, entry, version test or challenge). So every working account is a mailbox
someone opened, and the allowances count per confirmed account. Accounts made before,
by staff, or with ``none`` count as confirmed.

One door for both: :func:`account_register`, :func:`account_confirm` and
:func:`confirmation_send` are what the site and the API call.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from bots.models import AccountConfirmation

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
    """The address ``user`` has still to confirm, or None (a confirmed account)."""
    if not getattr(user, "pk", None):
        return None
    return (
        AccountConfirmation.objects.filter(user_id=user.pk, confirmed_at__isnull=True)
        .values_list("email", flat=True)
        .first()
    )


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
    (``bots.api.accounts.RegistrationSerializer``); the site's sign-up form asks here."""
    if not re.match(USERNAME_PATTERN, username):
        return {"username": [USERNAME_INVALID]}
    if username_taken(username):
        return {"username": [USERNAME_TAKEN]}
    problems = password_problems(username=username, email=email, password=password)
    return {"password": problems} if problems else {}


def account_register(*, username: str, email: str, password: str, link_for: Callable[[str], str]):
    """Create an account (fields checked by the caller); with confirmation on, an
    address is required and the link is mailed."""
    if confirmation_required() and not email:
        raise ValidationError(
            {"email": ["An e-mail address is required: a link to confirm it is sent there."]}
        )
    with transaction.atomic():
        user = get_user_model().objects.create_user(
            username=username, email=email, password=password
        )
        if confirmation_required():
            AccountConfirmation.objects.create(user=user, email=email)
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
