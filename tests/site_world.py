"""A site with something on every page, made once through the shared factories
(:mod:`tests.factories`) and the services, for a test that walks every page: the people
(a visitor needs none; a new account with nothing, an author, two organisers, staff), then
their bots, versions, version tests, challenges and competitions of every kind.

Plain functions returning ids (the browser tests read them from Playwright's thread).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

import games
from bots.accounts import confirmation_token
from bots.models import AccountConfirmation, Bot, BotVersion
from bots.services import (
    bot_version_queue,
    bot_version_upload,
    bot_version_validate,
    builtin_bots_ensure,
)
from tests.factories import (
    RAW_BOT,
    RAW_BOT_FAULTS,
    WAITING,
    builtin_version,
    make_competition,
    make_user,
    open_ladder,
    play_all,
    play_one,
    play_to_the_end,
    uploaded_bot,
)
from tournaments import services
from tournaments.live import publisher as live
from tournaments.models import Competition, Match, VersionTest
from tournaments.services import challenges, version_tests
from tournaments.worker import execution

#: Long names, as people give them: a page must wrap or scroll them in a box, not widen.
LONG = "a-rather-long-name-for-a-bot-of-mine"


def people() -> dict[str, int | str]:
    """The accounts: ``newbie`` signed up and has not confirmed its address, ``ada``
    writes bots, ``olga`` organises (``orin`` too, with nothing yet), ``stan`` is staff;
    ``token``: the confirmation link's token of ``cora``, another new account."""
    newbie = make_user("newbie")
    AccountConfirmation.objects.create(user=newbie, email="newbie@example.org", required=True)
    cora = make_user("cora")
    confirmation = AccountConfirmation.objects.create(user=cora, email="cora@example.org")
    make_user("ada")
    make_user("olga", organiser=True)
    make_user("orin", organiser=True)
    make_user("stan", is_staff=True)
    return {"token": confirmation_token(confirmation)}


def world() -> dict[str, int | str]:
    """Everything the pages show, each made as the site makes it; the ids the pages need."""
    builtin_bots_ensure()
    ada = get_user_model().objects.get(username="ada")
    olga = get_user_model().objects.get(username="olga")
    ids: dict[str, int | str] = {}
    steps = [
        lambda: _learner(ada),
        lambda: _uploads(ada),
        lambda: _challenges(ada),
        lambda: _finished_round_robin(olga, ada),
        lambda: _knockout(olga),
        lambda: _other_formats(olga),
        lambda: _league(olga),
        lambda: _teams(olga),
        lambda: _ladder(olga),
        lambda: _draft(olga),
        lambda: _live_match(olga),
    ]
    for step in steps:
        with transaction.atomic():  # as a request or a task runs the services
            ids |= step()
    return ids


def _learner(ada) -> dict[str, int]:
    """A bot of two ready versions (they play as built-ins), a finished version test of
    one against the other and one waiting for a worker."""
    bot = Bot.objects.create(owner=ada, name=f"learner-{LONG}", description="Learns. " * 30)
    builtin_version(bot, 1, "random")
    builtin_version(bot, 2, "greedy")
    done = version_tests.version_test_create(
        bot=bot, new=2, old=1, variant="manni-basic", elo1=50.0, by=ada, send=None
    )
    VersionTest.objects.filter(pk=done.pk).update(seed=20261201)  # fixed deals
    play_to_the_end(done, slice_s=3600)
    version_tests.version_test_create(
        bot=bot, new=1, old=2, variant="manni-basic", by=ada, send=None
    )
    return {"learner": bot.pk}


def _uploads(ada) -> dict[str, int]:
    """An uploaded bot: v1 validated and ready, v2 rejected by a real validation (it
    crashes at its first decision), v3 uploaded and being validated; a bot with no
    version yet."""
    bot = uploaded_bot(ada, f"uploaded-{LONG}")
    crashing = RAW_BOT.replace("FAULT_AT", "1").replace("FAULT", RAW_BOT_FAULTS["crash"]).encode()
    rejected = bot_version_upload(bot=bot, filename="bot.py", content=crashing)
    rejected = bot_version_validate(version=rejected)
    assert rejected.status == BotVersion.Status.REJECTED, rejected.validation_report
    fresh = Bot.objects.create(owner=ada, name=f"fresh-{LONG}")  # nothing uploaded yet
    waiting = bot_version_upload(bot=bot, filename=f"{LONG}-{LONG}.py", content=crashing)
    waiting = bot_version_queue(version=waiting, send=lambda pk: None)  # no worker takes it
    assert waiting.status == BotVersion.Status.VALIDATING
    return {"uploaded": bot.pk, "fresh": fresh.pk}


def _challenges(ada) -> dict[str, int]:
    """A bot that plays as a built-in; a challenge of it played to its end and one still
    playing."""
    bot = Bot.objects.create(owner=ada, name=f"player-{LONG}", builtin="greedy")
    builtin_version(bot, 1, "greedy")
    done = challenges.challenge_create(
        bot=bot, by=ada, opponents=["builtin:greedy"], variant="money-jordan", games=4, send=None
    )
    for match_id in done.competition.matches.values_list("pk", flat=True):
        execution.match_execute(match_id=match_id, claimed_by="test", send=None)
    playing = challenges.challenge_create(
        bot=bot, by=ada, opponents=["builtin:random"], variant="money-jordan", games=4, send=None
    )
    match = done.competition.matches.order_by("id").first()
    return {
        "player": bot.pk,
        "challenge-done": done.pk,
        "challenge-playing": playing.pk,
        "challenge-match": match.pk,
    }


