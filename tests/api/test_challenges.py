"""Challenges through the API: ask, follow, see the matches, refusals that name the problem."""

from __future__ import annotations

import pytest

from bots.models import Bot, BotVersion
from tests.api.conftest import results
from tests.factories import builtin_version, passed
from tournaments.models import Challenge, Competition, Entry, RatingEvent
from tournaments.worker import execution

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("challenge_world")]

GREEDY = {"opponents": ["builtin:greedy"], "variant": "money-jordan", "games": 4}


@pytest.fixture
def learner(alice) -> Bot:
    """Alice's bot: v1 plays as random, v2 is still being validated."""
    bot = Bot.objects.create(owner=alice, name="learner", builtin="random")
    builtin_version(bot, 1, "random")
    builtin_version(bot, 2, "random", status=BotVersion.Status.VALIDATING)
    return bot


@pytest.fixture
def rival(bob) -> Bot:
    """Bob's bot, playing in a public ladder of Money."""
    bot = Bot.objects.create(owner=bob, name="rival", builtin="greedy")
    builtin_version(bot, 1, "greedy")
    ladder = Competition.objects.create(
        name="Open", kind="ladder", format="ladder", variant="money-jordan", seats_per_table=2
    )
    Entry.objects.create(competition=ladder, bot=bot)
    return bot


def ask(client, bot: Bot, **kw):
    return client.post("/api/challenges/", {"bot": bot.pk, **GREEDY, **kw}, format="json")


def play_all(challenge_id: int) -> None:
    challenge = Challenge.objects.get(pk=challenge_id)
    for match_id in challenge.competition.matches.values_list("pk", flat=True):
        execution.match_execute(match_id=match_id, claimed_by="test", send=None)


def test_a_challenge_against_greedy_plays_unrated_and_the_next_beyond_the_allowance_is_refused(
    as_alice, learner, settings
):
    settings.CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = 6

    asked = ask(as_alice, learner)

    assert asked.status_code == 201, asked.content
    body = asked.json()
    assert body["status"] == "running" and body["version"] == 1 and body["games"] == 4
    assert body["progress"]["games_played"] == 0 and body["progress"]["matches_open"] == 1
    play_all(body["id"])
    done = as_alice.get(f"/api/challenges/{body['id']}/").json()
    assert done["status"] == "done"
    assert done["progress"]["games_played"] == 4
    assert [s["bot"] for s in done["progress"]["seats"]] == ["alice/learner", "greedy"]
    matches = results(as_alice.get(f"/api/matches/?competition={body['competition']}"))
    assert [m["status"] for m in matches] == ["done"]
    games = results(as_alice.get(f"/api/games/?match={matches[0]['id']}"))
    assert len(games) == 4
    assert not RatingEvent.objects.exists()

    refused = ask(as_alice, learner)  # 4 + 4 > 6

    assert refused.status_code == 429, refused.content
    assert refused.json()["allowance"] == "challenge_games_per_day"
    assert refused.json()["used"] == 4 and refused.json()["limit"] == 6
    assert "challenge games used today" in refused.json()["detail"]
    assert refused.json()["renews_at"]
    assert as_alice.get("/api/challenges/").json()["count"] == 1


def test_challenges_are_never_in_the_competitions_list(as_alice, learner):
    challenge = ask(as_alice, learner).json()

    listed = results(as_alice.get("/api/competitions/"))
    assert challenge["competition"] not in [c["id"] for c in listed]
    assert as_alice.get(f"/api/competitions/{challenge['competition']}/").status_code == 404


def test_the_opponents_owner_sees_the_challenge_and_may_opt_out(as_alice, as_bob, learner, rival):
    asked = ask(as_alice, learner, opponents=[f"bot:{rival.pk}"])
    assert asked.status_code == 201, asked.content

    theirs = results(as_bob.get(f"/api/challenges/?bot={rival.pk}"))
    assert [c["id"] for c in theirs] == [asked.json()["id"]]
    assert as_bob.post(f"/api/challenges/{asked.json()['id']}/cancel/").status_code == 403

    opted = as_bob.post(f"/api/bots/{rival.pk}/play/", {"challengeable": False}, format="json")
    assert opted.status_code == 200 and opted.json()["challengeable"] is False
    again = ask(as_alice, learner, opponents=[f"bot:{rival.pk}"])
    assert again.status_code == 400
    assert "does not take challenges" in again.json()["opponents"][0]


def test_a_stranger_sees_nothing_of_a_challenge(as_alice, as_bob, anon, learner):
    challenge = ask(as_alice, learner).json()

    assert as_bob.get(f"/api/challenges/{challenge['id']}/").status_code == 404
    assert results(as_bob.get("/api/challenges/")) == []
    assert anon.get("/api/challenges/").status_code == 401
    hidden = as_bob.get(f"/api/matches/?competition={challenge['competition']}")
    missing = as_bob.get("/api/matches/?competition=99999999")
    assert (hidden.status_code, hidden.json()) == (missing.status_code, missing.json())


