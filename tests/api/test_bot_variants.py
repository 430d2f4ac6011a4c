"""Bots that know their games: a version declares its variants, is validated in each and
enters only competitions of the variants it passed."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

import games
from bots import sandbox
from bots.models import Bot, BotVersion
from bots.services import builtin_bots_ensure
from tests.api.conftest import upload_version, validated_upload
from tests.factories import make_competition
from tournaments import services as tournament_services

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not sandbox.available(), reason="uploaded bots need the sandbox"),
]

EXAMPLE = (Path(__file__).parents[2] / "bots" / "examples" / "python" / "bot.py").read_bytes()


def zipped(manifest: dict | None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", EXAMPLE)
        if manifest is not None:
            archive.writestr("bot.json", json.dumps(manifest))
    return buffer.getvalue()


@pytest.mark.slow
def test_a_money_only_bot_validates_for_money_and_enters_only_money(
    as_alice, as_organiser, organiser, django_capture_on_commit_callbacks, eager_celery
):
    bot_id = as_alice.post("/api/bots/", {"name": "money-only"}).json()["id"]
    manifest = {"entry": "bot.py", "variants": ["money-jordan"]}

    version = validated_upload(
        as_alice, django_capture_on_commit_callbacks, bot_id, zipped(manifest)
    )

    assert version["status"] == "ready", version["validation_report"]["reasons"]
    assert version["variants"] == ["money-jordan"] and version["passed"] == ["money-jordan"]
    assert list(version["validation_report"]["variants"]) == ["money-jordan"]

    manni = make_competition(organiser, name="Manni league", variant="manni-basic", games=6)
    refused = as_alice.post("/api/entries/", {"competition": manni.pk, "bot": bot_id})
    assert refused.status_code == 400
    assert "has not passed validation in manni-basic" in refused.json()["bot"][0]

    money = make_competition(organiser, name="Money cup", variant="money-jordan", games=6)
    entered = as_alice.post("/api/entries/", {"competition": money.pk, "bot": bot_id})
    assert entered.status_code == 201, entered.content

    builtin = Bot.objects.get(pk=builtin_bots_ensure()[0].pk)
    assert (
        as_organiser.post("/api/entries/", {"competition": money.pk, "bot": builtin.pk}).status_code
        == 201
    )
    assert as_organiser.post(f"/api/competitions/{money.pk}/start/").status_code == 200
    match = money.matches.get()
    tournament_services.match_record(
        match=match, played=tournament_services.match_play(match=match)
    )
    seats = as_alice.get(f"/api/matches/?competition={money.pk}").json()
    seats = (seats["results"] if isinstance(seats, dict) else seats)[0]["seats"]
    assert "alice/money-only" in [seat["bot"] for seat in seats]


def test_the_variants_field_of_an_upload_overrides_bot_json(
    as_alice, django_capture_on_commit_callbacks, eager_celery
):
    bot_id = as_alice.post("/api/bots/", {"name": "twice"}).json()["id"]

    version = validated_upload(
        as_alice,
        django_capture_on_commit_callbacks,
        bot_id,
        zipped({"entry": "bot.py", "variants": ["maniglia-3"]}),
        variants=["money-syria", "money-egypt"],
    )

    assert version["variants"] == ["money-egypt", "money-syria"]
    assert version["passed"] == ["money-egypt", "money-syria"]


@pytest.mark.parametrize(
    ("manifest", "fields", "key", "named"),
    [
        ({"entry": "bot.py", "variants": ["money-jordan", "poker"]}, {}, "file", "'poker'"),
        ({"entry": "bot.py", "variants": "money-jordan"}, {}, "file", '"variants" must be a list'),
        ({"entry": "bot.py", "variants": [7]}, {}, "file", '"variants" must be a list'),
        (None, {"variants": ["manni-basic", "whist"]}, "variants", "'whist'"),
    ],
)
def test_a_bad_declaration_is_a_400_naming_it(as_alice, manifest, fields, key, named):
    bot_id = as_alice.post("/api/bots/", {"name": "bad"}).json()["id"]

    response = upload_version(as_alice, bot_id, zipped(manifest), **fields)

    assert response.status_code == 400, response.content
    assert named in " ".join(response.json()[key])
    assert not BotVersion.objects.filter(bot_id=bot_id).exists()


def test_a_version_validated_before_variants_is_validated_in_more_on_request(
    as_alice, as_bob, alice, django_capture_on_commit_callbacks, eager_celery
):
    bot_id = as_alice.post("/api/bots/", {"name": "old"}).json()["id"]
    version = validated_upload(
        as_alice, django_capture_on_commit_callbacks, bot_id, zipped({"entry": "bot.py"}),
        variants=["manni-basic"],
    )  # fmt: skip
    assert version["passed"] == ["manni-basic"]
    url = f"/api/bots/{bot_id}/versions/1/validate/"

    assert as_alice.post(url, {"variants": ["nope"]}, format="json").status_code == 400
    assert as_alice.post(url, {"variants": ["manni-basic"]}, format="json").status_code == 400
    assert as_bob.post(url, {"variants": ["money-syria"]}, format="json").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        asked = as_alice.post(url, {"variants": ["money-syria"]}, format="json")
    assert asked.status_code == 202, asked.content

    after = as_alice.get(f"/api/bots/{bot_id}/versions/1/").json()
    assert after["status"] == "ready"
    assert after["passed"] == ["manni-basic", "money-syria"]
    assert set(after["validation_report"]["variants"]) == {"manni-basic", "money-syria"}


def test_versions_validated_before_count_for_manni_basic_only(alice):
    """What migration 0005 gives a ready version: a pass for manni-basic, nothing else."""
    from importlib import import_module

    from django.apps import apps

    bot = Bot.objects.create(owner=alice, name="legacy")
    ready = BotVersion.objects.create(
        bot=bot, number=1, sha256="0" * 64, runtime="python", status="ready"
    )
    BotVersion.objects.create(
        bot=bot, number=2, sha256="1" * 64, runtime="python", status="rejected"
    )
    migration = import_module("bots.migrations.0005_version_variants")

    migration.passes_for_validated_versions(apps, None)

    assert list(ready.passes.values_list("variant", flat=True)) == ["manni-basic"]
    assert not bot.versions.get(number=2).passes.exists()


def test_built_ins_play_every_variant(as_alice):
    builtin_bots_ensure()
    listed = as_alice.get(f"/api/bots/{Bot.objects.filter(builtin='random').first().pk}/versions/")
    versions = listed.json()
    versions = versions["results"] if isinstance(versions, dict) else versions

    assert versions[0]["passed"] == games.variants()
