"""Fair play through the API and the organisers' site: the waiver, the start refusal,
the collusion report, keeping a pair apart and disqualifying an entry."""

from __future__ import annotations

import random

import pytest
from django.test import Client

from bots.models import Bot
from bots.referee.match import schedule
from tests.api.conftest import client_for
from tests.factories import make_competition, make_user
from tournaments import services
from tournaments.models import Competition, GameRecord, Match, MatchSeat, Round

pytestmark = pytest.mark.django_db


def _entries(competition, owner, names):
    bots = [Bot.objects.create(name=n, builtin="greedy", owner=owner) for n in names]
    return [services.entry_create(competition=competition, bot=b) for b in bots]


def _played(competition, entries, *, tables: int, colluders=(), boost=0.2, seed=3):
    """Finished 3-seat matches drawn at random from ``entries``; the ``colluders`` take
    ``boost`` more of their games from the third seat when they share a table, and each
    game's soft-play tally has every seat with 4 chances against each other seat, of
    which a colluder lets its partner's go 3 times (and nobody else's ever)."""
    rng = random.Random(seed)
    rotation = schedule(competition.games_per_match, 3, competition.duplicate)
    round_ = Round.objects.create(competition=competition, number=1)
    for t in range(tables):
        seated = rng.sample(entries, 3)
        points = [0.0] * 3
        together = all(c in seated for c in colluders)
        for _ in range(competition.games_per_match):
            for i in range(3):
                for j in range(i + 1, 3):
                    p = 0.5
                    if together and seated[i] in colluders and seated[j] not in colluders:
                        p += boost
                    if together and seated[j] in colluders and seated[i] not in colluders:
                        p -= boost
                    points[i if rng.random() < p else j] += 1
        match = Match.objects.create(
            competition=competition, round=round_, table=t, seed=t, status=Match.Status.DONE
        )
        for s, (entry, pts) in enumerate(zip(seated, points, strict=True)):
            rank = 1 + sum(1 for other in points if other > pts)
            MatchSeat.objects.create(match=match, seat=s, entry=entry, points=pts, rank=rank)
        for index, (_, players) in enumerate(rotation):  # players[seat]: the match player
            at = [seated[p] for p in players]
            tally = [
                [giver, taker, 4, 3 if together and {at[giver], at[taker]} <= set(colluders) else 0]
                for giver in range(3)
                for taker in range(3)
                if giver != taker
            ]
            GameRecord.objects.create(
                match=match, index=index, scores=[0] * 3, ranking=[1] * 3, data=b"", chances=tally
            )


@pytest.fixture
def waived(organiser):
    competition = make_competition(
        organiser,
        kind="ladder",
        format="ladder",
        is_public=False,
        same_owner_tables=True,
        games=6,
    )
    ann = make_user("ann")
    colluders = _entries(competition, ann, ["copy-1", "copy-2"])
    others = _entries(competition, None, [f"greedy-{i}" for i in range(4)])
    competition.status = Competition.Status.RUNNING
    competition.save()
    _played(competition, colluders + others, tables=300, colluders=colluders)
    return competition, colluders, others


