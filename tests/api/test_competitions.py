"""Competitions and entries: organisers create and run them; private ones stay private."""

from __future__ import annotations

import io

import pytest
from django.test import Client

from bots.services import builtin_bots_ensure
from tests.api.conftest import client_for, results
from tests.factories import make_bot, make_competition, make_user
from tournaments.models import Competition, Entry

pytestmark = pytest.mark.django_db

LEAGUE = {
    "name": "Spring league",
    "kind": "league-season",
    "variant": "manni-basic",
    "format": "round-robin",
    "options": {"manni.tie": "play-on"},
    "games_per_match": 3,
}


def test_an_organiser_creates_a_competition(as_organiser):
    response = as_organiser.post("/api/competitions/", LEAGUE, format="json")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "draft" and body["seats_per_table"] == 3
    assert body["options"] == {"manni.tie": "play-on", "manni.ranks": 12}  # defaults filled in
    assert body["created_by"] == "olga" and body["organisers"] == ["olga"]
    assert body["can_manage"] is True and body["seed"] == 0


def test_a_competition_paces_its_matches_as_its_organiser_chose(as_organiser, monkeypatch):
    from tournaments.services import play

    body = as_organiser.post("/api/competitions/", {**LEAGUE, "pace_ms": 25}, format="json")
    assert body.status_code == 201 and body.json()["pace_ms"] == 25
    competition = Competition.objects.get()
    seen = []
    monkeypatch.setattr(play, "play_match", lambda *a, time_control, **k: seen.append(time_control))
    play._play(competition, [], 1, 1)
    assert seen[0].pace_ms == 25


def test_staff_create_competitions_too(as_staff):
    assert as_staff.post("/api/competitions/", LEAGUE, format="json").status_code == 201


def test_only_organisers_create_competitions(as_alice, anon):
    assert as_alice.post("/api/competitions/", LEAGUE, format="json").status_code == 403
    assert anon.post("/api/competitions/", LEAGUE, format="json").status_code == 401
    assert not Competition.objects.exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"variant": "poker"}, "variant"),
        ({"options": {"manni.tie": "coin-toss"}}, "options"),
        ({"options": {"no.such": 1}}, "options"),
        ({"options": ["not", "a", "dict"]}, "options"),
        ({"kind": "ladder"}, "format"),
        ({"format": "swiss", "kind": "tournament"}, "rounds_planned"),
        ({"games_per_match": 4}, "games_per_match"),
        ({"games_per_match": "six"}, "games_per_match"),
        ({"move_ms": 0}, "move_ms"),
        # more than a bot may spend deciding in a match: 300,000 ms with three seats
        ({"bank_ms": 3_600_000}, "bank_ms"),
        ({"move_ms": 120_000}, "move_ms"),  # one move in each of the 3 games: 380,000 ms
        ({"pace_ms": -1}, "pace_ms"),
        ({"pace_ms": 5_000}, "pace_ms"),
        ({"name": ""}, "name"),
    ],
)
def test_invalid_settings_are_a_400_naming_the_field(as_organiser, change, field):
    response = as_organiser.post("/api/competitions/", {**LEAGUE, **change}, format="json")

    assert response.status_code == 400, response.content
    assert field in response.json(), response.json()
    assert not Competition.objects.exists()


def test_a_time_control_past_the_match_decision_budget_is_refused_with_the_budget(as_organiser):
    """A bot may spend at most half the match time limit (30 min) deciding, shared by the
    seats: 300,000 ms in a three-seat match. A clock whose bank and one move a game fit is
    taken to the millisecond; one more millisecond is refused, and the error says why."""
    fits = {**LEAGUE, "name": "Fits", "bank_ms": 300_000 - 3 * 2_000, "move_ms": 2_000}
    response = as_organiser.post("/api/competitions/", fits, format="json")
    assert response.status_code == 201, response.content

    over = {**fits, "name": "Over", "bank_ms": fits["bank_ms"] + 1}
    response = as_organiser.post("/api/competitions/", over, format="json")

    assert response.status_code == 400, response.content
    (message,) = response.json()["bank_ms"]
    assert "at most 300,000 ms deciding in a match of 3 seats" in message
    assert "come to 300,001 ms" in message
    assert list(Competition.objects.values_list("name", flat=True)) == ["Fits"]


