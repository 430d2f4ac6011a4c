"""A bot cannot tell its validation from a real match.

The hostile ``tell_seeker.py`` is uploaded, validated as every upload is, then entered in
a manni-basic ladder (the standing ladder's match: its games, the default clock, the
house bots ``random`` and ``greedy``) and played there. What each of its processes saw
(``TELLS`` lines on its stderr) must be the same kind in both: no hand it could deal
itself in advance, the same ``hello`` in shape and values, as many processes playing
as many games each from every seat, the same limits, environment, host name, files and
pace of the others. Before validations were dealt from a server secret and seated as a
real match, its validation hand was the one it predicted and its view differed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bots import sandbox
from bots.models import BotVersion
from bots.services import bot_create, bot_version_upload, bot_version_validate
from tests.factories import builtin_bots, make_competition, make_user
from tournaments import services
from tournaments.models import Match
from tournaments.selectors import ladders

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not sandbox.available(), reason="no sandbox on this host"),
]

HERE = Path(__file__).resolve().parent
VARIANT = "manni-basic"
#: What may differ between two processes of one match, or two matches, by chance.
PER_PROCESS = ("process", "seat", "player", "games", "predicted", "clock")


@pytest.fixture(autouse=True)
def private_dirs(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.CARDROOM_BOT_CACHE_DIR = tmp_path / "bot-cache"


def views(log: str) -> list[dict]:
    """What each process in ``log`` said it saw (``TELLS`` lines), in the order they began:
    its start line with ``games``, ``predicted`` (per game), ``pace`` (the last said)
    and ``clock`` (the last) from its lines of each game."""
    found: dict[str, dict] = {}
    for line in log.splitlines():
        if not line.startswith("TELLS "):
            continue
        said = json.loads(line.removeprefix("TELLS "))
        view = found.setdefault(said["process"], {"games": [], "predicted": []})
        if "game" in said:
            view["games"].append(said["game"])
            view["predicted"].append(said["predicted"])
            view["pace"] = said["pace"] or view.get("pace")
            view["clock"] = said["clock"]
        else:
            view.update(said)
    assert found, f"the bot reported nothing; its log ends: {log[-2000:]!r}"
    assert all("hello" in view for view in found.values()), f"a start line was cut: {found}"
    return list(found.values())


def kind(view: dict) -> str:
    """What a process saw, less what differs by chance: the tells it could act on."""
    return json.dumps({k: v for k, v in view.items() if k not in PER_PROCESS}, sort_keys=True)


def validated_seeker() -> tuple[BotVersion, list[dict]]:
    owner = make_user("mallory")
    bot = bot_create(owner=owner, name="tell-seeker")
    content = (HERE / "tell_seeker.py").read_bytes()
    version = bot_version_upload(bot=bot, filename="tell_seeker.py", content=content)

    version = bot_version_validate(version=version, variant=VARIANT)

    assert version.status == BotVersion.Status.READY, version.validation_report["reasons"]
    return version, views(version.validation_report["variants"][VARIANT]["stderr_tail"])


def ladder_views(version: BotVersion) -> list[dict]:
    """The seeker's views in a match of a manni-basic ladder like the standing one."""
    standing = next(s for s in ladders.STANDING_LADDERS if s.variant == VARIANT)
    ladder = make_competition(
        name="Manni ladder",
        kind="ladder",
        variant=VARIANT,
        format="ladder",
        games=standing.games_per_match,
    )
    for bot in [version.bot, *builtin_bots(1, "random"), *builtin_bots(1, "greedy")]:
        services.entry_create(competition=ladder, bot=bot)
    services.competition_start(competition=ladder, send=None)
    match = Match.objects.get(competition=ladder)
    seats = list(match.seats.order_by("seat").values_list("entry__bot_id", flat=True))

    played = services.match_play(match=match)

    return views(played.logs[seats.index(version.bot_id)])


def test_a_bot_sees_its_validation_as_it_sees_a_real_match():
    version, validation = validated_seeker()
    real = ladder_views(version)

    # It could not deal its validation hands in advance (nor its match's).
    assert not any(p for view in validation for p in view["predicted"]), validation
    assert not any(p for view in real for p in view["predicted"]), real
    # One process a seat rotation, each playing the same games of the match from its seat.
    assert sorted(v["seat"] for v in validation) == sorted(v["seat"] for v in real)
    assert sorted(v["games"] for v in validation) == sorted(v["games"] for v in real)
    assert len({v["player"] for v in validation}) == 1  # one bot, one place at the table
    # The hello (shape, options, clock), the sandbox (limits, environment, host name,
    # files, uptime), the others' pace: every process saw the same in both.
    assert {kind(v) for v in validation} == {kind(v) for v in real}
    assert len({kind(v) for v in real}) == 1
    # The time of day it reads is now in both: nothing tells an hour of validations.
    assert abs(validation[-1]["clock"] - real[-1]["clock"]) < 600
