"""Allowances: how much of the shared platform one user may take.

Each allowance has a default from the settings (``CARDROOM_ALLOWANCE_*``, checked at
start-up by ``config.settings``) that staff raise (or lower) for one user in the admin
(:class:`bots.models.UserAllowance`). Allowances "a day" count what was made since
midnight UTC and renew at the next midnight; the others count what is open now and
renew when something closes.

The services check them (one door: the API and the site ask the same service), under
a lock on the user's row so that concurrent requests of one user cannot all pass:
:func:`allowance_check` raises :class:`AllowanceExceeded`, a ``ValidationError`` that
the API answers with a 429 and the site shows as a form error, naming the allowance,
what is used and when it renews. Usage of bots, versions and upload bytes is counted
here; ``tournaments.allowances`` counts version tests, entries and challenges.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Sum
from django.utils import timezone

from bots.accounts import confirmed_or_raise
from bots.models import Bot, BotVersion, UserAllowance


@dataclass(frozen=True)
class Allowance:
    """One allowance: its name (as in the API and the admin), its setting, its words."""

    name: str
    setting: str
    label: str
    daily: bool


def _allowance(name: str, label: str, *, daily: bool) -> Allowance:
    return Allowance(name, f"CARDROOM_ALLOWANCE_{name.upper()}", label, daily)


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
    )
}


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
            when = f"it frees up as your {allowance.label} close or are withdrawn"
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
    """``user``'s ``name`` allowance: their override if staff set one, else the setting."""
    allowance = ALLOWANCES[name]
    override = (
        UserAllowance.objects.filter(user_id=user.pk, allowance=name)
        .values_list("value", flat=True)
        .first()
    )
    return override if override is not None else getattr(settings, allowance.setting)


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


def bot_usage(*, user) -> dict[str, int]:
    """What ``user`` uses of the allowances counted here."""
    return {
        "bots": bots_used(user=user),
        "versions_per_day": versions_used_today(user=user),
        "upload_bytes_per_day": upload_bytes_used_today(user=user),
    }
