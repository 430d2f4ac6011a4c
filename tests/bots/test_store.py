"""The bot store and a worker's cache: uploads by hash, checked before they run.

A worker shares no disk with the web tier: it gets an upload from the store
(the database by default, or any Django storage such as S3), keeps it in its
own size-capped cache and never runs a file that no longer matches its hash.
A store it cannot reach is the platform's fault: the match waits and is
retried, and no bot is charged.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import time
import uuid
import zipfile
from pathlib import Path

import pytest
from django.apps import apps
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage

from bots import sandbox, services, store
from bots.cache import BotCache, CacheCorrupt
from bots.models import Bot, BotBlob, BotVersion
from bots.services import bot_create, bot_version_path, bot_version_upload
from tests.factories import passed

pytestmark = pytest.mark.django_db

HONEST = b"print('honest')\n"
CHEAT = b"print('cheat')\n"
EXAMPLE = Path(__file__).resolve().parents[2] / "bots" / "examples" / "python" / "bot.py"


def sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


class Counting:
    """A fetch function over a dict of uploads that counts its calls."""

    def __init__(self, uploads: dict[str, bytes]) -> None:
        self.uploads, self.calls = uploads, 0

    def __call__(self, key: str):
        def fetch() -> bytes:
            self.calls += 1
            return self.uploads[key]

        return fetch


@pytest.fixture
def cache_dir(settings, tmp_path) -> Path:
    settings.CARDROOM_BOT_CACHE_DIR = tmp_path / "bot-cache"
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.CARDROOM_BOT_CACHE_DIR


@pytest.fixture
def bot(django_user_model, cache_dir) -> Bot:
    owner = django_user_model.objects.create_user(username=f"u{uuid.uuid4().hex[:6]}")
    return bot_create(owner=owner, name="honest")


# --- the stores ---------------------------------------------------------------------------


def test_the_database_store_gives_back_what_was_put_by_its_hash():
    store.blob_put(sha256=sha(HONEST), content=HONEST)
    store.blob_put(sha256=sha(HONEST), content=HONEST)  # the same bytes twice: one row

    assert store.blob_fetch(sha256=sha(HONEST)) == HONEST
    assert BotBlob.objects.get().size == len(HONEST)


def test_the_store_refuses_a_hash_that_is_not_the_contents():
    with pytest.raises(ValueError, match="does not hash to"):
        store.blob_put(sha256=sha(CHEAT), content=HONEST)
    with pytest.raises(ValueError, match="not a SHA-256"):
        store.blob_fetch(sha256="../../etc/passwd")
    assert not BotBlob.objects.exists()


def test_bytes_changed_in_the_store_are_refused_on_fetch():
    store.blob_put(sha256=sha(HONEST), content=HONEST)
    BotBlob.objects.filter(pk=sha(HONEST)).update(content=CHEAT)

    with pytest.raises(store.BlobCorrupt, match="hashing to"):
        store.blob_fetch(sha256=sha(HONEST))
    with pytest.raises(store.BlobMissing):
        store.blob_fetch(sha256=sha(b"never stored"))


def test_a_storage_backend_store_works_like_the_database_one(tmp_path):
    """The ``s3`` store is a Django storage (django-storages' S3Storage in production)."""
    objects = store.StorageStore(FileSystemStorage(location=tmp_path / "bucket"))

    store.blob_put(sha256=sha(HONEST), content=HONEST, store=objects)
    store.blob_put(sha256=sha(HONEST), content=HONEST, store=objects)

    assert store.blob_fetch(sha256=sha(HONEST), store=objects) == HONEST
    assert [p.name for p in (tmp_path / "bucket").rglob("*") if p.is_file()] == [sha(HONEST)]
    with pytest.raises(store.BlobMissing):
        store.blob_fetch(sha256=sha(CHEAT), store=objects)


def test_a_storage_that_cannot_be_reached_is_store_unavailable(tmp_path):
    class Unreachable(FileSystemStorage):
        def open(self, name, mode="rb"):
            raise ConnectionError("connect timeout on endpoint URL")

    objects = store.StorageStore(Unreachable(location=tmp_path))

    with pytest.raises(store.StoreUnavailable, match="connect timeout") as error:
        store.blob_fetch(sha256=sha(HONEST), store=objects)
    assert isinstance(error.value, OSError)  # an infrastructure error for the execution layer


def test_the_setting_chooses_the_store(settings):
    assert store.bot_store().kind == "db"
    settings.CARDROOM_BOT_STORE = "nfs"
    with pytest.raises(ValueError, match="CARDROOM_BOT_STORE must be one of db, s3, got 'nfs'"):
        store.bot_store()


# --- the cache (pure: no database) --------------------------------------------------------


def test_a_cached_upload_is_fetched_once_and_unpacked_in_the_workers_directory(tmp_path):
    cache = BotCache(tmp_path / "cache", max_bytes=1 << 20)
    fetch = Counting({"a": HONEST})

    first = cache.tree(sha(HONEST), "bot.py", fetch=fetch("a"))
    again = cache.tree(sha(HONEST), "bot.py", fetch=fetch("a"))

    assert first == again and first.is_relative_to(tmp_path / "cache")
    assert (first / "bot.py").read_bytes() == HONEST
    assert json.loads((first / "bot.json").read_text())["command"] == ["python3", "/bot/bot.py"]
    assert fetch.calls == 1
    assert (first.stat().st_mode & 0o777) == 0o755  # the sandbox's user reads it


def test_a_tree_file_changed_on_disk_is_never_run_but_unpacked_again(tmp_path):
    cache = BotCache(tmp_path / "cache", max_bytes=1 << 20)
    fetch = Counting({"a": HONEST})
    tree = cache.tree(sha(HONEST), "bot.py", fetch=fetch("a"))
    (tree / "bot.py").write_bytes(CHEAT)

    tree = cache.tree(sha(HONEST), "bot.py", fetch=fetch("a"))

    assert (tree / "bot.py").read_bytes() == HONEST
    assert fetch.calls == 1  # the cached upload still matched its hash: no refetch


def test_a_cached_upload_that_no_longer_matches_its_hash_is_fetched_again(tmp_path):
    cache = BotCache(tmp_path / "cache", max_bytes=1 << 20)
    fetch = Counting({"a": HONEST})
    tree = cache.tree(sha(HONEST), "bot.py", fetch=fetch("a"))
    (tmp_path / "cache" / "blobs" / sha(HONEST)).write_bytes(CHEAT)  # both damaged
    (tree / "bot.py").write_bytes(CHEAT)

    tree = cache.tree(sha(HONEST), "bot.py", fetch=fetch("a"))

    assert (tree / "bot.py").read_bytes() == HONEST
    assert (tmp_path / "cache" / "blobs" / sha(HONEST)).read_bytes() == HONEST
    assert fetch.calls == 2


def test_fetched_bytes_of_the_wrong_hash_are_not_kept(tmp_path):
    cache = BotCache(tmp_path / "cache", max_bytes=1 << 20)

    with pytest.raises(CacheCorrupt, match="hashes to"):
        cache.tree(sha(HONEST), "bot.py", fetch=lambda: CHEAT)

    assert not any((tmp_path / "cache" / "blobs").iterdir())
    assert [p.name for p in (tmp_path / "cache" / "trees").iterdir()] == []


def test_the_cache_evicts_the_least_recently_used_beyond_its_size(tmp_path):
    uploads = {name: zip_of({"bot.py": name.encode() * 3000}) for name in "abc"}
    entry = 3000 + len(uploads["a"]) + 200  # about one entry's bytes (tree + blob)
    cache = BotCache(tmp_path / "cache", max_bytes=2 * entry + 100, keep_s=0)
    fetch = Counting(uploads)
    trees = {}
    for name in "ab":
        trees[name] = cache.tree(sha(uploads[name]), "bot.zip", fetch=fetch(name))
        time.sleep(0.02)
    cache.tree(sha(uploads["a"]), "bot.zip", fetch=fetch("a"))  # a is used again: b is older
    time.sleep(0.02)

    trees["c"] = cache.tree(sha(uploads["c"]), "bot.zip", fetch=fetch("c"))

    assert trees["a"].is_dir() and trees["c"].is_dir()
    assert (
        not trees["b"].exists() and not (tmp_path / "cache" / "blobs" / sha(uploads["b"])).exists()
    )
    assert cache.total_bytes() <= cache.max_bytes
    cache.tree(sha(uploads["b"]), "bot.zip", fetch=fetch("b"))
    assert fetch.calls == 4  # b came back from the store


def test_entries_in_recent_use_are_kept_even_over_the_cap(tmp_path):
    cache = BotCache(tmp_path / "cache", max_bytes=10, keep_s=3600)
    one = cache.tree(sha(HONEST), "bot.py", fetch=lambda: HONEST)
    two = cache.tree(sha(CHEAT), "bot.py", fetch=lambda: CHEAT)

    assert one.is_dir() and two.is_dir()  # another match may be running them


# --- versions through the services --------------------------------------------------------


def test_a_worker_gets_a_version_from_the_store_and_refetches_a_damaged_copy(bot, monkeypatch):
    version = bot_version_upload(bot=bot, filename="bot.py", content=HONEST)
    reads = []
    get = store.DatabaseStore.get
    monkeypatch.setattr(store.DatabaseStore, "get", lambda self, h: reads.append(h) or get(self, h))

    tree = bot_version_path(version=version)
    blob = services.bot_cache().root / "blobs" / version.sha256
    blob.write_bytes(CHEAT)
    (tree / "bot.py").write_bytes(CHEAT)
    tree = bot_version_path(version=version)

    assert (tree / "bot.py").read_bytes() == HONEST
    assert reads == [version.sha256, version.sha256]


def test_the_store_unreachable_is_an_infrastructure_error_not_a_bot_error(bot, monkeypatch):
    version = bot_version_upload(bot=bot, filename="bot.py", content=HONEST)

    def down(self, sha256):
        raise store.StoreUnavailable("bot store (database) unreachable: connection refused")

    monkeypatch.setattr(store.DatabaseStore, "get", down)

    with pytest.raises(OSError, match="unreachable"):
        bot_version_path(version=version)
    assert not any(services.bot_cache().root.joinpath("trees").glob("*.json"))


def test_a_version_uploaded_before_the_store_is_read_from_its_old_file(bot, cache_dir):
    """Migration 0004 copies old uploads into the store; a worker falls back to the file."""
    version = BotVersion.objects.create(
        bot=bot, number=7, sha256=sha(HONEST), runtime="python", entry_point="old.py",
        validation_report={"upload": {"filename": "old.py"}},
    )  # fmt: skip
    version.archive.save(f"{bot.pk}/uploads/7/old.py", ContentFile(HONEST), save=True)

    tree = bot_version_path(version=version)

    assert (tree / "old.py").read_bytes() == HONEST
    assert bytes(BotBlob.objects.get(pk=sha(HONEST)).content) == HONEST  # now in the store


def test_migration_0004_copies_old_uploads_into_the_store(bot, cache_dir):
    good = BotVersion.objects.create(bot=bot, number=1, sha256=sha(HONEST), runtime="python")
    good.archive.save(f"{bot.pk}/uploads/1/bot.py", ContentFile(HONEST), save=True)
    bad = BotVersion.objects.create(bot=bot, number=2, sha256=sha(HONEST), runtime="python")
    bad.archive.save(f"{bot.pk}/uploads/2/bot.py", ContentFile(CHEAT), save=True)
    migration = importlib.import_module("bots.migrations.0004_bot_store")

    migration.copy_uploads_into_store(apps, None)

    assert list(BotBlob.objects.values_list("sha256", flat=True)) == [sha(HONEST)]
    assert bytes(BotBlob.objects.get().content) == HONEST  # the altered file was not copied
    assert set(BotVersion.objects.filter(bot=bot).values_list("upload_name", flat=True)) == {
        "bot.py"
    }


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not sandbox.available(), reason="needs the bot sandbox (bubblewrap)")
def test_a_match_whose_store_is_down_is_retried_and_no_bot_is_charged(bot, monkeypatch):
    from tests.factories import make_competition
    from tournaments import services as tournament_services
    from tournaments.worker import execution, tasks

    version = bot_version_upload(bot=bot, filename="bot.py", content=EXAMPLE.read_bytes())
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
    passed(version, "money-jordan")
    competition = make_competition(variant="money-jordan", entries=1, games=1, duplicate=False)
    tournament_services.entry_create(competition=competition, bot=bot)
    match = tournament_services.competition_start(competition=competition)[0]
    get, calls = store.DatabaseStore.get, []

    def flaky(self, sha256):
        calls.append(sha256)
        if len(calls) == 1:
            raise store.StoreUnavailable("bot store (database) unreachable: server closed")
        return get(self, sha256)

    monkeypatch.setattr(store.DatabaseStore, "get", flaky)

    assert tasks.match_run.apply(args=[match.pk]).get() == execution.RECORDED

    match.refresh_from_db()
    assert calls == [version.sha256, version.sha256]
    assert (match.status, match.attempts, match.error) == ("done", 2, "")
    assert all(set(seat.statuses) == {"ok"} for seat in match.seats.all())


