"""Entries: entering a bot (or a team), withdrawing, removing, disqualifying, and
keeping two entries from sharing a table."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max, Q

from bots import accounts
from bots.models import Bot, BotVersion
from bots.selectors import CANNOT_PLAY, bot_will_play, play_outlook, version_will_play
from tournaments import pairing
from tournaments.live import events
from tournaments.models import Competition, Entry, TableExclusion
from tournaments.permissions import can_manage, require_manager
from tournaments.selectors import allowance_use as allowances
from tournaments.services.notify import notify_on_commit

Format = Competition.Format


@transaction.atomic
def entry_create(
    *,
    competition: Competition,
    bot: Bot,
    by=None,
    pinned_version: BotVersion | None = None,
    partner: Bot | None = None,
) -> Entry:
    """Enter ``bot``: only its owner (or staff), only while the competition is a draft,
    or while it is a ladder not yet ended (its next batches pair the new entry too).

    In a competition of fixed teams the entry is a team: ``bot`` and its ``partner``
    (by default ``bot`` itself, which then plays both seats of its side); any other
    competition refuses a ``partner``. No bot plays in two entries. A ``partner`` of
    another member is invited: the entry waits (``partner_pending``) until its owner
    accepts (:func:`entry_partner_accept`) or declines it (:func:`entry_partner_decline`),
    and the competition does not start with a team still waiting.

    An entry ``by`` a user into an open ladder they do not manage counts against the
    owner's ``ladder_entries`` allowance (``tournaments.selectors.allowance_use``); into a
    public one,
    it waits until the account may play in public
    (``bots.accounts.public_play_check``: ``PublicPlayRefused`` says from when).

    A shared built-in bot belongs to nobody: only the competition's organisers (and
    staff) enter one, so nobody puts a strong built-in into a competition they do not run.
    Raises ``PermissionDenied`` saying which of the two was refused."""
    invited = partner is not None and partner_needs_consent(partner, by)
    for member in (bot, None if invited else partner):
        if member is not None:
            _require_may_enter(competition, member, by)
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    if competition.status not in entries_open_statuses(competition.format):
        raise ValidationError("entries close when the competition starts (ladders: when it ends)")
    if pinned_version is not None and pinned_version.bot_id != bot.pk:
        raise ValidationError({"pinned_version": "that version belongs to another bot"})
    if partner is not None and not competition.fixed_teams:
        raise ValidationError(
            {
                "partner": f"{competition.name} does not play fixed teams: enter "
                f"{partner} on its own"
            }
        )
    if competition.fixed_teams and partner is None:
        partner = bot  # one bot at both seats of its side
    members = {"bot": (bot, pinned_version)}
    if partner is not None and partner != bot:
        members["partner"] = (partner, None)  # it plays as its owner pins it
    for field, (member, pinned) in members.items():
        taken = competition.entries.filter(Q(bot=member) | Q(partner=member)).first()
        if taken is not None:
            where = "" if taken.partner_id is None else f" (in the team {taken.name})"
            raise ValidationError({field: f"{member} is already entered{where}"})
        _require_version_to_come(member, pinned, field)
        _require_variant(member, pinned, competition.variant, field)
        _require_outlook(member, pinned, competition.variant, field)
    if by is not None and bot.owner_id is not None:  # a user's entry: their allowance
        manages = can_manage(competition=competition, user=by)
        if competition.format == Format.LADDER and competition.is_public and not manages:
            accounts.public_play_check(user=by)  # old enough, and confirmed, to sit with others
        allowances.ladder_entry_allowed(user=bot.owner, competition=competition, manages=manages)
    order = competition.entries.count()
    # A later season's divisions come from the last one; a newcomer starts at the bottom.
    bottom = competition.entries.aggregate(bottom=Max("division"))["bottom"] or 0
    return Entry.objects.create(
        competition=competition,
        bot=bot,
        partner=partner,
        partner_pending=invited,
        pinned_version=pinned_version,
        seed_order=order,
        division=bottom if competition.previous_season_id else 0,
    )


def partner_needs_consent(partner: Bot, by) -> bool:
    """Whether ``partner`` joins a team ``by`` enters only once its owner accepts: it
    belongs to another member (a built-in bot belongs to nobody; staff, and a call
    without a user, need nobody's consent)."""
    return (
        by is not None
        and not by.is_staff
        and partner.owner_id is not None
        and partner.owner_id != by.pk
    )


@transaction.atomic
def entry_partner_accept(*, entry: Entry, by) -> Entry:
    """The partner's owner accepts the invitation of ``entry``: the team plays from the
    start. Only that owner may; once only; while the competition is a draft. Raises
    ``PermissionDenied`` for anyone else, ``ValidationError`` otherwise."""
    entry = _invitation(entry, by)
    entry.partner_pending = False
    entry.save(update_fields=["partner_pending"])
    return entry


@transaction.atomic
def entry_partner_decline(*, entry: Entry, by) -> Entry:
    """The partner's owner declines the invitation of ``entry``: the team is not entered
    (the entry is deleted). Same rules as :func:`entry_partner_accept`."""
    entry = _invitation(entry, by)
    entry.delete()
    return entry


def _invitation(entry: Entry, by) -> Entry:
    """``entry``, locked, if ``by`` owns its partner and it still waits for an answer."""
    Competition.objects.select_for_update().get(pk=entry.competition_id)
    locked = (
        Entry.objects.select_for_update(of=("self",))
        .select_related("competition", "bot__owner", "partner__owner")
        .filter(pk=entry.pk)
        .first()
    )
    if locked is None:  # declined (or removed) meanwhile
        raise ValidationError(f"{entry.name} is no longer entered: nothing to answer")
    entry, partner = locked, locked.partner
    if partner is None or by is None or partner.owner_id != by.pk:
        raise PermissionDenied(
            f"only the owner of {partner or 'its partner'} may answer the invitation of "
            f"{entry.name}"
        )
    if not entry.partner_pending:
        raise ValidationError(f"{entry.name}: the invitation was already accepted")
    if entry.competition.status != Competition.Status.DRAFT:
        raise ValidationError(
            f"{entry.competition.name} is {entry.competition.status}: invitations are "
            "answered before the start"
        )
    return entry


def _require_may_enter(competition: Competition, bot: Bot, by) -> None:
    """``PermissionDenied`` unless ``by`` may enter ``bot`` (or the service is called
    without a user): its owner, staff, or for a built-in bot the organisers."""
    if by is not None and not (by.is_staff or bot.owner_id == by.pk):
        if not bot.builtin:
            raise PermissionDenied("you may only enter your own bots")
        if not can_manage(competition=competition, user=by):
            raise PermissionDenied(
                f"only the organisers of {competition.name} (or staff) may enter "
                f"the built-in bot {bot.name}"
            )


def _require_version_to_come(bot: Bot, pinned: BotVersion | None, field: str = "bot") -> None:
    """Refuse an uploaded bot that has nothing to play and nothing on the way: no version
    ready, pending or being validated (the ``pinned`` one, if given)."""
    if bot.builtin:
        return
    rejected = BotVersion.Status.REJECTED
    if pinned is not None:
        if pinned.status == rejected:
            raise ValidationError({"pinned_version": f"version {pinned.number} was rejected"})
        return
    rejected_numbers = list(
        bot.versions.filter(status=rejected).order_by("number").values_list("number", flat=True)
    )
    if not bot.versions.exclude(status=rejected).exists():
        failed = ", ".join(f"v{n}" for n in rejected_numbers)
        why = (
            f" ({failed} failed validation: a rejected version plays no variant, not even "
            "one it passed)"
            if failed
            else ""
        )
        raise ValidationError(
            {field: f"{bot} has no version to play{why}: upload one that passes validation"}
        )


def _require_variant(bot: Bot, pinned: BotVersion | None, variant: str, field: str = "bot") -> None:
    """Refuse a bot that cannot play ``variant``: it (the ``pinned`` version, if given)
    neither passed that variant's validation nor is still to be validated in it."""
    if pinned is not None and not version_will_play(version=pinned, variant=variant):
        raise ValidationError(
            {
                "pinned_version": f"version {pinned.number} of {bot} has not passed validation "
                f"in {variant}: ask for it to be validated in {variant} first"
            }
        )
    if pinned is None and not bot_will_play(bot=bot, variant=variant):
        raise ValidationError(
            {
                field: f"{bot} has not passed validation in {variant}: declare {variant} "
                f"and upload a version, or ask for one to be validated in {variant}"
            }
        )


def _require_outlook(bot: Bot, pinned: BotVersion | None, variant: str, field: str) -> None:
    """Refuse a bot none of whose versions will ever play ``variant`` as it stands: the
    one its owner pinned cannot (``bots.selectors.play_outlook`` says why)."""
    outlook = play_outlook(bot=bot, variant=variant, pinned=pinned)
    if outlook.state == CANNOT_PLAY:
        raise ValidationError({field: f"{bot} cannot play {variant}: {outlook.words}"})


def entries_open_statuses(format: str) -> tuple[str, ...]:
    """The statuses in which a competition of ``format`` takes entries."""
    if format == Format.LADDER:
        return (Competition.Status.DRAFT, Competition.Status.RUNNING, Competition.Status.PAUSED)
    return (Competition.Status.DRAFT,)


def _require_withdrawer(entry: Entry, by) -> None:
    partner_owner = entry.partner.owner_id if entry.partner_id is not None else None
    if by is not None and not (
        by.is_staff
        or entry.bot.owner_id == by.pk
        or (partner_owner is not None and partner_owner == by.pk)
        or can_manage(competition=entry.competition, user=by)
    ):
        raise PermissionDenied("only the bot's owner or the organisers may withdraw it")


def entry_withdraw(*, entry: Entry, by=None) -> Entry:
    _require_withdrawer(entry, by)
    if entry.competition.status == Competition.Status.DRAFT:
        entry.delete()
    else:
        entry.withdrawn = True
        entry.save(update_fields=["withdrawn"])
    return entry


@transaction.atomic
def entry_remove(*, entry: Entry, by=None) -> Entry:
    """Take an entry out of a draft (``entry_withdraw``, which deletes it there), or out
    of a ladder in play (it is withdrawn: paired no more, its results stay).

    Refused once any other competition has started: its schedule, matches and
    standings count the entry, which stays (the API's ``withdraw`` is this same door)."""
    _require_withdrawer(entry, by)
    competition = Competition.objects.select_for_update().get(pk=entry.competition_id)
    in_play = (Competition.Status.RUNNING, Competition.Status.PAUSED)
    if competition.format == Format.LADDER and competition.status in in_play:
        entry.competition = competition
        return entry_withdraw(entry=entry, by=by)
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError(
            f"{entry.bot} cannot be removed: {competition.name} has started (it is "
            f"{competition.status}); entries are removed only before the start"
        )
    entry.competition = competition
    return entry_withdraw(entry=entry, by=by)


@transaction.atomic
def table_exclusion_create(*, competition: Competition, entry: Entry, other: Entry, by=None):
    """Keep two entries from sharing a table from the next pairing on (the organisers'
    answer to a flag of the collusion report, docs/fair-play.md). Idempotent.

    Raises ``ValidationError`` for an entry of another competition, an entry paired
    with itself, or a pair the remaining field cannot keep apart.
    """
    require_manager(competition, by)
    if entry.competition_id != competition.pk or other.competition_id != competition.pk:
        raise ValidationError({"entries": "both entries must be of this competition"})
    if entry.pk == other.pk:
        raise ValidationError({"entries": "an entry always shares its own table"})
    if competition.status in (Competition.Status.FINISHED, Competition.Status.CANCELLED):
        raise ValidationError(f"the competition is {competition.status}")
    a, b = sorted((entry, other), key=lambda e: e.pk)
    exclusion, _ = TableExclusion.objects.get_or_create(competition=competition, entry=a, other=b)
    problem = pairing.fair_play_problem(competition)
    if problem:
        raise ValidationError(f"cannot keep them apart: {problem}")
    return exclusion


@transaction.atomic
def entry_disqualify(*, entry: Entry, by=None) -> Entry:
    """Disqualify an entry (organisers and staff): it plays no more and the standings
    say so; its results so far stay, as its opponents earned them."""
    competition = Competition.objects.select_for_update().get(pk=entry.competition_id)
    require_manager(competition, by)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    entry.withdrawn = True
    entry.disqualified = True
    entry.save(update_fields=["withdrawn", "disqualified"])
    notify_on_commit(competition.pk, events.STANDINGS_UPDATED)
    return entry
