"""Allowances: how much of the shared platform one user may take.

Each allowance has a default from the settings (``CARDROOM_ALLOWANCE_*``, checked at
start-up by ``config.settings``) that staff raise (or lower) for one user in the admin
(:class:`bots.models.UserAllowance`). Allowances "a day" count what was made since
midnight UTC and renew at the next midnight (games: those played, and those that work
still running may play, given back when it ends without them); the others count what
is open now and renew when something closes.

The services check them (one door: the API and the site ask the same service), under
a lock on the user's row so that concurrent requests of one user cannot all pass:
:func:`allowance_check` raises :class:`AllowanceExceeded`, a ``ValidationError`` that
the API answers with a 429 and the site shows as a form error, naming the allowance,
what is used and when it renews. Usage of bots, versions, upload bytes and stored bytes
is counted here; ``tournaments.selectors.allowance_use`` counts version tests, entries and
challenges.

Stored bytes (``stored_bytes``) are the sizes of every version the user keeps, until it is
deleted or pruned (``bots.pruning``). An account whose e-mail address is unconfirmed
(``bots.accounts.email_confirmed``: made by sign-up with confirmation off) has the smaller
``CARDROOM_ALLOWANCE_STORED_BYTES_UNCONFIRMED``, and all such accounts together at most
``CARDROOM_ALLOWANCE_UNCONFIRMED_STORED_BYTES_TOTAL`` (:func:`stored_bytes_check`): each
new account costs a person a mailbox or a share of one fixed total, never fresh disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import Sum
from django.utils import timezone

from bots.accounts import confirmed_or_raise, email_confirmed, unconfirmed_accounts
from bots.models import Bot, BotVersion, UserAllowance


@dataclass(frozen=True)
class Allowance:
    """One allowance: its name (as in the API and the admin), its setting, its words."""

    name: str
    setting: str
    label: str
    daily: bool
    #: How an allowance of things kept (not daily) frees up, in words.
    frees: str = "it frees up as your {label} close or are withdrawn"


def _allowance(name: str, label: str, *, daily: bool, frees: str = "") -> Allowance:
    setting = f"CARDROOM_ALLOWANCE_{name.upper()}"
    return Allowance(name, setting, label, daily, *([frees] if frees else []))


#: What frees stored bytes.
VERSIONS_GO = "it frees up as your versions are deleted or pruned"
#: What frees the bytes of full stderr logs.
LOGS_GO = "the oldest logs are dropped to make room for new ones"


#: Every allowance, by name; its setting is ``CARDROOM_ALLOWANCE_<NAME>``.
ALLOWANCES: dict[str, Allowance] = {
    allowance.name: allowance
    for allowance in (
        _allowance("bots", "bots", daily=False),
        _allowance("versions_per_day", "versions", daily=True),
        _allowance("upload_bytes_per_day", "upload bytes", daily=True),
        _allowance("version_test_games_per_day", "version-test games", daily=True),
        _allowance("open_version_tests", "open version tests", daily=False),
        _allowance("challenge_games_per_day", "challenge games", daily=True),
        _allowance("open_challenges", "open challenges", daily=False),
        _allowance("ladder_entries", "entries in open ladders", daily=False),
        _allowance("stored_bytes", "stored bytes", daily=False, frees=VERSIONS_GO),
        _allowance("worker_seconds_per_day", "seconds of the users' workers", daily=True),
        _allowance("stderr_log_bytes", "bytes of full stderr logs", daily=False, frees=LOGS_GO),
    )
}
#: The stored bytes of an account whose e-mail address is unconfirmed (when staff set no
#: value of its own).
STORED_BYTES_UNCONFIRMED = "CARDROOM_ALLOWANCE_STORED_BYTES_UNCONFIRMED"
#: Not one user's: every unconfirmed account's stored bytes together.
UNCONFIRMED_TOTAL = Allowance(
    "unconfirmed_stored_bytes",
    "CARDROOM_ALLOWANCE_UNCONFIRMED_STORED_BYTES_TOTAL",
    "stored bytes of all accounts with an unconfirmed e-mail address",
    daily=False,
    frees="it frees up as their versions are pruned; confirm your e-mail address to be "
    "counted on your own",
)


class AllowanceExceeded(ValidationError):
    """A request beyond one of the user's allowances (the API's 429, the site's form error).

    ``allowance`` (its name), ``limit``, ``used`` (before this request), ``asked`` (what this
    request would add) and ``renews_at`` (None for an allowance of open things: it renews
    when one of them closes) say which and when.
    """

    def __init__(
        self, *, allowance: Allowance, limit: int, used: int, asked: int, renews_at: datetime | None
    ) -> None:
        self.allowance, self.limit, self.used, self.asked = allowance, limit, used, asked
        self.renews_at = renews_at
        if renews_at is not None:
            when = f"it renews at {renews_at:%Y-%m-%d %H:%M} UTC"
        else:
            when = allowance.frees.format(label=allowance.label)
        more = "" if asked == 1 else f", this request needs {asked}"
        super().__init__(
            f"Allowance {allowance.name} reached: {used} of {limit} {allowance.label} used"
            f"{' today' if allowance.daily else ''}{more}; {when}.",
            code="allowance",
        )

    def as_data(self) -> dict:
        """The API's body beside ``detail``."""
        return {
            "allowance": self.allowance.name,
            "limit": self.limit,
            "used": self.used,
            "renews_at": self.renews_at.isoformat() if self.renews_at else None,
        }


