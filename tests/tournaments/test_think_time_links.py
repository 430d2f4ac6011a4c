"""Think times as evidence in a public ladder: two accounts whose bots share a timing
beacon are linked from the ladder's batches and kept apart from then on, and the
collusion watch reads the pair's think times; honest bots of other accounts, whose
think times follow no pattern, are linked with nobody.

The matches are recorded, counted off the hot path and read back as a real ladder's
are; only the programs play in-process (``tournaments.services.play._players``): the
colluder's copies (tests/bots/hostile/colluder.py) where a sandbox would run their
uploads, and honest bots that think a random time each decision.
"""

from __future__ import annotations

import random

import pytest

from bench.timing import Thinker
from bots.models import AccountLink
from bots.referee import InProcessPlayer
from tests.bots.hostile.colluder import Colluder
from tests.factories import make_bot, make_user
from tournaments import selectors, services
from tournaments.models import Match
from tournaments.services import play

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

#: Batches played: each entry plays a match a batch, three rotations of two games each,
#: so about twenty processes a bot by the end (the link needs both sides' votes).
BATCHES = 8


def _programs(monkeypatch) -> None:
    """Seat each entry's program in-process: ``sybil-*`` bots are the colluder's copies,
    ``honest-*`` bots think a random time (0 to 2 ms) each decision."""

    def players(match, seed, claimed):
        seated, versions = [], []
        for seat in match.seats.select_related("entry__bot").order_by("seat"):
            bot = seat.entry.bot
            rng = random.Random(f"{seed}:{seat.seat}")
            if bot.name.startswith("sybil"):
                program = Colluder(rng.randrange(2**31))
            else:
                program = Thinker(1.0, rng.randrange(2**31))
            seated.append(InProcessPlayer(program, name=str(bot)))
            versions.append(bot.versions.get().pk)
        return seated, versions

    monkeypatch.setattr(play, "_players", players)


def _ladder(organiser):
    comp = services.competition_create(
        created_by=organiser,
        name="Evening ladder",
        kind="ladder",
        variant="manni-basic",
        format="ladder",
        games_per_match=6,
        seed=11,
        is_public=True,
    )
    for name in ("alice", "bob", "carol", "dave", "erin", "frank"):
        kind = "sybil" if name in ("alice", "bob") else "honest"
        bot = make_bot(make_user(name), f"{kind}-{name}")
        services.entry_create(competition=comp, bot=bot)
    services.competition_start(competition=comp, send=None)
    return comp


def _play_batch(comp, number: int) -> list[set[str]]:
    tables = []
    for match in comp.matches.filter(round__number=number, status=Match.Status.PENDING):
        tables.append({s.entry.bot.owner.username for s in match.seats.select_related("entry")})
        assert services.match_record(
            match=match, played=services.match_play(match=match), send=None
        )
    return tables


def test_two_accounts_whose_bots_share_a_beacon_are_linked_and_kept_apart(organiser, monkeypatch):
    _programs(monkeypatch)
    comp = _ladder(organiser)
    linked_at = None
    for number in range(1, BATCHES + 1):
        tables = _play_batch(comp, number)
        if linked_at is not None:  # linked: never at one public table again
            assert not any({"alice", "bob"} <= table for table in tables), (number, tables)
        if linked_at is None and AccountLink.objects.exists():
            linked_at = number

    links = list(AccountLink.objects.select_related("user", "other"))
    assert [({k.user.username, k.other.username}, k.reason) for k in links] == [
        ({"alice", "bob"}, AccountLink.Reason.THINK_TIMES)
    ]
    assert linked_at is not None and linked_at < BATCHES  # in time to keep them apart
    assert "their think times share a pattern" in links[0].evidence
    assert "sybil-alice" in links[0].evidence and "sybil-bob" in links[0].evidence

    # The profiles the link came from: the copies' are patterned, the honest ones' not.
    profiles = selectors.think_profiles_for_competition(competition=comp)
    by_name = {e.bot.name: profiles.get(e.pk) for e in comp.entries.select_related("bot")}
    alike = selectors.think_alike_entries(competition=comp, profiles=profiles, p_max=1e-6)
    assert [{a.bot.name, b.bot.name} for a, b, _ in alike] == [{"sybil-alice", "sybil-bob"}]
    assert all(by_name[name] is not None for name in by_name)

    # The watch reads the same think times for the pair, where they shared tables.
    for row in selectors.collusion_watch_for_competition(competition=comp):
        pair = {comp.entries.get(pk=row.a).bot.name, comp.entries.get(pk=row.b).bot.name}
        if pair == {"sybil-alice", "sybil-bob"}:
            assert row.p_think < 1e-6
        else:
            assert row.p_think > 1e-3, (pair, row.p_think)