def test_private_competitions_are_invisible_to_others(organiser, as_organiser, as_alice, anon):
    hidden = make_competition(organiser, name="Hidden", is_public=False, games=6)
    shown = make_competition(organiser, name="Shown", games=6)

    assert [c["name"] for c in results(anon.get("/api/competitions/"))] == ["Shown"]
    assert [c["name"] for c in results(as_alice.get("/api/competitions/"))] == ["Shown"]
    assert anon.get(f"/api/competitions/{hidden.pk}/").status_code == 404
    assert as_alice.get(f"/api/competitions/{hidden.pk}/standings/").status_code == 404
    assert as_alice.post(f"/api/competitions/{hidden.pk}/start/").status_code == 404
    assert {c["name"] for c in results(as_organiser.get("/api/competitions/"))} == {
        "Hidden",
        "Shown",
    }
    assert anon.get(f"/api/competitions/{shown.pk}/").status_code == 200


def test_staff_see_private_competitions(organiser, as_staff):
    hidden = make_competition(organiser, is_public=False, games=6)

    assert as_staff.get(f"/api/competitions/{hidden.pk}/").status_code == 200


def test_seed_is_shown_to_organisers_and_to_all_only_if_full_replays_are_allowed(
    organiser, as_organiser, anon
):
    competition = make_competition(organiser, seed=99, games=6)
    url = f"/api/competitions/{competition.pk}/"

    assert anon.get(url).json()["seed"] is None
    assert as_organiser.get(url).json()["seed"] == 99
    Competition.objects.filter(pk=competition.pk).update(status="finished")
    assert anon.get(url).json()["seed"] is None  # every deck follows from it
    Competition.objects.filter(pk=competition.pk).update(full_replays_after_end=True)
    assert anon.get(url).json()["seed"] == 99


def test_competition_filters_and_pagination(organiser, as_organiser, anon):
    make_competition(organiser, name="Manni one", games=6)
    make_competition(organiser, name="Money one", variant="money-egypt", games=6)
    make_competition(organiser, name="Manni two", games=6)
    Competition.objects.filter(name="Manni two").update(status="running")
    make_competition(make_user("other-organiser"), name="Someone else's", games=6)

    by_variant = results(anon.get("/api/competitions/?variant=money-egypt"))
    running = results(anon.get("/api/competitions/?status=running"))
    named = results(anon.get("/api/competitions/?name=manni"))
    mine = results(as_organiser.get("/api/competitions/?mine=true"))
    page = anon.get("/api/competitions/?page_size=3&ordering=name").json()

    assert [c["name"] for c in by_variant] == ["Money one"]
    assert [c["name"] for c in running] == ["Manni two"]
    assert {c["name"] for c in named} == {"Manni one", "Manni two"}
    assert "Someone else's" not in {c["name"] for c in mine} and len(mine) == 3
    assert page["count"] == 4 and len(page["results"]) == 3 and page["next"]
    assert [c["name"] for c in page["results"]] == ["Manni one", "Manni two", "Money one"]
    assert anon.get("/api/competitions/?status=sleeping").status_code == 400


def test_only_the_competitions_organisers_run_it(organiser, as_alice, alice):
    competition = make_competition(organiser, games=6)
    other_organiser = make_user("oscar")
    other_organiser.user_permissions.add(
        *organiser.user_permissions.all()
    )  # may organise, but not this one

    for client in (as_alice, client_for(other_organiser)):
        assert client.post(f"/api/competitions/{competition.pk}/start/").status_code == 403
        assert client.post(f"/api/competitions/{competition.pk}/close/").status_code == 403
    competition.refresh_from_db()
    assert competition.status == "draft"