@pytest.mark.skipif(not sandbox.available(), reason="needs the bot sandbox (bubblewrap)")
def test_a_validation_whose_store_is_down_is_not_a_rejection(bot, monkeypatch):
    version = bot_version_upload(bot=bot, filename="bot.py", content=EXAMPLE.read_bytes())

    def down(self, sha256):
        raise store.StoreUnavailable("bot store (database) unreachable: timeout")

    monkeypatch.setattr(store.DatabaseStore, "get", down)

    with pytest.raises(store.StoreUnavailable):
        services.bot_version_validate(version=version)
    version.refresh_from_db()
    assert version.status == BotVersion.Status.PENDING  # to be validated again, not rejected
    monkeypatch.undo()
    assert services.bot_version_validate(version=version).status == BotVersion.Status.READY


def test_an_upload_while_the_store_is_down_is_a_503_and_saves_nothing(bot, monkeypatch):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    def down(self, sha256, content):
        raise store.StoreUnavailable("bot store (s3) unreachable: connect timeout")

    monkeypatch.setattr(store.DatabaseStore, "put", down)
    client = APIClient()
    client.force_authenticate(bot.owner)

    answer = client.post(
        f"/api/bots/{bot.pk}/versions/",
        {"file": SimpleUploadedFile("bot.py", HONEST)},
        format="multipart",
    )

    assert answer.status_code == 503, answer.content
    assert "cannot be written now" in answer.json()["detail"]
    assert not BotVersion.objects.filter(bot=bot).exists()