def _finished_round_robin(olga, ada) -> dict[str, int | str]:
    """A finished round robin of four, a bot of the author among them, names long."""
    competition = make_competition(
        olga, name="Club night", entries=3, variant="money-jordan", games=2, prefix=f"{LONG}-"
    )
    player = Bot.objects.get(owner=ada, name=f"player-{LONG}")
    services.entry_create(competition=competition, bot=player)
    services.competition_start(competition=competition, send=None)
    play_all(competition)
    match = competition.matches.order_by("id").first()
    first, second = competition.entries.order_by("id")[:2]
    return {
        "round-robin": competition.pk,
        "compared": f"?a={first.pk}&b={second.pk}",
        "house-bot": competition.entries.exclude(bot=player).first().bot_id,
        "match": match.pk,
        "game": match.game_records.order_by("index").first().pk,
    }


def _knockout(olga) -> dict[str, int]:
    """A single-elimination tournament of eight half played: its bracket fills in."""
    competition = make_competition(
        olga, name="Spring cup", variant="money-jordan", format="single-elimination",
        games=2, entries=8, start=True, prefix="cup-",
    )  # fmt: skip
    for _ in range(5):
        play_one(competition)
    waiting = competition.matches.filter(status__in=WAITING).order_by("id").first()
    execution.match_claim(match_id=waiting.pk, claimed_by="test/1/task")
    gave_up = f"OSError: the bot store did not answer for {LONG} ({'x' * 80})"
    assert execution.match_fail(match_id=waiting.pk, claimed_by="test/1/task", error=gave_up)
    return {"knockout": competition.pk, "failed-match": waiting.pk}


def _other_formats(olga) -> dict[str, int]:
    """A swiss tournament and a double-elimination one, a few matches played in each."""
    ids = {}
    for format, rounds in (("swiss", 3), ("double-elimination", None)):
        competition = make_competition(
            olga, name=f"Cup ({format})", variant="money-jordan", format=format, games=2,
            entries=6, start=True, prefix=f"{format}-", rounds_planned=rounds,
        )  # fmt: skip
        for _ in range(4):
            play_one(competition)
        ids[format] = competition.pk
    return ids


def _league(olga) -> dict[str, int]:
    """A finished league season of two divisions of four, and its next season (a draft)."""
    league = make_competition(
        olga, name="Club league", kind="league-season", variant="money-jordan", games=2,
        division_size=4, promote=1, entries=8, start=True, prefix="league-",
    )  # fmt: skip
    play_all(league)
    assert Competition.objects.get(pk=league.pk).status == Competition.Status.FINISHED
    second = services.league_next_season(competition=league, by=olga)
    return {"league": league.pk, "league-next": second.pk}


def _teams(olga) -> dict[str, int]:
    """A round robin of fixed teams of two at maniglia, played."""
    competition = make_competition(
        olga, name="Pairs", variant="maniglia-4-partners", games=4, partnerships="fixed"
    )
    names = ("lead", "partner", "east", "west")
    lead, partner, east, west = (
        Bot.objects.create(name=f"team-{n}-{LONG}", builtin="random") for n in names
    )
    services.entry_create(competition=competition, bot=lead, partner=partner)
    services.entry_create(competition=competition, bot=east, partner=west)
    services.competition_start(competition=competition, send=None)
    play_all(competition)
    return {"teams": competition.pk}


def _ladder(olga) -> dict[str, int]:
    """A public ladder with a few matches played (its organisers' collusion report), and
    a three-seat one whose tables have a third side to watch."""
    ladder = open_ladder(olga)
    three = make_competition(
        olga, name="Manni ladder", kind="ladder", format="ladder", games=3, entries=5,
        start=True, prefix="ladder-",
    )  # fmt: skip
    for _ in range(3):
        play_one(three)
    return {"ladder": ladder.pk, "three-seat-ladder": three.pk}


def _draft(olga) -> dict[str, int]:
    """A competition not started yet, two entries in."""
    return {"draft": make_competition(olga, name="Autumn open", entries=2, prefix="draft-").pk}


def _live_match(olga) -> dict[str, int]:
    """A match claimed by a worker, its first game some moves in, published live."""
    competition = make_competition(
        olga, name="Live night", games=3, entries=3, start=True, prefix="live-"
    )
    match = competition.matches.filter(status=Match.Status.PENDING).order_by("id").first()
    match = execution.match_claim(match_id=match.pk, claimed_by="test/1/task")
    assert settings.CARDROOM_LIVE_AFTER_S == 0, "publish at once"
    publisher = live.live_publisher(match=match)
    state = games.load("manni-basic").new_game(7)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    publisher.action_applied(0, state)
    return {"live": competition.pk, "live-match": match.pk}