def test_starting_needs_enough_entries(organiser, as_organiser, alice):
    competition = make_competition(organiser, games=6)
    Entry.objects.create(competition=competition, bot=make_bot(alice, "lonely"))

    response = as_organiser.post(f"/api/competitions/{competition.pk}/start/")

    assert response.status_code == 400
    assert "entries" in response.json()["non_field_errors"][0]
    competition.refresh_from_db()
    assert competition.status == "draft"


def test_organiser_starts_and_closes_a_competition(organiser, as_organiser, anon, alice, bob):
    competition = make_competition(organiser, games=6)
    for bot in [builtin_bots_ensure()[0], make_bot(alice, "a"), make_bot(bob, "b")]:
        Entry.objects.create(competition=competition, bot=bot)

    started = as_organiser.post(f"/api/competitions/{competition.pk}/start/")
    closed = as_organiser.post(f"/api/competitions/{competition.pk}/close/")
    again = as_organiser.post(f"/api/competitions/{competition.pk}/close/")

    assert started.status_code == 200, started.content
    assert started.json()["status"] == "running"
    assert results(anon.get(f"/api/rounds/?competition={competition.pk}"))[0]["number"] == 1
    assert closed.status_code == 200 and closed.json()["status"] == "finished"
    assert again.status_code == 400 and "already" in again.json()["non_field_errors"][0]


def test_starting_through_the_api_queues_the_first_matches_as_the_command_does(
    organiser, as_organiser, alice, bob, monkeypatch, django_capture_on_commit_callbacks
):
    from django.core.management import call_command

    from tournaments.worker import tasks

    sent: list[int] = []
    monkeypatch.setattr(
        tasks.match_run, "apply_async", lambda args, queue, **_: sent.append(args[0])
    )
    monkeypatch.setattr(  # short matches go out as lists
        tasks.matches_run, "apply_async", lambda args, queue, **_: sent.extend(args[0])
    )
    through_api, through_cli = (
        make_competition(organiser, name=n, games=6) for n in ("API", "CLI")
    )
    bots = [builtin_bots_ensure()[0], make_bot(alice, "a"), make_bot(bob, "b")]
    for competition in (through_api, through_cli):
        for bot in bots:
            Entry.objects.create(competition=competition, bot=bot)

    with django_capture_on_commit_callbacks(execute=True):
        started = as_organiser.post(f"/api/competitions/{through_api.pk}/start/")
        assert sent == []  # nothing goes to the workers before the start commits
    with django_capture_on_commit_callbacks(execute=True):
        call_command("run_competition", str(through_cli.pk), stdout=io.StringIO())

    assert started.status_code == 200, started.content
    api_matches = list(through_api.matches.values_list("pk", "status"))
    cli_matches = list(through_cli.matches.values_list("pk", "status"))
    assert api_matches and {status for _, status in api_matches} == {"queued"}
    assert {status for _, status in cli_matches} == {"queued"}
    assert sent == [pk for pk, _ in api_matches] + [pk for pk, _ in cli_matches]


def test_a_draft_closed_is_cancelled(organiser, as_staff):
    competition = make_competition(organiser, games=6)

    response = as_staff.post(f"/api/competitions/{competition.pk}/close/")

    assert response.json()["status"] == "cancelled"


# --- entries ------------------------------------------------------------------------------


def test_a_user_enters_their_own_bot(organiser, as_alice, alice, anon):
    competition = make_competition(organiser, games=6)
    bot = make_bot(alice, "entrant")

    response = as_alice.post("/api/entries/", {"competition": competition.pk, "bot": bot.pk})

    assert response.status_code == 201, response.content
    assert response.json()["bot"]["name"] == "entrant"
    listed = results(anon.get(f"/api/entries/?competition={competition.pk}"))
    assert [e["bot"]["owner"] for e in listed] == ["alice"]


