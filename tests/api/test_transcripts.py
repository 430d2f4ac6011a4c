"""``GET /api/games/{id}/transcript/?seat=N``: a seat's transcript, to whom it belongs.

The seat's bot owner and staff get it at once; anyone who may see every hand of
the game gets it once the competition has ended; everyone else gets a 404, as
for anything hidden. A transcript downloaded here and replayed with ``manage.py
match --replay`` tells the same bot from a changed one.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

import games
from bots import protocol, sandbox
from bots.models import BotVersion
from bots.referee import ProcessPlayer
from bots.referee.transcript import parse_transcript
from bots.services import bot_create, bot_version_upload
from tests.api.conftest import client_for
from tests.factories import (
    RAW_BOT,
    make_bot,
    make_competition,
    make_match,
    one_process,
    passed,
    raw_bot,
)
from tests.workers import SERVICES
from tournaments import services
from tournaments.models import Competition, GameRecord
from tournaments.worker import execution, tasks

pytestmark = pytest.mark.django_db


def url(game: GameRecord, seat) -> str:
    return f"/api/games/{game.pk}/transcript/?seat={seat}"


def decisions_of(record: dict, seat: int) -> int:
    """How often ``seat`` had more than one legal action in the game of ``record``."""
    state = games.load(record["variant"], **record["options"]).new_game(
        record["seed"], dealer=record["dealer"], decks=record["decks"]
    )
    count = 0
    for label in record["actions"]:
        count += state.current_player() == seat and len(state.legal_actions()) > 1
        state.apply(label)
    return count


def test_the_owner_gets_the_transcript_of_their_seat_at_once(league, as_alice):
    game = league["done"].game_records.get(index=1)

    response = as_alice.get(url(game, 0))

    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/x-ndjson"
    assert f'filename="game-{game.pk}-seat-0.jsonl"' in response["Content-Disposition"]
    transcript = parse_transcript(response.content)
    assert transcript.header["bot"] == "alpha" and transcript.header["seat"] == 0
    assert transcript.header["game_id"] == game.pk and transcript.header["game"] == 1
    assert len(transcript.decisions()) == decisions_of(game.record(), 0) > 0
    kinds = [line["sent"]["type"] for line in transcript.lines if "sent" in line]
    assert kinds[0] == "hello" and kinds[-2:] == ["result", "bye"]
    assert transcript.lines[0]["sent"]["time_control"] == {"move_ms": 2_000, "bank_ms": 20_000}
    assert not {"seed", "decks", "record"} & set(transcript.header)  # nothing of the deal


def test_another_user_gets_a_404_for_a_seat_not_theirs_while_it_runs(league, as_bob, anon):
    game = league["done"].game_records.get(index=0)

    assert as_bob.get(url(game, 0)).status_code == 404
    assert anon.get(url(game, 0)).status_code == 404
    assert as_bob.get(url(game, 1)).status_code == 200  # bob's own seat


def test_staff_get_every_seat_at_once(league, as_staff):
    game = league["done"].game_records.get(index=0)

    assert [as_staff.get(url(game, seat)).status_code for seat in range(3)] == [200] * 3


def test_after_the_end_those_with_the_full_view_get_every_seat(league, anon, as_bob, as_organiser):
    game = league["done"].game_records.get(index=0)
    competition = league["competition"]
    Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.FINISHED)

    assert as_organiser.get(url(game, 0)).status_code == 200  # organisers: the full view
    assert anon.get(url(game, 0)).status_code == 404  # full replays not allowed
    assert as_bob.get(url(game, 0)).status_code == 404
    Competition.objects.filter(pk=competition.pk).update(full_replays_after_end=True)
    assert anon.get(url(game, 0)).status_code == 200
    assert as_bob.get(url(game, 2)).status_code == 200


@pytest.mark.parametrize("seat", [None, "", "x", "-1", "3", "1.0", "²", "99999999999"])
def test_a_bad_seat_is_a_400_naming_it(league, as_staff, seat):
    game = league["done"].game_records.get(index=0)
    path = f"/api/games/{game.pk}/transcript/" + ("" if seat is None else f"?seat={seat}")

    response = as_staff.get(path)

    assert response.status_code == 400
    assert "0 to 2" in response.json()["seat"][0]


def test_no_transcript_of_a_hidden_game(league, alice, as_alice, organiser):
    running = GameRecord.objects.create(
        match=league["running"], index=0, scores=[0, 0, 0], ranking=[1, 1, 1],
        data=league["done"].game_records.get(index=0).data,
    )  # fmt: skip
    assert as_alice.get(url(running, 0)).status_code == 404  # the match is still played

    private = make_competition(organiser, name="Private", is_public=False, games=6)
    entries = [
        services.entry_create(competition=private, bot=make_bot(user, f"p{i}"), by=None)
        for i, user in enumerate([organiser, organiser, organiser])
    ]
    game = make_match(private, entries, done=True).game_records.get(index=0)
    assert as_alice.get(url(game, 0)).status_code == 404
    assert client_for(organiser).get(url(game, 0)).status_code == 200  # the owner


def test_a_duplicate_match_names_the_bot_that_sat_at_the_seat_in_that_game(league, alice):
    """Duplicate: the bots move round the table, so seat 0 of the second game is the
    second bot's (bots.referee.match.schedule)."""
    competition = league["competition"]
    Competition.objects.filter(pk=competition.pk).update(duplicate=True, games_per_match=3)
    game = league["done"].game_records.get(index=1)
    as_alice = client_for(alice)

    seats = {
        seat: as_alice.get(url(game, seat)).status_code for seat in range(3)
    }  # alice's alpha is player 0: at game 1 it sits at seat 1

    assert seats == {0: 404, 1: 200, 2: 404}
    transcript = parse_transcript(as_alice.get(url(game, 1)).content)
    assert transcript.header["player"] == 0 and transcript.lines[0]["sent"]["seat"] == 1


