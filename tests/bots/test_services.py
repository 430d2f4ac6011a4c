"""Bot services and selectors against the real database: create, upload, validate, built-ins."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import threading
import zipfile
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, connections, transaction

import games
from bots import services, validation
from bots.builtin import names as builtin_names
from bots.models import Bot, BotBlob, BotVersion
from bots.referee import TimeControl
from bots.sandbox import Limits
from bots.selectors import bot_version_report, bots_for_user, version_for_play
from bots.services import (
    bot_create,
    bot_version_path,
    bot_version_upload,
    bot_version_validate,
    builtin_bots_ensure,
    validation_run,
)
from bots.validation import report_lines
from tournaments.models import Competition
from tournaments.services import match_wall_ms

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"
NODE = shutil.which("node", path="/usr/bin:/bin")

CRASHING_BOT = b"""\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        raise RuntimeError("this bot cannot count")
"""

ILLEGAL_BOT = b"""\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": "play ZZ"}), flush=True)
    elif message["type"] == "bye":
        break
"""


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def example_python_zip() -> bytes:
    return zip_of({"cheap-winner/bot.py": (EXAMPLES / "python" / "bot.py").read_bytes()})


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if not p.is_dir())


@pytest.fixture
def media(settings, tmp_path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture(autouse=True)
def cache_dir(settings, tmp_path) -> Path:
    """This machine's bot cache, private to the test."""
    settings.CARDROOM_BOT_CACHE_DIR = tmp_path / "bot-cache"
    return settings.CARDROOM_BOT_CACHE_DIR


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="ada", password="x")


@pytest.fixture
def bot(user, media) -> Bot:
    return bot_create(owner=user, name="cheap-winner", description="follows cheaply")


# --- bot_create ---------------------------------------------------------------------------


def test_bot_create_makes_a_bot_for_its_owner(user):
    bot = bot_create(owner=user, name="my_bot-2", description="first")

    assert (bot.owner, bot.name, bot.description, bot.builtin) == (user, "my_bot-2", "first", "")


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "ünï", "a/b"])
def test_bot_create_refuses_a_name_that_is_not_a_slug(user, name):
    with pytest.raises(ValidationError) as error:
        bot_create(owner=user, name=name)

    assert "not a valid bot name" in error.value.message_dict["name"][0]
    assert not Bot.objects.filter(builtin="").exists()


def test_bot_names_are_unique_per_owner(user, django_user_model):
    bot_create(owner=user, name="twin")
    other = django_user_model.objects.create_user(username="bob", password="x")

    with pytest.raises(ValidationError) as error:
        bot_create(owner=user, name="twin")
    bot_create(owner=other, name="twin")

    assert error.value.message_dict == {"name": ["You already have a bot named 'twin'."]}
    assert Bot.objects.filter(name="twin").count() == 2


# --- bot_version_upload -------------------------------------------------------------------


def test_uploads_get_consecutive_numbers_and_go_to_the_store_not_to_disk(bot, media, cache_dir):
    content = example_python_zip()

    first = bot_version_upload(bot=bot, filename="cheap.zip", content=content)
    second = bot_version_upload(bot=bot, filename="v2.py", content=b"print(2)\n")

    assert [first.number, second.number] == [1, 2]
    assert (first.runtime, first.entry_point, first.size) == ("python", "bot.py", len(content))
    assert first.sha256 == hashlib.sha256(content).hexdigest()
    assert first.status == second.status == BotVersion.Status.PENDING
    assert (first.upload_name, second.upload_name) == ("cheap.zip", "v2.py")
    assert bytes(BotBlob.objects.get(pk=first.sha256).content) == content
    assert not first.archive and not media.exists()  # nothing written under MEDIA_ROOT
    assert not cache_dir.exists()  # the web tier unpacks nothing to keep
    tree = bot_version_path(version=first)  # what a worker runs: its own cached copy
    assert tree.is_relative_to(cache_dir) and (tree / "bot.py").is_file()
    assert json.loads((bot_version_path(version=second) / "bot.json").read_text())["entry"] == (
        "v2.py"
    )
    assert first.validation_report["upload"]["file_count"] == 1


