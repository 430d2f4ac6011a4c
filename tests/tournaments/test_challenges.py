"""Challenges: unrated games of an author's version against chosen bots, within allowances."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError

from bots import builtin
from bots.allowances import AllowanceExceeded
from bots.models import Bot, BotVersion, UserAllowance
from bots.services import builtin_bots_ensure
from tests.factories import builtin_version
from tournaments import selectors
from tournaments.models import Challenge, Competition, Entry, Match, RatingEvent
from tournaments.services import challenge_requests, challenges, queue
from tournaments.services.challenge_requests import OpponentNotFound
from tournaments.worker import execution

pytestmark = pytest.mark.django_db


def user(name: str):
    return get_user_model().objects.create_user(name, password="pw-123456")


@pytest.fixture
def ada():
    return user("ada")


@pytest.fixture
def ben():
    return user("ben")


@pytest.fixture
def learner(ada) -> Bot:
    """Ada's bot: v1 plays as random, v2 as greedy, v3 is still being validated."""
    bot = Bot.objects.create(owner=ada, name="learner", builtin="random")
    builtin_version(bot, 1, "random")
    builtin_version(bot, 2, "greedy")
    builtin_version(bot, 3, "random", status=BotVersion.Status.VALIDATING)
    return bot


def ask(bot, by, **kw) -> Challenge:
    args = {"opponents": ["builtin:greedy"], "variant": "money-jordan", "games": 4, "send": None}
    return challenges.challenge_create(bot=bot, by=by, **{**args, **kw})


def play(challenge: Challenge) -> list[str]:
    """Play every match of ``challenge`` as a worker would (same claim, play and record)."""
    ids = challenge.competition.matches.order_by("id").values_list("pk", flat=True)
    return [execution.match_execute(match_id=pk, claimed_by="test", send=None) for pk in ids]


def test_a_challenge_against_greedy_plays_its_games_unrated(ada, learner):
    challenge = ask(learner, ada, version=2, games=16)

    assert play(challenge) == ["recorded", "recorded"]  # two matches of eight games

    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.DONE and challenge.finished_at
    progress = selectors.challenge_progress(challenge=challenge)
    assert progress["games_played"] == 16 and progress["matches_open"] == 0
    assert [s["bot"] for s in progress["seats"]] == ["ada/learner", "greedy"]
    assert [s["games"] for s in progress["seats"]] == [16, 16]
    assert not RatingEvent.objects.filter(match__competition=challenge.competition).exists()
    for entry in challenge.competition.entries.all():
        assert (entry.games, entry.points, entry.mu) == (0, 0, 25.0)  # no standing moved
    assert challenge.competition.status == Competition.Status.FINISHED


def test_ismcts_is_challenged_at_a_named_strength(ada, learner):
    challenge = ask(learner, ada, opponents=["builtin:ismcts-quick"], games=2)

    assert play(challenge) == ["recorded"]

    seats = selectors.challenge_progress(challenge=challenge)["seats"]
    assert [(s["bot"], s["builtin"], s["games"]) for s in seats] == [
        ("ada/learner", "random", 2),
        ("ismcts-quick", "ismcts-quick", 2),
    ]
    assert builtin.make("ismcts-quick").iterations < builtin.make("ismcts").iterations
    assert builtin.make("ismcts-strong").iterations > builtin.make("ismcts").iterations
    assert "ismcts-quick" not in builtin.names()  # the platform keeps no bot of it by default


def test_a_challenge_is_in_no_list_of_competitions(ada, ben, learner):
    challenge = ask(learner, ada)
    hidden = challenge.competition

    for who in (ada, ben, None):
        assert hidden not in selectors.competitions_visible_to(user=who)
    # Its matches are the asking author's to see, not a stranger's.
    assert hidden in selectors.competitions_visible_to(user=ada, challenges=True)
    assert hidden not in selectors.competitions_visible_to(user=ben, challenges=True)
    assert hidden not in selectors.competitions_visible_to(user=None, challenges=True)


def test_the_opponents_owner_sees_the_challenge_their_bot_was_asked_to_play(ada, ben, learner):
    rival = Bot.objects.create(owner=ben, name="rival", builtin="greedy")
    builtin_version(rival, 1, "greedy")
    _public_ladder_with(rival)

    challenge = ask(learner, ada, opponents=[f"bot:{rival.pk}"])

    assert list(selectors.challenges_visible_to(user=ben)) == [challenge]
    assert challenge.competition in selectors.competitions_visible_to(user=ben, challenges=True)


def test_the_next_challenge_beyond_the_daily_games_is_refused_naming_the_allowance(
    ada, learner, settings
):
    settings.CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = 10
    first = ask(learner, ada, games=8)
    play(first)

    with pytest.raises(AllowanceExceeded) as refused:
        ask(learner, ada, games=4)  # 8 + 4 > 10: refused whole, not cut to 2

    assert refused.value.allowance.name == "challenge_games_per_day"
    assert (refused.value.used, refused.value.limit, refused.value.asked) == (8, 10, 4)
    assert "renews at" in refused.value.messages[0]
    assert Challenge.objects.count() == 1
    assert ask(learner, ada, games=2).games == 2  # what is left may still be asked for


def test_open_challenges_are_capped_and_staff_may_raise_the_cap(ada, learner, settings):
    settings.CARDROOM_ALLOWANCE_OPEN_CHALLENGES = 1
    first = ask(learner, ada)

    with pytest.raises(AllowanceExceeded, match="open_challenges reached: 1 of 1"):
        ask(learner, ada)
    UserAllowance.objects.create(user=ada, allowance="open_challenges", value=2)
    ask(learner, ada)
    challenges.challenge_cancel(challenge=first, by=ada)  # one closes, one more fits
    ask(learner, ada)


