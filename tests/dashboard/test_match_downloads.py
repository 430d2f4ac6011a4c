"""A match's downloads for its bots' owners: every transcript of their bot (a zip that
``manage.py match --replay`` takes as it is) and the bot's whole stderr, kept compressed
beyond the traces' cap within the owner's ``stderr_log_bytes`` allowance; 404 to others.

Real matches: an uploaded bot plays in the sandbox and the result is recorded in
PostgreSQL, as a worker does.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import zipfile

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from bots import sandbox
from bots.models import BotVersion, UserAllowance
from bots.services import bot_create, bot_version_upload
from tests.factories import logged_in, make_competition, make_user, passed, play_one
from tournaments import services
from tournaments.models import Match, MatchSeat, MatchStderrLog

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not sandbox.available(), reason="needs the bot sandbox"),
]

#: 2,000 numbered lines of 100 bytes on stderr when it starts (200,000 bytes), then the
#: first legal label at every decision, with one line of stderr each.
CHATTY_BOT = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        for i in range(2000):
            sys.stderr.write("line %06d %s\\n" % (i, "x" * 87))
        sys.stderr.flush()
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        sys.stderr.write("deciding among %d\\n" % len(message["legal"]))
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
"""
START_LINES = "".join(f"line {i:06d} {'x' * 87}\n" for i in range(2000))


@pytest.fixture(autouse=True)
def _bot_files(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.CARDROOM_BOT_CACHE_DIR = tmp_path / "bot-cache"


@pytest.fixture
def author(db):
    return make_user("author")


@pytest.fixture
def chatty(author):
    bot = bot_create(owner=author, name="chatty")
    version = bot_version_upload(bot=bot, filename="bot.py", content=CHATTY_BOT.encode())
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
    passed(version, "money-jordan")
    return bot


def played_match(bot, name: str = "Club night") -> tuple[Match, int]:
    """A done two-game money-jordan match of ``bot`` against a built-in, and its seat."""
    competition = make_competition(
        name=name, variant="money-jordan", entries=1, games=2, duplicate=False
    )
    services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition, send=None)
    match = play_one(competition)
    assert match.status == Match.Status.DONE
    return match, match.seats.get(entry__bot=bot).seat


def api_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_owner_downloads_all_of_a_200_kb_stderr_and_another_user_gets_404(author, chatty):
    match, seat = played_match(chatty)
    bob = make_user("bob")

    page = logged_in(author).get(f"/dashboard/matches/{match.pk}/").content.decode()
    web = logged_in(author).get(f"/dashboard/matches/{match.pk}/stderr-{seat}.log.gz")
    api = api_for(author).get(f"/api/matches/{match.pk}/stderr/?seat={seat}")
    detail = api_for(author).get(f"/api/matches/{match.pk}/").json()

    assert web.status_code == 200 and web["Content-Type"] == "application/gzip"
    text = gzip.decompress(web.content).decode()
    assert text.startswith(START_LINES)  # every one of the 2,000 lines, in order
    decisions = text[len(START_LINES) :].splitlines()
    assert decisions and all(re.fullmatch(r"deciding among \d+", d) for d in decisions)
    assert api.status_code == 200 and api.content == web.content
    (mine,) = [s for s in detail["seats"] if s["seat"] == seat]
    assert mine["full_log"]["written"] == mine["full_log"]["kept"] == len(text.encode())
    assert mine["full_log"]["url"].endswith(f"/api/matches/{match.pk}/stderr/?seat={seat}")
    # The tail every seat keeps lost the start; the traces never had it: only here.
    assert "line 000000" not in MatchSeat.objects.get(match=match, seat=seat).log
    assert f"/dashboard/matches/{match.pk}/stderr-{seat}.log.gz" in page

    other_page = logged_in(bob).get(f"/dashboard/matches/{match.pk}/").content.decode()
    assert (
        logged_in(bob).get(f"/dashboard/matches/{match.pk}/stderr-{seat}.log.gz").status_code == 404
    )
    assert api_for(bob).get(f"/api/matches/{match.pk}/stderr/?seat={seat}").status_code == 404
    assert APIClient().get(f"/api/matches/{match.pk}/stderr/?seat={seat}").status_code == 404
    assert "stderr-" not in other_page and "Full stderr" not in other_page
    (theirs,) = [
        s
        for s in api_for(bob).get(f"/api/matches/{match.pk}/").json()["seats"]
        if s["seat"] == seat
    ]
    assert theirs["full_log"] is None
    bad = api_for(author).get(f"/api/matches/{match.pk}/stderr/?seat=9")
    assert bad.status_code == 400 and "seat" in bad.json()