def test_nobody_enters_another_users_bot(organiser, as_bob, alice):
    competition = make_competition(organiser, games=6)
    bot = make_bot(alice, "not-bobs")

    response = as_bob.post("/api/entries/", {"competition": competition.pk, "bot": bot.pk})

    assert response.status_code == 400 and "bot" in response.json()
    assert not Entry.objects.exists()


def test_built_in_bots_are_entered_by_organisers_and_staff_enter_anything(
    organiser, as_organiser, as_alice, as_staff, bob
):
    competition = make_competition(organiser, games=6)
    builtin, other = builtin_bots_ensure()[:2]
    bobs = make_bot(bob, "bobs")

    def enter(client, bot):
        return client.post("/api/entries/", {"competition": competition.pk, "bot": bot.pk})

    assert enter(as_organiser, builtin).status_code == 201
    assert enter(as_staff, other).status_code == 201
    assert enter(as_staff, bobs).status_code == 201


def test_nobody_else_enters_a_built_in_bot_into_a_competition_they_do_not_run(organiser, as_alice):
    ladder = make_competition(
        organiser, name="Open ladder", kind="ladder", format="ladder", games=6
    )
    ismcts = next(bot for bot in builtin_bots_ensure() if bot.builtin == "ismcts")

    refused = as_alice.post("/api/entries/", {"competition": ladder.pk, "bot": ismcts.pk})

    assert refused.status_code == 403
    assert "only the organisers of Open ladder" in refused.json()["detail"]
    assert "built-in bot" in refused.json()["detail"]
    assert not Entry.objects.filter(competition=ladder).exists()


def test_entries_are_refused_twice_and_once_running(organiser, as_alice, alice):
    competition = make_competition(organiser, games=6)
    bot = make_bot(alice, "eager")
    data = {"competition": competition.pk, "bot": bot.pk}
    assert as_alice.post("/api/entries/", data).status_code == 201

    twice = as_alice.post("/api/entries/", data)
    Competition.objects.filter(pk=competition.pk).update(status="running")
    late = as_alice.post("/api/entries/", {**data, "bot": make_bot(alice, "late").pk})

    assert twice.status_code == 400 and "already" in twice.json()["bot"][0]
    assert late.status_code == 400 and "start" in late.json()["non_field_errors"][0]
    assert Entry.objects.count() == 1


def test_a_pinned_version_must_be_the_bots(organiser, as_alice, alice):
    competition = make_competition(organiser, games=6)
    bot, other = make_bot(alice, "pinned"), make_bot(alice, "other")

    wrong = as_alice.post(
        "/api/entries/",
        {"competition": competition.pk, "bot": bot.pk, "pinned_version": other.versions.get().pk},
    )
    right = as_alice.post(
        "/api/entries/",
        {"competition": competition.pk, "bot": bot.pk, "pinned_version": bot.versions.get().pk},
    )

    assert wrong.status_code == 400 and "pinned_version" in wrong.json()
    assert right.status_code == 201 and right.json()["pinned_version"] == 1


def test_entries_of_private_competitions_are_hidden(organiser, as_alice, alice, anon):
    competition = make_competition(organiser, is_public=False, games=6)
    bot = make_bot(alice, "lost")

    response = as_alice.post("/api/entries/", {"competition": competition.pk, "bot": bot.pk})

    assert response.status_code == 400 and "competition" in response.json()
    assert anon.get(f"/api/entries/?competition={competition.pk}").status_code == 400


def test_withdrawal_by_owner_or_organiser_only(organiser, as_organiser, as_alice, as_bob, alice):
    competition = make_competition(organiser, games=6)
    first = Entry.objects.create(competition=competition, bot=make_bot(alice, "one"))
    second = Entry.objects.create(competition=competition, bot=make_bot(alice, "two"))

    assert as_bob.post(f"/api/entries/{first.pk}/withdraw/").status_code == 403
    assert as_alice.post(f"/api/entries/{first.pk}/withdraw/").status_code == 204
    assert as_organiser.post(f"/api/entries/{second.pk}/withdraw/").status_code == 204
    assert not Entry.objects.exists()  # withdrawn from a draft: removed


