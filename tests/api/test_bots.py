"""Bots and versions: owners see and change their own; download for owner and staff."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bots import sandbox
from bots.archive import DEFAULT_LIMITS
from bots.models import Bot, BotVersion
from bots.services import builtin_bots_ensure
from tests.api.conftest import results
from tests.factories import FIRST_LEGAL_BOT, make_bot

pytestmark = pytest.mark.django_db


def upload(client, bot_id: int, name: str = "bot.py", content: bytes = FIRST_LEGAL_BOT):
    return client.post(
        f"/api/bots/{bot_id}/versions/",
        {"file": SimpleUploadedFile(name, content)},
        format="multipart",
    )


def test_a_user_creates_a_bot_and_lists_only_their_own(as_alice, as_bob, bob):
    make_bot(bob, "bobs-bot")

    created = as_alice.post("/api/bots/", {"name": "my-bot", "description": "first try"})

    assert created.status_code == 201, created.content
    assert created.json()["owner"] == "alice"
    assert [b["name"] for b in results(as_alice.get("/api/bots/?builtin=false"))] == ["my-bot"]
    assert [b["name"] for b in results(as_bob.get("/api/bots/?builtin=false"))] == ["bobs-bot"]


def test_built_in_bots_are_listed_for_everyone_and_filterable(as_alice, alice):
    builtin_bots_ensure()
    make_bot(alice, "mine")

    builtin = results(as_alice.get("/api/bots/?builtin=true"))
    own = results(as_alice.get("/api/bots/?builtin=false"))

    assert builtin and all(b["builtin"] and b["owner"] is None for b in builtin)
    assert [b["name"] for b in own] == ["mine"]
    assert [b["name"] for b in results(as_alice.get("/api/bots/?name=MIN"))] == ["mine"]


def test_bot_names_are_checked(as_alice, alice):
    make_bot(alice, "taken")

    duplicate = as_alice.post("/api/bots/", {"name": "taken"})
    invalid = as_alice.post("/api/bots/", {"name": "no spaces!"})

    assert duplicate.status_code == 400 and "already" in duplicate.json()["name"][0]
    assert invalid.status_code == 400 and invalid.json()["name"]


def test_anonymous_sees_no_bots(anon, alice):
    bot = make_bot(alice, "secret")

    assert anon.get("/api/bots/").status_code == 401
    assert anon.get(f"/api/bots/{bot.pk}/").status_code == 401
    assert anon.post("/api/bots/", {"name": "x"}).status_code == 401


def test_another_users_bot_does_not_exist_for_you(as_bob, alice):
    bot = make_bot(alice, "secret")

    assert as_bob.get(f"/api/bots/{bot.pk}/").status_code == 404
    assert as_bob.get(f"/api/bots/{bot.pk}/versions/").status_code == 404
    assert upload(as_bob, bot.pk).status_code == 404
    assert BotVersion.objects.filter(bot=bot).count() == 1


def test_staff_see_every_bot(as_staff, alice):
    bot = make_bot(alice, "secret")

    assert as_staff.get(f"/api/bots/{bot.pk}/").json()["owner"] == "alice"


def test_upload_answers_at_once_with_a_validating_version(as_alice):
    bot_id = as_alice.post("/api/bots/", {"name": "uploader"}).json()["id"]

    response = upload(as_alice, bot_id)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["number"] == 1 and body["status"] == "validating" and body["runtime"] == "python"
    assert body["validation_report"]["upload"]["filename"] == "bot.py"
    assert upload(as_alice, bot_id).json()["number"] == 2
    listed = results(as_alice.get(f"/api/bots/{bot_id}/versions/"))
    assert [v["number"] for v in listed] == [2, 1]
    assert [v["status"] for v in listed] == ["validating", "validating"]
    assert "validation_report" not in listed[0]


def test_upload_is_validated_by_the_worker_task_after_commit(
    as_alice, django_capture_on_commit_callbacks, eager_celery, monkeypatch
):
    from bots.services import validation_run as services

    def not_here(*args, **kwargs):
        raise AssertionError("the upload request played the validation match")

    bot_id = as_alice.post("/api/bots/", {"name": "validated"}).json()["id"]
    with monkeypatch.context() as during_request:
        during_request.setattr(services, "_validation_match", not_here)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            response = upload(as_alice, bot_id)
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "validating"
    assert as_alice.get(f"/api/bots/{bot_id}/versions/1/").json()["status"] == "validating"

    for callback in callbacks:  # the commit: the task goes to the (eager) worker
        callback()

    detail = as_alice.get(f"/api/bots/{bot_id}/versions/1/").json()
    expected = "ready" if sandbox.available() else "rejected"  # no sandbox, no uploaded bot
    assert detail["status"] == expected, detail["validation_report"]
    assert detail["validation_report"]["ok"] is (expected == "ready")
    assert "queue" not in detail["validation_report"]
    assert detail["validation_report"]["upload"]["filename"] == "bot.py"


def test_a_crashing_upload_ends_rejected_with_its_report(
    as_alice, django_capture_on_commit_callbacks, eager_celery
):
    bot_id = as_alice.post("/api/bots/", {"name": "crasher"}).json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(as_alice, bot_id, content=b"raise SystemExit('no')\n")
    assert response.json()["status"] == "validating"

    detail = as_alice.get(f"/api/bots/{bot_id}/versions/1/").json()

    assert detail["status"] == "rejected"
    assert detail["validation_report"]["ok"] is False and detail["validation_report"]["reasons"]


def test_a_refused_upload_is_a_400_naming_the_problem_and_stores_nothing(as_alice, alice):
    bot = make_bot(alice, "careful", ready=False)

    not_a_program = upload(as_alice, bot.pk, "notes.txt", b"hello")
    empty = upload(as_alice, bot.pk, "bot.py", b"")
    no_file = as_alice.post(f"/api/bots/{bot.pk}/versions/", {}, format="multipart")
    corrupt_zip = upload(as_alice, bot.pk, "bot.zip", b"PK\x03\x04 not really")

    assert not_a_program.status_code == 400 and "notes.txt" in not_a_program.json()["file"][0]
    assert empty.status_code == 400 and empty.json()["file"]
    assert no_file.status_code == 400 and no_file.json()["file"]
    assert corrupt_zip.status_code == 400 and "zip" in corrupt_zip.json()["file"][0]
    assert list(bot.versions.values_list("number", flat=True)) == [1]


def test_an_oversized_upload_is_refused(as_alice, alice):
    bot = make_bot(alice, "big")
    content = b"#" * (DEFAULT_LIMITS.max_upload_bytes + 1)

    response = upload(as_alice, bot.pk, "bot.py", content)

    assert response.status_code in (400, 413)
    assert "bytes" in str(response.json())
    assert bot.versions.count() == 1


def test_built_in_bots_take_no_uploads(as_alice):
    bot = builtin_bots_ensure()[0]

    response = upload(as_alice, bot.pk)

    assert response.status_code == 403


def test_version_detail_holds_the_validation_report(as_alice, alice):
    bot = make_bot(alice, "reported")
    BotVersion.objects.filter(bot=bot).update(validation_report={"ok": True, "reasons": []})

    response = as_alice.get(f"/api/bots/{bot.pk}/versions/1/")

    assert response.status_code == 200
    assert response.json()["validation_report"] == {"ok": True, "reasons": []}
    assert as_alice.get(f"/api/bots/{bot.pk}/versions/9/").status_code == 404


def test_versions_filter_by_status(as_alice, alice):
    bot = make_bot(alice, "filtered")
    BotVersion.objects.create(bot=bot, number=2, sha256="1" * 64, runtime="python")

    pending = results(as_alice.get(f"/api/bots/{bot.pk}/versions/?status=pending"))
    bad = as_alice.get(f"/api/bots/{bot.pk}/versions/?status=sleeping")

    assert [v["number"] for v in pending] == [2]
    assert bad.status_code == 400 and "status" in bad.json()


def test_download_is_for_the_owner_and_staff(as_alice, as_bob, as_staff):
    bot_id = as_alice.post("/api/bots/", {"name": "downloadable"}).json()["id"]
    assert upload(as_alice, bot_id).status_code == 201
    url = f"/api/bots/{bot_id}/versions/1/download/"

    owner = as_alice.get(url)
    by_staff = as_staff.get(url)

    assert owner.status_code == 200
    assert b"".join(owner.streaming_content) == FIRST_LEGAL_BOT
    assert "attachment" in owner.headers["Content-Disposition"]
    assert by_staff.status_code == 200
    assert as_bob.get(url).status_code == 404


def test_built_in_versions_cannot_be_downloaded(as_alice):
    bot = builtin_bots_ensure()[0]

    response = as_alice.get(f"/api/bots/{bot.pk}/versions/1/download/")

    assert response.status_code == 403


def test_pagination_of_bots(as_alice, alice):
    for i in range(5):
        Bot.objects.create(owner=alice, name=f"bot-{i}")

    first = as_alice.get("/api/bots/?builtin=false&page_size=2").json()
    last = as_alice.get("/api/bots/?builtin=false&page_size=2&page=3").json()

    assert first["count"] == 5 and len(first["results"]) == 2 and first["next"]
    assert len(last["results"]) == 1 and last["next"] is None
    assert as_alice.get("/api/bots/?page=99").status_code == 404