def test_the_transcripts_zip_from_the_page_replays_with_no_difference(
    author, chatty, tmp_path, capsys
):
    match, seat = played_match(chatty)
    bob = make_user("bob")
    page = logged_in(author).get(f"/dashboard/matches/{match.pk}/").content.decode()
    link = f"/dashboard/matches/{match.pk}/transcripts.zip"
    assert link in page and "Download all transcripts" in page

    response = logged_in(author).get(link)
    body = b"".join(response.streaming_content)
    api = api_for(author).get(f"/api/matches/{match.pk}/transcripts/")

    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(body)) as zf:
        names = sorted(zf.namelist())
        headers = [json.loads(zf.read(n).splitlines()[0]) for n in names]
    games = sorted(match.game_records.values_list("index", flat=True))
    assert names == [f"match-{match.pk}/game-{g}-player-{seat}.jsonl" for g in games]
    assert {h["player"] for h in headers} == {seat} and {h["bot"] for h in headers} == {"chatty"}
    assert api.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(api.streaming_content))) as zf:
        assert sorted(zf.namelist()) == names

    archive = tmp_path / f"match-{match.pk}-transcripts.zip"
    archive.write_bytes(body)
    same = tmp_path / "same" / "bot.py"
    same.parent.mkdir()
    same.write_text(CHATTY_BOT)
    capsys.readouterr()
    call_command("match", "--replay", str(archive), str(same))  # no SystemExit: all agreed
    out = capsys.readouterr().out
    decisions = sum(
        1 for n in names for line in zipfile.ZipFile(archive).read(n).splitlines()
        if b'"answered"' in line
    )  # fmt: skip
    assert decisions > 0
    assert out.splitlines()[-1] == (
        f"replayed {same} on {len(games)} games under {archive}: {decisions} decisions "
        "compared, 0 answered differently (in 0 games), 0 files skipped"
    )

    assert logged_in(bob).get(link).status_code == 404
    assert api_for(bob).get(f"/api/matches/{match.pk}/transcripts/").status_code == 404
    assert (
        "transcripts.zip"
        not in logged_in(bob).get(f"/dashboard/matches/{match.pk}/").content.decode()
    )


def test_the_allowance_drops_the_oldest_full_log_to_keep_the_newest(author, chatty):
    first, seat = played_match(chatty, "Monday")
    size = MatchStderrLog.objects.get(seat__match=first).size
    assert 0 < size < 200_000  # compressed
    UserAllowance.objects.create(user=author, allowance="stderr_log_bytes", value=size * 3 // 2)

    second, seat2 = played_match(chatty, "Tuesday")

    old = MatchStderrLog.objects.get(seat__match=first)
    new = MatchStderrLog.objects.get(seat__match=second)
    assert old.dropped_at is not None and old.size == 0 and bytes(old.data) == b""
    assert new.dropped_at is None and new.size > 0
    assert (
        logged_in(author).get(f"/dashboard/matches/{first.pk}/stderr-{seat}.log.gz").status_code
        == 404
    )
    page = logged_in(author).get(f"/dashboard/matches/{first.pk}/").content.decode()
    assert "its full log was dropped on" in page
    fresh = logged_in(author).get(f"/dashboard/matches/{second.pk}/stderr-{seat2}.log.gz")
    assert gzip.decompress(fresh.content).decode().startswith(START_LINES)
    my_bots = logged_in(author).get("/bots/").content.decode()
    row = re.search(r'<tr id="allowance-stderr_log_bytes">(.*?)</tr>', my_bots, re.S).group(1)
    assert f'title="{new.size} bytes"' in row and f'title="{size * 3 // 2} bytes"' in row
    assert "oldest full stderr logs are dropped" in row


def test_a_log_larger_than_the_whole_allowance_is_not_kept(author, chatty):
    UserAllowance.objects.create(user=author, allowance="stderr_log_bytes", value=100)

    match, seat = played_match(chatty)

    log = MatchStderrLog.objects.get(seat__match=match)
    assert log.dropped_at is not None and log.size == 0
    assert (
        logged_in(author).get(f"/dashboard/matches/{match.pk}/stderr-{seat}.log.gz").status_code
        == 404
    )
    assert api_for(author).get(f"/api/matches/{match.pk}/stderr/?seat={seat}").status_code == 404