# --- a real match, sandboxed ------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL")
@pytest.mark.skipif(not sandbox.available(), reason="needs the bot sandbox")
def test_a_downloaded_transcript_replays_same_for_the_bot_and_differently_for_a_change(
    tmp_path, settings, monkeypatch, capsys, django_user_model
):
    """An uploaded bot plays a match on the platform; its transcript, downloaded through
    the API, is every line it was sent, and ``manage.py match --replay`` finds no
    difference with the same bot and the first one with a changed bot."""
    settings.CARDROOM_BOT_CACHE_DIR = tmp_path / "bot-cache"
    sent: list[bytes] = []
    send, close = ProcessPlayer._send, ProcessPlayer.close

    def recording_send(self, line):
        sent.append(line)
        send(self, line)

    def recording_close(self):
        if self.process is not None and not getattr(self, "_bye_noted", False):
            self._bye_noted = True
            sent.append(protocol.encode(protocol.bye()))
        close(self)

    monkeypatch.setattr(ProcessPlayer, "_send", recording_send)
    monkeypatch.setattr(ProcessPlayer, "close", recording_close)
    owner = django_user_model.objects.create_user(username="author")
    bot = bot_create(owner=owner, name="first-legal")
    code = RAW_BOT.replace("FAULT_AT", "0").replace("FAULT", "pass").encode()
    version = bot_version_upload(bot=bot, filename="bot.py", content=code)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
    passed(version, "money-jordan")
    competition = make_competition(variant="money-jordan", entries=1, games=2, duplicate=False)
    services.entry_create(competition=competition, bot=bot)
    match = services.competition_start(competition=competition, send=None)[0]

    assert tasks.match_run.apply(args=[match.pk]).get() == execution.RECORDED

    seat = match.seats.get(entry__bot=bot).seat
    files = []
    for game in match.game_records.order_by("index"):
        response = client_for(owner).get(url(game, seat))
        assert response.status_code == 200, response.content
        files.append(tmp_path / f"game-{game.index}.jsonl")
        files[-1].write_bytes(response.content)
    transcripts = [parse_transcript(f.read_bytes()) for f in files]
    assert one_process(transcripts, delta=False) == sent  # every line, byte for byte
    assert transcripts[0].header["time_control"] == {
        "move_ms": competition.move_ms, "bank_ms": competition.bank_ms
    }  # fmt: skip
    capsys.readouterr()

    # The changed bot answers differently at the first decision with a choice (the
    # deals are secret, so which game and decision that is varies from run to run).
    file, at, answer = next(
        (file, k, answer)
        for file, transcript in zip(files, transcripts, strict=True)
        for k, (act, answer) in enumerate(transcript.decisions(), start=1)
        if len(act["legal"]) > 1
    )
    call_command("match", "--replay", str(file), str(raw_bot(tmp_path / "same")))
    assert "same answers at every decision" in capsys.readouterr().out
    changed = raw_bot(tmp_path / "changed", "other-choice", at=at)
    with pytest.raises(SystemExit) as exit_:
        call_command("match", "--replay", str(file), str(changed))
    out = capsys.readouterr().out
    assert exit_.value.code == 1 and f"first difference at decision {answer['decision']}," in out


def test_a_play_off_game_is_numbered_and_seated_within_its_set(league, as_staff):
    """A knockout's play-off set is another run of the referee: its games count from 0
    and, in duplicate, rotate the bots as a match of that many games does."""
    competition, match = league["competition"], league["done"]
    Competition.objects.filter(pk=competition.pk).update(duplicate=True, games_per_match=3)
    data = match.game_records.get(index=0).data
    for index in (3, 4, 5):
        GameRecord.objects.create(
            match=match, index=index, playoff=1, scores=[0, 0, 0], ranking=[1, 1, 1],
            statuses=[{"status": "ok", "reason": ""}] * 3, data=data,
        )  # fmt: skip
    game = match.game_records.get(index=4)

    transcript = parse_transcript(as_staff.get(url(game, 0)).content)

    assert transcript.header["game"] == 1 and transcript.header["player"] == 2
    assert transcript.lines[1]["sent"]["game"] == 1