def test_the_report_flags_the_colluding_pair_under_a_waiver(as_organiser, waived):
    competition, (c1, c2), _ = waived
    response = as_organiser.get(f"/api/competitions/{competition.pk}/collusion/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["same_owner_tables"] is True and body["tables"] == 300
    top = body["pairs"][0]
    assert {top["a"]["entry"], top["b"]["entry"]} == {c1.pk, c2.pk}
    assert top["flagged"] and top["p_adjusted"] <= 0.01 and top["effect"] > 0
    assert body["flagged"] == 1


def test_the_report_shows_the_tricks_each_of_a_pair_let_the_other_take(
    as_organiser, organiser, waived
):
    competition, (c1, c2), (o1, *_) = waived
    pairs = as_organiser.get(f"/api/competitions/{competition.pk}/collusion/").json()["pairs"]

    top = pairs[0]
    for direction in ("a_to_b", "b_to_a"):
        signal = top["soft_play"][direction]
        assert signal["rate"] == 0.75 and signal["rate_others"] == 0.0, signal
        assert signal["chances"] == 4 * 6 * top["tables_together"]  # 4 a game, 6 games
        assert signal["p_value"] < 1e-9
    honest = next(p for p in pairs if {p["a"]["entry"], p["b"]["entry"]} == {c1.pk, o1.pk})
    assert honest["soft_play"]["a_to_b"]["rate"] == honest["soft_play"]["b_to_a"]["rate"]
    assert honest["soft_play"]["a_to_b"]["p_value"] > 0.5

    site = Client()
    site.force_login(organiser)
    page = site.get(f"/organise/{competition.pk}/collusion/").content.decode()
    assert "let 75% of" in page


def test_only_organisers_and_staff_see_the_report(waived, as_staff, organiser):
    competition, *_ = waived
    outsider = client_for(make_user("eve"))
    assert outsider.get(f"/api/competitions/{competition.pk}/collusion/").status_code == 404
    competition.is_public, competition.same_owner_tables = True, False
    competition.save()
    assert outsider.get(f"/api/competitions/{competition.pk}/collusion/").status_code == 403
    assert as_staff.get(f"/api/competitions/{competition.pk}/collusion/").status_code == 200


def test_the_organiser_keeps_a_pair_apart_and_disqualifies_an_entry(as_organiser, waived):
    competition, (c1, c2), others = waived
    url = f"/api/competitions/{competition.pk}/keep-apart/"
    bad = as_organiser.post(url, {"entry": c1.pk, "other": 999_999}, format="json")
    assert bad.status_code == 400 and "other" in bad.json()
    kept = as_organiser.post(url, {"entry": c1.pk, "other": c2.pk}, format="json")
    assert kept.status_code == 204
    pair = as_organiser.get(f"/api/competitions/{competition.pk}/collusion/").json()["pairs"][0]
    assert pair["kept_apart"] is True

    assert as_organiser.post(f"/api/entries/{c2.pk}/disqualify/").status_code == 204
    rows = as_organiser.get(f"/api/competitions/{competition.pk}/standings/").json()
    row = next(r for r in rows if r["entry"] == c2.pk)
    assert row["disqualified"] is True and row["withdrawn"] is True


def test_a_public_competition_cannot_waive_the_rule(as_organiser):
    body = {
        "name": "Open",
        "kind": "tournament",
        "variant": "manni-basic",
        "format": "round-robin",
        "games_per_match": 3,
        "same_owner_tables": True,
    }
    response = as_organiser.post("/api/competitions/", body, format="json")
    assert response.status_code == 400 and "same_owner_tables" in response.json()


def test_start_is_refused_with_the_reason_through_the_api_and_the_site(organiser):
    competition = make_competition(organiser, kind="tournament", games=3)
    ann = make_user("ann")
    _entries(competition, ann, ["a1", "a2", "a3"])
    _entries(competition, None, ["other"])
    response = client_for(organiser).post(f"/api/competitions/{competition.pk}/start/")
    assert response.status_code == 400
    assert "ann/a1, ann/a2, ann/a3 may not share a table" in response.content.decode()

    site = Client()
    site.force_login(organiser)
    page = site.get(f"/organise/{competition.pk}/").content.decode()
    assert 'id="fair-play-problem"' in page and "ann/a1, ann/a2, ann/a3" in page


def test_the_site_report_page_and_the_waiver_notice(organiser, waived):
    competition, (c1, c2), _ = waived
    site = Client()
    site.force_login(organiser)
    page = site.get(f"/organise/{competition.pk}/collusion/").content.decode()
    assert "copy-1" in page and "1 flagged" in page and 'data-flagged="1"' in page
    detail = site.get(f"/dashboard/competitions/{competition.pk}/").content.decode()
    assert 'id="fair-play-waiver"' in detail
    response = site.post(
        f"/organise/{competition.pk}/collusion/act/",
        {"action": "disqualify", "entry": str(c1.pk)},
    )
    assert response.status_code == 302
    c1.refresh_from_db()
    assert c1.disqualified
