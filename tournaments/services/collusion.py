"""The collusion watch at work: in a public ladder, a pair the watch flags is kept
apart from the next batch on, and its organisers find it on their page
(docs/fair-play.md, "The watch")."""

from __future__ import annotations

import logging

from django.db import transaction

from bots import links
from bots.models import AccountLink
from tournaments import pairing
from tournaments.models import Competition, MatchSeat, TableExclusion
from tournaments.ratings import think_times
from tournaments.selectors import (
    collusion_watch_for_competition,
    think_alike_entries,
    think_profiles_for_competition,
)

log = logging.getLogger(__name__)

#: Two bots whose think times share a pattern at this p or below link their owners'
#: accounts (``think_time_links``): every pair of a ladder's entries may be compared, so
#: far below the watch's alpha; two copies with the colluder's beacon reach it after
#: about twenty rotations each (tests/tournaments/test_think_time_links.py).
THINK_LINK_P = 1e-6


def watched(competition: Competition) -> bool:
    """Whether the watch runs in ``competition``: a public ladder whose tables have a
    third side (not fixed teams)."""
    return (
        competition.format == Competition.Format.LADDER
        and competition.is_public
        and not competition.fixed_teams
    )


def collusion_watch_run(*, competition: Competition, round_number: int) -> list[TableExclusion]:
    """Look at the pairs that shared a table in batch ``round_number`` of a public ladder
    (each is looked at once a batch, whatever its tables in it) and keep every pair the
    watch flags apart from the next pairing on, with a note for the organisers; the new
    exclusions. The accounts of two entries whose think times share a pattern are
    linked first (:func:`think_time_links`). A pair the field cannot keep apart
    (``pairing.fair_play_problem``) is left as it was and logged. Safe to run twice (a
    pair already kept apart is skipped). Called in the pairing's transaction, before
    the next batch is paired."""
    if not watched(competition) or round_number < 1:
        return []
    seated = _pairs_seated(competition, round_number)
    if not seated:
        return []
    profiles = think_profiles_for_competition(competition=competition)
    think_time_links(competition=competition, profiles=profiles)
    kept = {frozenset(p) for p in competition.table_exclusions.values_list("entry_id", "other_id")}
    made = []
    for row in collusion_watch_for_competition(competition=competition, profiles=profiles):
        pair = frozenset((row.a, row.b))
        if not row.flagged or pair not in seated or pair in kept:
            continue
        a, b = sorted(pair)
        note = (
            f"Flagged by the collusion watch after {row.tables_together} shared tables "
            f"(soft play p {row.p_soft:.2g}, rank effect p {row.p_rank:.2g}, think times "
            f"p {row.p_think:.2g}, combined "
            f"p {row.p:.2g}, {row.p_adjusted:.2g} corrected for every look and pair): "
            f"kept apart from batch {round_number + 1} on."
        )
        with transaction.atomic():  # a savepoint: undone if the field cannot do it
            exclusion = TableExclusion.objects.create(
                competition=competition, entry_id=a, other_id=b, by_watch=True, note=note
            )
            problem = pairing.fair_play_problem(competition)
            if problem:
                transaction.set_rollback(True)
                log.warning("the watch flagged %s in %s: %s", pair, competition.pk, problem)
                continue
        made.append(exclusion)
    return made


def think_time_links(
    *, competition: Competition, profiles: dict[int, think_times.Profile]
) -> list[AccountLink]:
    """Link the accounts of every two entries of ``competition`` whose bots' think times
    share a pattern at :data:`THINK_LINK_P` or below (``selectors.think_alike_entries``),
    with the comparison as the evidence; the new links. Linked accounts never share a
    public table again, here or in any public ladder (``bots.links``), until staff
    dismiss the link; a dismissed link is not made again."""
    made = []
    for a, b, result in think_alike_entries(
        competition=competition, profiles=profiles, p_max=THINK_LINK_P
    ):
        evidence = (
            f"{a.bot} and {b.bot} in {competition.name}: their think times share a "
            f"pattern ({think_times.evidence(result)})"
        )
        link = links.account_link(
            user_id=a.bot.owner_id,
            other_id=b.bot.owner_id,
            reason=AccountLink.Reason.THINK_TIMES,
            evidence=evidence,
        )
        if link is not None:
            log.info(
                "accounts %s and %s linked by their think times",
                *sorted((a.bot.owner_id, b.bot.owner_id)),
            )
            made.append(link)
    return made


def _pairs_seated(competition: Competition, round_number: int) -> set[frozenset]:
    rows = MatchSeat.objects.filter(
        match__competition=competition, match__round__number=round_number
    ).values_list("match_id", "entry_id")
    tables: dict[int, list[int]] = {}
    for match_id, entry_id in rows:
        tables.setdefault(match_id, []).append(entry_id)
    return {
        frozenset((a, b)) for entries in tables.values() for a in entries for b in entries if a != b
    }