def test_a_bot_one_may_not_see_is_a_404_as_a_missing_one(as_alice, bob, learner):
    hidden = Bot.objects.create(owner=bob, name="hidden")
    builtin_version(hidden, 1, "greedy")

    private = ask(as_alice, learner, opponents=[f"bot:{hidden.pk}"])
    missing = ask(as_alice, learner, opponents=["bot:99999999"])

    assert private.status_code == missing.status_code == 404
    assert ask(as_alice, hidden).status_code == 404  # nor may one ask for another's bot


@pytest.mark.parametrize(
    ("kw", "field", "words"),
    [
        ({"version": 2}, "version", "not ready"),
        ({"opponents": ["builtin:greedy", "builtin:random"]}, "opponents", "name 1 opponent"),
        ({"variant": "poker"}, "variant", "unknown variant"),
        ({"games": 5}, "games", "multiple of 2"),
        ({"games": 100_000}, "games", "A challenge plays from 1 to 1,000 games"),
        ({"options": {"money.nope": 1}}, "options", "nope"),
    ],
)
def test_bad_requests_are_a_400_naming_the_field(as_alice, learner, kw, field, words):
    response = ask(as_alice, learner, **kw)

    assert response.status_code == 400, response.content
    assert words in " ".join(response.json()[field])
    assert not Challenge.objects.exists()


def test_the_author_cancels_a_running_challenge(as_alice, learner):
    challenge = ask(as_alice, learner, games=24).json()

    cancelled = as_alice.post(f"/api/challenges/{challenge['id']}/cancel/")

    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["progress"]["matches"] == 0
    again = as_alice.post(f"/api/challenges/{challenge['id']}/cancel/")
    assert again.status_code == 400 and "cancelled already" in again.json()["status"][0]


def test_an_organiser_cannot_make_a_challenge_competition(as_organiser):
    body = {"name": "Sneaky", "kind": "challenge", "variant": "money-jordan"}

    response = as_organiser.post("/api/competitions/", {**body, "format": "challenge"})

    assert response.status_code == 400
    assert set(response.json()) == {"kind", "format"}
    assert not Competition.objects.filter(kind="challenge").exists()


def test_a_variant_your_version_does_not_play_is_the_error_not_the_number_of_opponents(
    as_alice, alice
):
    money_only = Bot.objects.create(owner=alice, name="dinar")
    version = BotVersion.objects.create(
        bot=money_only, number=1, sha256="d" * 64, runtime="python", status="ready"
    )
    passed(version, "money-jordan")

    # laugavatnsmanni seats three: one opponent is short, but the version is the problem.
    response = ask(as_alice, money_only, variant="laugavatnsmanni", games=6)

    assert response.status_code == 400, response.content
    assert set(response.json()) == {"version"}
    assert response.json()["version"] == [
        "alice/dinar has no ready version that plays laugavatnsmanni"
    ]
    assert not Challenge.objects.exists()


@pytest.mark.parametrize("duplicate", [False, True])
def test_every_figure_of_a_seat_counts_games(as_alice, learner, duplicate):
    """Games, wins, score and mean rank all count games: the wins and the mean rank are
    those of the games' rankings, not of the match's."""
    asked = ask(as_alice, learner, games=12, duplicate=duplicate, opponents=["builtin:random"])
    play_all(asked.json()["id"])

    seats = as_alice.get(f"/api/challenges/{asked.json()['id']}/").json()["progress"]["seats"]

    match = Challenge.objects.get().competition.matches.get()
    played = {s.entry.bot.name: s for s in match.seats.select_related("entry__bot")}
    by_bot = {seat["bot"].split("/")[-1]: seat for seat in seats}
    for name, seat in by_bot.items():
        stored = played[name]
        assert (seat["games"], seat["matches"]) == (12, 1)
        assert seat["wins"] == stored.wins  # the games it ranked first, as the referee counted
        assert seat["mean_match_rank"] == stored.rank
    if not duplicate:  # player p sits at seat p of every game: its rank is ranking[p]
        records = list(match.game_records.values_list("ranking", flat=True))
        for name, seat in by_bot.items():
            mine = [ranking[played[name].seat] for ranking in records]
            assert seat["mean_rank"] == pytest.approx(sum(mine) / 12)
            assert seat["wins"] == mine.count(1)
    assert sum(s["mean_rank"] for s in seats) == pytest.approx(
        sum(sum(r) for r in match.game_records.values_list("ranking", flat=True)) / 12
    )