def test_withdrawal_from_a_started_competition_is_refused_as_the_organise_page_refuses(
    league, organiser, as_alice, as_bob
):
    entry = league["entries"][0]

    response = as_alice.post(f"/api/entries/{entry.pk}/withdraw/")
    stranger = as_bob.post(f"/api/entries/{entry.pk}/withdraw/")

    page = Client()
    page.force_login(organiser)
    removed = page.post(f"/organise/{entry.competition_id}/entries/{entry.pk}/remove/")

    reason = (
        "alice/alpha cannot be removed: Winter league has started (it is running); "
        "entries are removed only before the start"
    )
    assert response.status_code == 400
    assert response.json() == {"non_field_errors": [reason]}
    assert removed.status_code == 400 and reason in removed.content.decode()
    assert as_alice.get(f"/api/entries/{entry.pk}/").json()["withdrawn"] is False
    assert stranger.status_code == 403  # not theirs: refused before the state is told


def test_an_author_leaves_a_running_ladder_and_is_paired_no_more(organiser, alice, as_alice):
    """A ladder has no schedule to break: leaving it withdraws the entry."""
    from tournaments import services

    ladder = make_competition(organiser, kind="ladder", format="ladder", games=6)
    mine = services.entry_create(competition=ladder, bot=make_bot(alice, "leaver"))
    Competition.objects.filter(pk=ladder.pk).update(status=Competition.Status.RUNNING)

    assert as_alice.post(f"/api/entries/{mine.pk}/withdraw/").status_code == 204

    mine.refresh_from_db()
    assert mine.withdrawn is True  # kept with its results; the ladder pairs it no more
    rows = as_alice.get(f"/api/competitions/{ladder.pk}/standings/").json()
    assert [r["withdrawn"] for r in rows if r["entry"] == mine.pk] == [True]


def test_progress_counts_matches_by_status(db):
    """The API shows the same progress as ``manage.py run_competition``."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from bots.models import Bot
    from tournaments import services

    user = get_user_model().objects.create_user("prog", password="pw-123456789")
    comp = services.competition_create(
        created_by=user,
        name="p",
        kind="tournament",
        variant="manni-basic",
        format="round-robin",
        games_per_match=3,
    )
    for i in range(3):
        services.entry_create(
            competition=comp, bot=Bot.objects.create(name=f"p{i}", builtin="random")
        )
    match = services.competition_start(competition=comp, send=None)[0]
    client = APIClient()
    before = client.get(f"/api/competitions/{comp.pk}/progress/").json()
    assert before["pending"] == 1 and before["done"] == 0 and before["competition"] == "running"
    services.match_record(match=match, played=services.match_play(match=match))
    after = client.get(f"/api/competitions/{comp.pk}/progress/").json()
    assert after["done"] == 1 and after["games"] == 3 and after["competition"] == "finished"


def test_organisers_allow_full_replays_after_the_start_and_nothing_else_changes(
    organiser, as_organiser, as_alice, anon
):
    competition = make_competition(organiser, name="Club night", games=6)
    url = f"/api/competitions/{competition.pk}/"

    response = as_organiser.patch(url, {"full_replays_after_end": True, "name": "Club final"})
    assert response.status_code == 200
    assert response.json()["full_replays_after_end"] is True
    assert response.json()["name"] == "Club final"

    refused = as_organiser.patch(url, {"variant": "money-egypt", "seed": 5}, format="json")
    assert refused.status_code == 400
    assert set(refused.json()) == {"variant", "seed"}
    assert as_organiser.patch(url, {"name": ""}, format="json").status_code == 400
    assert as_alice.patch(url, {"is_public": False}, format="json").status_code == 403
    assert anon.patch(url, {"is_public": False}, format="json").status_code in (401, 403)
    competition.refresh_from_db()
    assert (competition.name, competition.variant, competition.is_public) == (
        "Club final",
        "manni-basic",
        True,
    )
