"""The collusion watch in a public ladder: a flagged pair is kept apart at once, and
its organisers are told on their page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from bots.models import Bot
from tests.factories import logged_in
from tournaments import services
from tournaments.models import Match, TableExclusion
from tournaments.ratings.collusion_watch import WatchRow
from tournaments.services import collusion as watch_service

pytestmark = pytest.mark.django_db


def _ladder(organiser, *, public: bool = True):
    comp = services.competition_create(
        created_by=organiser,
        name="Ladder night",
        kind="ladder",
        variant="manni-basic",
        format="ladder",
        games_per_match=3,
        seed=7,
        is_public=public,
    )
    for i in range(6):
        bot = Bot.objects.create(name=f"greedy-{i}", builtin="greedy")
        services.entry_create(competition=comp, bot=bot)
    services.competition_start(competition=comp, send=None)
    return comp


def _tables(comp, round_number: int) -> list[set[int]]:
    matches = comp.matches.filter(round__number=round_number).prefetch_related("seats")
    return [{s.entry_id for s in m.seats.all()} for m in matches]


def _flag(monkeypatch, a: int, b: int) -> None:
    """The watch's statistics (tested in tests/tournaments/ratings) flag ``a`` and ``b``."""
    row = WatchRow(a, b, 9, 0.02, 1e-30, 1e-25, 1e-23, 1e-22, True)
    monkeypatch.setattr(
        watch_service, "collusion_watch_for_competition", lambda competition, **_: [row]
    )


def _play_batch(comp, round_number: int) -> None:
    for match in comp.matches.filter(round__number=round_number, status=Match.Status.PENDING):
        assert services.match_record(
            match=match, played=services.match_play(match=match), send=None
        )


def test_a_pair_the_watch_flags_in_a_public_ladder_is_not_seated_together_next_batch(
    organiser, monkeypatch
):
    comp = _ladder(organiser)
    a, b = sorted(_tables(comp, 1)[0])[:2]
    _flag(monkeypatch, a, b)

    _play_batch(comp, 1)

    assert not any({a, b} <= table for table in _tables(comp, 2))
    exclusion = TableExclusion.objects.get(competition=comp, by_watch=True)
    assert {exclusion.entry_id, exclusion.other_id} == {a, b}
    page = logged_in(organiser).get(reverse("organise:competition", args=[comp.pk]))
    text = page.content.decode()
    assert "Kept apart by the collusion watch" in text
    assert "after 9 shared tables" in text and "kept apart from batch 2 on" in text


def test_the_watch_leaves_a_private_ladder_to_its_organisers(organiser, monkeypatch):
    comp = _ladder(organiser, public=False)
    a, b = sorted(_tables(comp, 1)[0])[:2]
    _flag(monkeypatch, a, b)

    _play_batch(comp, 1)

    assert not TableExclusion.objects.filter(competition=comp).exists()