def allowance_limit(*, user, name: str) -> int:
    """``user``'s ``name`` allowance: their override if staff set one, else the setting
    (for the stored bytes of an account with an unconfirmed address, its own setting)."""
    allowance = ALLOWANCES[name]
    override = (
        UserAllowance.objects.filter(user_id=user.pk, allowance=name)
        .values_list("value", flat=True)
        .first()
    )
    if override is not None:
        return override
    if name == "stored_bytes" and not email_confirmed(user=user):
        return getattr(settings, STORED_BYTES_UNCONFIRMED)
    return getattr(settings, allowance.setting)


def day_start(now: datetime | None = None) -> datetime:
    """Midnight UTC of today: allowances "a day" count from it."""
    now = now or timezone.now()
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def renews_at(name: str) -> datetime | None:
    """When a daily allowance renews (the next midnight UTC); None for the others."""
    return day_start() + timedelta(days=1) if ALLOWANCES[name].daily else None


def user_lock(*, user) -> None:
    """Lock ``user``'s row until the transaction ends, so that one user's concurrent
    requests are checked one after another (call inside ``transaction.atomic``)."""
    model = get_user_model()
    model.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True).first()


def allowance_check(*, user, name: str, used: int, asked: int = 1) -> None:
    """Raise :class:`AllowanceExceeded` if ``used + asked`` exceeds ``user``'s ``name``;
    ``bots.accounts.AccountUnconfirmed`` if ``user`` has yet to confirm an address (no
    allowance at all until then)."""
    confirmed_or_raise(user=user)
    limit = allowance_limit(user=user, name=name)
    if used + asked > limit:
        raise AllowanceExceeded(
            allowance=ALLOWANCES[name],
            limit=limit,
            used=used,
            asked=asked,
            renews_at=renews_at(name),
        )


# --- usage of bots, versions and upload bytes -----------------------------------------------


def bots_used(*, user) -> int:
    return Bot.objects.filter(owner_id=user.pk).count()


def versions_used_today(*, user) -> int:
    return BotVersion.objects.filter(bot__owner_id=user.pk, created_at__gte=day_start()).count()


def upload_bytes_used_today(*, user) -> int:
    today = BotVersion.objects.filter(bot__owner_id=user.pk, created_at__gte=day_start())
    return today.aggregate(total=Sum("size"))["total"] or 0


def stored_bytes_used(*, user) -> int:
    """The sizes of every version of ``user``'s bots that is kept."""
    kept = BotVersion.objects.filter(bot__owner_id=user.pk)
    return kept.aggregate(total=Sum("size"))["total"] or 0


def unconfirmed_stored_bytes() -> int:
    """The sizes of every version kept by accounts whose address is unconfirmed."""
    owners = unconfirmed_accounts().values("user_id")
    kept = BotVersion.objects.filter(bot__owner_id__in=owners)
    return kept.aggregate(total=Sum("size"))["total"] or 0


#: The key of the advisory lock that checks of the unconfirmed accounts' total take.
UNCONFIRMED_TOTAL_LOCK = 0x0CA4D5700B


def stored_bytes_check(*, user, asked: int) -> None:
    """Raise :class:`AllowanceExceeded` if ``asked`` more bytes would take ``user`` past
    their ``stored_bytes``, or, for an account with an unconfirmed address, all such
    accounts together past ``CARDROOM_ALLOWANCE_UNCONFIRMED_STORED_BYTES_TOTAL``. Inside
    a transaction on PostgreSQL the total is checked under an advisory lock (held to the
    end of the transaction), so concurrent uploads of different accounts cannot all pass."""
    allowance_check(user=user, name="stored_bytes", used=stored_bytes_used(user=user), asked=asked)
    if email_confirmed(user=user):
        return
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [UNCONFIRMED_TOTAL_LOCK])
    limit = getattr(settings, UNCONFIRMED_TOTAL.setting)
    used = unconfirmed_stored_bytes()
    if used + asked > limit:
        raise AllowanceExceeded(
            allowance=UNCONFIRMED_TOTAL, limit=limit, used=used, asked=asked, renews_at=None
        )


def unconfirmed_total(*, user) -> dict[str, int] | None:
    """For an account whose address is unconfirmed, what all such accounts store together
    (``used``) and may (``limit``); None for a confirmed one."""
    if email_confirmed(user=user):
        return None
    limit = getattr(settings, UNCONFIRMED_TOTAL.setting)
    return {"used": unconfirmed_stored_bytes(), "limit": limit}


def worker_seconds_used_today(*, user) -> int:
    """The seconds ``user``'s validations, challenges, quick games and version tests held
    a slot of the users' lane today (accounts linked as one person together), the work
    in play counted as it plays (``config.fairshare.day_seconds``)."""
    from bots.links import linked_owner
    from config import fairshare

    return int(fairshare.day_seconds(fairshare.owner(linked_owner(user.pk))))


def worker_seconds_check(*, user) -> None:
    """Raise :class:`AllowanceExceeded` once ``user``'s work used its seconds of the
    users' lane today (``worker_seconds_per_day``): no new validation, challenge or
    version test until midnight UTC; work already running finishes within its budget."""
    allowance_check(
        user=user, name="worker_seconds_per_day", used=worker_seconds_used_today(user=user)
    )


def bot_usage(*, user) -> dict[str, int]:
    """What ``user`` uses of the allowances counted here."""
    return {
        "bots": bots_used(user=user),
        "versions_per_day": versions_used_today(user=user),
        "upload_bytes_per_day": upload_bytes_used_today(user=user),
        "stored_bytes": stored_bytes_used(user=user),
        "worker_seconds_per_day": worker_seconds_used_today(user=user),
    }