@pytest.mark.parametrize(
    ("kw", "field", "words"),
    [
        ({"version": 3}, "version", "is validating, not ready"),
        ({"version": 9}, "version", "has no version 9"),
        ({"opponents": []}, "opponents", "played at 2 seats: name 1 opponent, got 0"),
        ({"opponents": ["greedy"]}, "opponents", "is not an opponent"),
        ({"opponents": ["builtin:shark"]}, "opponents", "no built-in bot 'shark'"),
        ({"variant": "manni-nope"}, "variant", "unknown variant"),
        ({"games": 3}, "games", "multiple of 2"),
        ({"games": 0}, "games", "A challenge plays from 1 to 1,000 games"),
        ({"games": 5000}, "games", "A challenge plays from 1 to 1,000 games"),
    ],
)
def test_bad_requests_are_refused_naming_the_field(ada, learner, kw, field, words):
    with pytest.raises(ValidationError) as refused:
        ask(learner, ada, **kw)
    assert words in " ".join(refused.value.message_dict[field])
    assert not Challenge.objects.exists() and not Match.objects.exists()


def test_only_the_owner_asks_for_a_bots_challenges(ben, learner):
    with pytest.raises(PermissionDenied):
        ask(learner, ben)


def _public_ladder_with(bot: Bot) -> Competition:
    ladder = Competition.objects.create(
        name="Open", kind="ladder", format="ladder", variant="money-jordan", seats_per_table=2
    )
    Entry.objects.create(competition=ladder, bot=bot)
    return ladder


def test_a_bot_one_may_not_see_is_not_found_and_an_opted_out_one_says_so(ada, ben, learner):
    hidden = Bot.objects.create(owner=ben, name="hidden")
    builtin_version(hidden, 1, "greedy")
    with pytest.raises(OpponentNotFound):
        ask(learner, ada, opponents=[f"bot:{hidden.pk}"])
    with pytest.raises(OpponentNotFound):
        ask(learner, ada, opponents=["bot:999999"])

    shy = Bot.objects.create(owner=ben, name="shy", challengeable=False)
    builtin_version(shy, 1, "greedy")
    _public_ladder_with(shy)
    with pytest.raises(ValidationError, match="does not take challenges"):
        ask(learner, ada, opponents=[f"bot:{shy.pk}"])


def test_an_opponent_that_does_not_play_the_variant_is_refused(ada, ben, learner):
    money_only = Bot.objects.create(owner=ben, name="banker")
    BotVersion.objects.create(
        bot=money_only, number=1, runtime="python", sha256="1" * 64, status="ready"
    )  # ready, but passed no variant at all
    _public_ladder_with(money_only)

    with pytest.raises(ValidationError, match="does not play money-jordan"):
        ask(learner, ada, opponents=[f"bot:{money_only.pk}"])


def test_a_bot_plays_its_own_other_version_at_a_two_seat_table(ada, learner):
    challenge = ask(learner, ada, version=2, opponents=[f"bot:{learner.pk}@1"])

    entries = list(challenge.competition.entries.order_by("seed_order"))
    assert [(e.bot_id, e.copy) for e in entries] == [(learner.pk, 0), (learner.pk, 1)]
    assert play(challenge) == ["recorded"]


def test_one_bot_per_author_at_a_bigger_table_with_another_authors_bot(ada, ben, learner):
    rival = Bot.objects.create(owner=ben, name="rival", builtin="greedy")
    builtin_version(rival, 1, "greedy")
    _public_ladder_with(rival)
    three = {"variant": "manni-basic", "games": 3}

    with pytest.raises(ValidationError, match="one bot per author per table"):
        ask(learner, ada, opponents=[f"bot:{learner.pk}@1", f"bot:{rival.pk}"], **three)
    # Among the author's own bots and the built-ins nobody else's game is at stake.
    ask(learner, ada, opponents=[f"bot:{learner.pk}@1", "builtin:random"], **three)
    ask(learner, ada, opponents=["builtin:random", f"bot:{rival.pk}"], **three)


@pytest.mark.parametrize(
    ("games", "seats", "duplicate", "size"),
    [(16, 2, True, 8), (12, 2, True, 12), (30, 3, True, 6), (7, 2, False, 7), (13, 3, False, 1)],
)
def test_a_challenge_is_played_as_equal_matches_that_add_up_to_its_games(
    games, seats, duplicate, size
):
    assert challenge_requests.match_games(games, seats, duplicate) == size


def test_challenge_matches_go_to_the_challenge_queue(ada, learner):
    builtin_bots_ensure()
    challenge = ask(learner, ada)
    ids = list(challenge.competition.matches.values_list("pk", flat=True))

    assert set(queue.match_queues(ids).values()) == {"challenges"}


def test_a_cancelled_challenge_drops_its_matches_not_started(ada, ben, learner):
    challenge = ask(learner, ada, games=8)
    with pytest.raises(PermissionDenied):
        challenges.challenge_cancel(challenge=challenge, by=ben)

    cancelled = challenges.challenge_cancel(challenge=challenge, by=ada)

    assert cancelled.status == Challenge.Status.CANCELLED
    assert not challenge.competition.matches.exists()
    with pytest.raises(ValidationError, match="cancelled already"):
        challenges.challenge_cancel(challenge=challenge, by=ada)


def test_a_failed_match_ends_its_part_of_the_challenge(ada, learner):
    challenge = ask(learner, ada)
    match = challenge.competition.matches.get()
    execution.match_claim(match_id=match.pk, claimed_by="w")

    execution.match_fail(match_id=match.pk, claimed_by="w", error="boom")

    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.DONE