def test_two_versions_with_the_same_bytes_share_one_blob(bot):
    one = bot_version_upload(bot=bot, filename="bot.py", content=b"print(1)\n")
    two = bot_version_upload(bot=bot, filename="bot.py", content=b"print(1)\n")

    assert one.sha256 == two.sha256
    assert BotBlob.objects.filter(pk=one.sha256).count() == 1
    assert bot_version_path(version=one) == bot_version_path(version=two)


def test_a_refused_upload_leaves_nothing_behind(bot, media):
    with pytest.raises(ValidationError) as error:
        bot_version_upload(bot=bot, filename="slip.zip", content=zip_of({"../x.py": b""}))

    assert "leaves the archive's directory" in error.value.message_dict["file"][0]
    assert not BotVersion.objects.filter(bot__builtin="").exists()
    assert not BotBlob.objects.exists()
    assert not media.exists()


def test_an_upload_failing_after_unpacking_leaves_nothing_behind(bot, media, monkeypatch):
    def fail(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(BotVersion, "save", fail)
    with pytest.raises(RuntimeError, match="went away"):
        bot_version_upload(bot=bot, filename="bot.py", content=b"print(1)\n")
    monkeypatch.undo()

    assert not BotVersion.objects.filter(bot__builtin="").exists()
    assert not BotBlob.objects.exists()  # stored in the same transaction, rolled back with it
    assert not media.exists()
    assert bot_version_upload(bot=bot, filename="bot.py", content=b"print(1)\n").number == 1


def test_an_upload_rolled_back_with_the_callers_transaction_leaves_no_blob(bot):
    with pytest.raises(RuntimeError), transaction.atomic():
        bot_version_upload(bot=bot, filename="old.py", content=b"print('old')\n")
        raise RuntimeError("the caller's transaction fails")

    version = bot_version_upload(bot=bot, filename="new.py", content=b"print('new')\n")

    assert version.number == 1
    tree = bot_version_path(version=version)
    assert sorted(p.name for p in tree.iterdir()) == ["bot.json", "new.py"]
    assert list(BotBlob.objects.values_list("sha256", flat=True)) == [version.sha256]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs row locks (PostgreSQL)")
def test_concurrent_uploads_of_one_bot_get_distinct_consecutive_numbers(bot):
    start = threading.Barrier(4)
    numbers, errors = [], []

    def upload(i: int) -> None:
        try:
            start.wait()
            version = bot_version_upload(bot=bot, filename=f"v{i}.py", content=b"print(1)\n")
            numbers.append(version.number)
        except Exception as error:
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert sorted(numbers) == [1, 2, 3, 4]
    for version in BotVersion.objects.filter(bot=bot):
        assert (bot_version_path(version=version) / "bot.json").is_file()


def test_a_builtin_bot_takes_no_upload(media):
    random_bot = next(b for b in builtin_bots_ensure() if b.builtin == "random")

    with pytest.raises(ValidationError, match="built-in"):
        bot_version_upload(bot=random_bot, filename="bot.py", content=b"")


# --- bot_version_validate -----------------------------------------------------------------


def test_validation_marks_the_zipped_python_example_ready(bot):
    version = bot_version_upload(bot=bot, filename="cheap.zip", content=example_python_zip())

    version = bot_version_validate(version=version, variant="manni-basic")

    version.refresh_from_db()
    report = version.validation_report
    assert version.status == BotVersion.Status.READY, report
    assert report["ok"] is True
    assert report["statuses"] == [{"status": "ok", "reason": ""}] * 6  # a ladder match's
    assert report["reasons"] == []
    found = report["variants"]["manni-basic"]
    assert len(found["opponents"]) == 2
    assert {o.removeprefix("builtin:") for o in found["opponents"]} <= set(builtin_names())
    assert report["variant"] == "manni-basic" and report["duration_s"] > 0
    assert report["upload"]["kind"] == "zip"
    assert report["passed"] == ["manni-basic"]


@pytest.mark.slow
def test_an_undeclared_bot_is_validated_in_every_variant(bot):
    version = bot_version_upload(bot=bot, filename="cheap.zip", content=example_python_zip())

    version = bot_version_validate(version=version)

    assert version.status == BotVersion.Status.READY, version.validation_report["reasons"]
    assert list(version.validation_report["variants"]) == games.variants()
    assert sorted(version.passes.values_list("variant", flat=True)) == games.variants()


def test_a_declared_bot_is_validated_in_its_variants_only(bot):
    content = zip_of(
        {
            "bot.py": (EXAMPLES / "python" / "bot.py").read_bytes(),
            "bot.json": b'{"entry": "bot.py", "variants": ["money-jordan", "money-syria"]}',
        }
    )
    version = bot_version_upload(bot=bot, filename="money.zip", content=content)
    assert version.variants == ["money-jordan", "money-syria"]

    version = bot_version_validate(version=version)

    assert version.status == BotVersion.Status.READY, version.validation_report["reasons"]
    assert list(version.validation_report["variants"]) == ["money-jordan", "money-syria"]
    assert version_for_play(bot=bot, variant="money-jordan") == version
    assert version_for_play(bot=bot, variant="manni-basic") is None


def test_validation_plays_a_real_competitions_time_control_and_limits(bot):
    version = bot_version_upload(
        bot=bot, filename="bot.py", content=(EXAMPLES / "python" / "bot.py").read_bytes()
    )

    version = bot_version_validate(version=version, variant="money-jordan")

    found = version.validation_report["variants"]["money-jordan"]
    new = Competition(variant="money-jordan")  # what an organiser gets by default
    assert found["time_control"]["move_ms"] == new.move_ms
    assert found["time_control"]["bank_ms"] == new.bank_ms
    wall_ms = match_wall_ms(2)  # what a real two-seat match gives a bot
    assert found["time_control"]["match_wall_ms"] == wall_ms
    assert found["limits"]["cpu_seconds"] == Limits().cpu_seconds  # a real match's
    lines = report_lines(version.validation_report)
    assert lines[0].startswith("money-jordan: passed (4 games against ")
    assert f"limits {found['limits']['cpu_seconds']} CPU seconds" in lines[0]
    assert "2,000 ms a move and a bank of 20,000 ms" in lines[-1]


HAND_LOGGER = b"""import json, sys
seen = set()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        if message["game"] not in seen:
            seen.add(message["game"])
            hand = sorted(message["observation"]["hand"])
            print("HAND", message["game"], " ".join(hand), file=sys.stderr, flush=True)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
"""


def logged_hands(report: dict, variant: str) -> set[str]:
    tail = report["variants"][variant]["stderr_tail"]
    return {line for line in tail.splitlines() if line.startswith("HAND ")}


def test_two_validations_of_one_upload_deal_different_games(bot):
    version = bot_version_upload(bot=bot, filename="hands.py", content=HAND_LOGGER)

    first = bot_version_validate(version=version, variant="manni-basic").validation_report
    again = bot_version_validate(version=version, variant="manni-basic", revalidate=True)

    second = again.validation_report
    assert first["ok"] and second["ok"], (first["reasons"], second["reasons"])
    assert len(logged_hands(first, "manni-basic")) == 6  # a hand a game, every game
    assert logged_hands(first, "manni-basic").isdisjoint(logged_hands(second, "manni-basic"))
    seeds = [report["variants"]["manni-basic"]["seed"] for report in (first, second)]
    assert seeds[0] != seeds[1]


def test_validation_deals_follow_from_the_servers_secret_and_a_fresh_nonce_only(
    bot, settings, monkeypatch
):
    ours = bot_version_upload(bot=bot, filename="hands.py", content=HAND_LOGGER)
    other = bot_version_upload(bot=bot, filename="crash.py", content=CRASHING_BOT)

    def seed(version: BotVersion) -> int:
        return services.validation_plans(version=version, variants=["manni-basic"])[0].seed

    fresh = {seed(ours) for _ in range(5)}
    monkeypatch.setattr(validation, "new_nonce", lambda: b"\x07" * validation.NONCE_BYTES)
    same_nonce = [seed(ours), seed(ours), seed(other)]
    settings.SECRET_KEY = "another installation's secret key"
    elsewhere = seed(ours)

    assert len(fresh) == 5  # a new nonce at every validation
    assert len(set(same_nonce)) == 1  # the upload plays no part in it
    assert elsewhere != same_nonce[0]  # the server's secret does


SLOW_BOT = b"""import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        end = time.process_time() + 0.4  # thinks 0.4 s of CPU a move, within 2,000 ms
        while time.process_time() < end:
            pass
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
"""

SPINNER = b"""import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        while True:
            pass
"""


@pytest.mark.slow
def test_a_bot_thinking_0_4_s_a_move_passes_validation(bot):
    version = bot_version_upload(bot=bot, filename="slow.py", content=SLOW_BOT)

    version = bot_version_validate(version=version, variant="money-jordan")

    report = version.validation_report
    assert version.status == BotVersion.Status.READY, report["reasons"]
    assert report["duration_s"] > 4  # it did think: ten or more decisions of 0.4 s
    limits = report["variants"]["money-jordan"]["limits"]
    assert limits["cpu_seconds"] > 60  # no longer a fixed 60 CPU seconds whatever it plays


def test_a_bot_spinning_past_its_cpu_limit_is_reported_killed_by_that_limit(bot):
    version = bot_version_upload(bot=bot, filename="spin.py", content=SPINNER)
    slack = TimeControl(move_ms=30_000, bank_ms=30_000)  # the CPU limit comes first

    version = bot_version_validate(
        version=version,
        variant="money-jordan",
        games_count=1,
        time_control=slack,
        limits=Limits(cpu_seconds=2),
    )

    report = version.validation_report
    assert version.status == BotVersion.Status.REJECTED, report
    assert report["reasons"] == [
        "money-jordan: game 1: killed: over its CPU limit of 2 CPU seconds"
    ]
    assert "exit 137" not in " ".join(report_lines(report))
    assert "crashed" not in " ".join(report_lines(report))


@pytest.mark.skipif(NODE is None, reason="no /usr/bin/node on this host")
def test_validation_marks_a_single_file_node_bot_ready(bot):
    content = (EXAMPLES / "node" / "bot.js").read_bytes()
    version = bot_version_upload(bot=bot, filename="random.js", content=content)

    version = bot_version_validate(version=version)

    assert version.runtime == "node"
    assert version.status == BotVersion.Status.READY, version.validation_report


def test_validation_rejects_a_crashing_bot_and_keeps_its_stderr(bot):
    version = bot_version_upload(bot=bot, filename="crash.py", content=CRASHING_BOT)

    version = bot_version_validate(version=version, variant="manni-basic")

    report = version.validation_report
    assert version.status == BotVersion.Status.REJECTED
    assert [s["status"] for s in report["statuses"]] == ["crash"] * 6  # out of the match
    assert report["reasons"][0].startswith("manni-basic: game 1: crash:")
    assert "RuntimeError: this bot cannot count" in report["stderr_tail"]
    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.REJECTED


def test_validation_rejects_a_bot_playing_illegal_actions(bot):
    version = bot_version_upload(bot=bot, filename="illegal.py", content=ILLEGAL_BOT)

    version = bot_version_validate(version=version, variant="manni-basic")

    assert version.status == BotVersion.Status.REJECTED
    assert [s["status"] for s in version.validation_report["statuses"]] == ["illegal"] * 6
    assert "play ZZ" in version.validation_report["reasons"][1]


def test_validation_plays_the_variant_it_is_given(bot):
    version = bot_version_upload(bot=bot, filename="cheap.zip", content=example_python_zip())

    version = bot_version_validate(version=version, variant="money-egypt", games_count=1)

    assert version.status == BotVersion.Status.READY, version.validation_report
    assert list(version.validation_report["variants"]) == ["money-egypt"]
    assert version.validation_report["variants"]["money-egypt"]["games"] == 1


def test_without_a_sandbox_validation_rejects_and_says_why(bot, monkeypatch):
    version = bot_version_upload(bot=bot, filename="bot.py", content=ILLEGAL_BOT)
    monkeypatch.setattr(validation_run.sandbox, "available", lambda: False)

    version = bot_version_validate(version=version)

    assert version.status == BotVersion.Status.REJECTED
    assert "sandbox is unavailable" in version.validation_report["reasons"][0]


def test_validation_runs_once_unless_asked_again(bot, monkeypatch):
    version = bot_version_upload(bot=bot, filename="bot.py", content=ILLEGAL_BOT)
    monkeypatch.setattr(validation_run.sandbox, "available", lambda: False)
    bot_version_validate(version=version)
    monkeypatch.undo()

    again = bot_version_validate(version=BotVersion.objects.get(pk=version.pk))
    assert "the sandbox is unavailable" in again.validation_report["reasons"][0]
    forced = bot_version_validate(version=again, variant="manni-basic", revalidate=True)

    assert [s["status"] for s in forced.validation_report["statuses"]] == ["illegal"] * 6


def test_an_error_of_the_platform_puts_the_version_back_to_pending(bot, monkeypatch):
    version = bot_version_upload(bot=bot, filename="bot.py", content=ILLEGAL_BOT)

    def broken(*args, **kwargs):
        raise RuntimeError("referee bug")

    monkeypatch.setattr(validation, "play_match", broken)
    with pytest.raises(RuntimeError, match="referee bug"):
        bot_version_validate(version=version)

    assert BotVersion.objects.get(pk=version.pk).status == BotVersion.Status.PENDING


# --- built-ins ----------------------------------------------------------------------------


def test_builtin_bots_ensure_is_idempotent():
    first = builtin_bots_ensure()
    second = builtin_bots_ensure()

    assert [b.pk for b in first] == [b.pk for b in second]
    assert [b.builtin for b in second] == builtin_names()
    assert BotVersion.objects.count() == len(builtin_names())
    version = version_for_play(bot=second[0])
    assert (version.status, version.runtime) == ("ready", "builtin")
    with pytest.raises(ValueError, match="built-in version"):
        bot_version_path(version=version)
    with pytest.raises(ValueError, match="nothing to validate"):
        bot_version_validate(version=version)


# --- selectors ----------------------------------------------------------------------------


def test_version_for_play_is_the_newest_ready_one_unless_pinned(bot):
    v1, v2, v3 = (
        bot_version_upload(bot=bot, filename=f"v{i}.py", content=b"print(1)\n") for i in (1, 2, 3)
    )
    assert version_for_play(bot=bot) is None
    BotVersion.objects.filter(pk__in=[v1.pk, v2.pk]).update(status=BotVersion.Status.READY)

    assert version_for_play(bot=bot) == v2
    assert version_for_play(bot=bot, pinned=v1) == v1
    assert version_for_play(bot=bot, pinned=1) == v1
    assert version_for_play(bot=bot, pinned=v3) is None  # pinned but not ready


def test_bots_for_user_lists_only_their_bots_with_their_latest_number(bot, user, django_user_model):
    bot_version_upload(bot=bot, filename="v.py", content=b"print(1)\n")
    other = django_user_model.objects.create_user(username="bob", password="x")
    bot_create(owner=other, name="bobs")
    builtin_bots_ensure()

    mine = list(bots_for_user(user=user))

    assert [(b.name, b.latest_number, b.ready_count) for b in mine] == [("cheap-winner", 1, 0)]


def test_bot_version_report_separates_upload_and_validation(bot, monkeypatch):
    version = bot_version_upload(bot=bot, filename="bot.py", content=b"print(1)\n")
    assert bot_version_report(version=version)["validation"] is None
    monkeypatch.setattr(validation_run.sandbox, "available", lambda: False)
    bot_version_validate(version=version)

    report = bot_version_report(version=version)

    assert report["status"] == "rejected" and report["number"] == 1
    assert report["upload"]["command"] == ["python3", "/bot/bot.py"]
    assert report["validation"]["ok"] is False


def test_async_validation_is_queued_after_the_upload_commits(
    settings, tmp_path, django_capture_on_commit_callbacks
):
    """The upload answers at once, validating; a worker task validates after commit."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from bots.tasks import version_validate

    settings.MEDIA_ROOT = tmp_path
    user = get_user_model().objects.create_user("async", password="pw-123456789")
    client = APIClient()
    client.force_authenticate(user)
    bot = client.post("/api/bots/", {"name": "later"}, format="json").json()
    source = (Path(__file__).parents[2] / "bots" / "examples" / "python" / "bot.py").read_bytes()
    upload = SimpleUploadedFile("bot.py", source)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        answer = client.post(
            f"/api/bots/{bot['id']}/versions/", {"file": upload}, format="multipart"
        )
    assert answer.status_code == 201, answer.json()
    assert answer.json()["status"] == "validating"
    assert len(callbacks) == 1
    assert version_validate(answer.json()["id"]) == "ready"  # what the worker runs
    assert version_validate(10**9) == "missing"


def test_a_version_running_a_builtin_plays_every_variant(bot):
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        sha256="0" * 64,
        runtime=BotVersion.Runtime.BUILTIN,
        entry_point="builtin:random",
        status=BotVersion.Status.READY,
    )

    for variant in games.variants():
        assert version_for_play(bot=bot, variant=variant) == version
