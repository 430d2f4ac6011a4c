"""Who a unit of work's worker seconds are charged to, with linked accounts as one; a
match's tenants (:func:`match_tenants`, :func:`tenants_of`).

``config.fairshare`` shares worker seconds between tenants: ``owner:<id>`` and
``competition:<id>``. One person with two accounts (linked by staff, or automatically
from a sign-up address or near-identical uploads: ``bots.links``) is one owner here,
the tenant of the smallest id of the accounts linked (``tournaments.pairing.owner_groups``),
so that a second account does not double a person's share of the fleet or of the
slots an owner may hold. The groups are read at most once per :data:`FRESH_S` per
process: a link made now weighs within seconds.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from config import fairshare
from tournaments.models import Competition, Match
from tournaments.services.results import ClaimedSeat

#: Seconds a process keeps the groups it read.
FRESH_S = 30.0
_groups: dict[int, tuple[float, int]] = {}  # owner id -> (read at, group's id)


def owner_groups(owner_ids: Iterable[int]) -> dict[int, int]:
    """Each of ``owner_ids`` mapped to the id its linked accounts share (itself if none)."""
    from tournaments.pairing import owner_groups as read_groups

    now = time.monotonic()
    wanted = set(owner_ids)
    stale = {o for o in wanted if now - _groups.get(o, (-1e9, 0))[0] > FRESH_S}
    if stale:
        for owner, group in read_groups(stale, automatic=True).items():
            _groups[owner] = (now, group)
    return {o: _groups[o][1] for o in wanted}


def owner_tenants(owner_ids: Iterable[int | None]) -> list[str | None]:
    """The owner tenants of ``owner_ids``, linked accounts as one (None: a house bot's)."""
    ids = list(owner_ids)
    groups = owner_groups(o for o in ids if o is not None)
    return [None if o is None else fairshare.owner(groups[o]) for o in ids]


def forget() -> None:
    """Read the groups again at the next look (tests)."""
    _groups.clear()


def match_tenants(match: Match, seats: list[ClaimedSeat]) -> list[str | None]:
    """Who a match's worker seconds are charged to (``config.fairshare``): its competition
    and the owner of each bot at its table (house bots have none; linked accounts as one:
    ``tournaments.worker.tenants``), as the claim read them."""
    owners = {s.owner_id for s in seats}
    return [fairshare.competition(match.competition_id), *owner_tenants(owners)]


def _day_of(match: Match) -> str | None:
    """Whose worker seconds of the day a match counts against: a challenge's, the
    challenger's (``worker_seconds_per_day``: the users' lane); no one's otherwise."""
    comp = match.competition
    if comp.kind != Competition.Kind.CHALLENGE or comp.created_by_id is None:
        return None
    return owner_tenants([comp.created_by_id])[0]


def tenants_of(match_ids: list[int]) -> dict[int, list[str | None]]:
    """The tenants of each of ``match_ids`` (:func:`match_tenants`), read before a claim."""
    rows = Match.objects.filter(pk__in=match_ids).values_list(
        "pk", "competition_id", "seats__entry__bot__owner_id"
    )
    rows = list(rows)
    owners = dict(zip((r[2] for r in rows), owner_tenants(r[2] for r in rows), strict=True))
    out: dict[int, list[str | None]] = {}
    for pk, competition_id, owner_id in rows:
        out.setdefault(pk, [fairshare.competition(competition_id)]).append(owners[owner_id])
    return out
