"""A trained policy as a bot (bots/examples/python-trained): uploaded through the API, it
validates in the sandbox with numpy, plays a competition match, and a weights file that
does not fit the variant is a validation failure in words."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from bots import sandbox
from bots.models import Bot
from bots.services import builtin_bots_ensure
from tests.api.conftest import validated_upload
from tests.factories import make_competition
from tournaments import services as tournament_services

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.slow,
    pytest.mark.skipif(not sandbox.available(), reason="uploaded bots need the sandbox"),
]

EXAMPLE = Path(__file__).parents[2] / "bots" / "examples" / "python-trained"


def zipped_example(variants: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in ("bot.py", "weights.npz"):
            archive.write(EXAMPLE / name, name)
        archive.writestr("bot.json", json.dumps({"entry": "bot.py", "variants": variants}))
    return buffer.getvalue()


def test_the_trained_example_validates_and_plays_a_competition_match(
    as_alice, as_organiser, organiser, django_capture_on_commit_callbacks, eager_celery
):
    bot_id = as_alice.post("/api/bots/", {"name": "trained"}).json()["id"]

    version = validated_upload(
        as_alice, django_capture_on_commit_callbacks, bot_id, zipped_example(["maniglia-3"])
    )

    assert version["status"] == "ready", version["validation_report"]
    assert version["passed"] == ["maniglia-3"]

    cup = make_competition(organiser, name="Maniglia cup", variant="maniglia-3", games=6)
    assert as_alice.post("/api/entries/", {"competition": cup.pk, "bot": bot_id}).status_code == 201
    builtin_bots_ensure()
    for name in ("random", "greedy"):
        other = Bot.objects.filter(builtin=name).first()
        entered = as_organiser.post("/api/entries/", {"competition": cup.pk, "bot": other.pk})
        assert entered.status_code == 201, entered.content
    assert as_organiser.post(f"/api/competitions/{cup.pk}/start/").status_code == 200
    match = cup.matches.get()
    tournament_services.match_record(
        match=match, played=tournament_services.match_play(match=match)
    )

    listed = as_alice.get(f"/api/matches/?competition={cup.pk}").json()
    played = (listed["results"] if isinstance(listed, dict) else listed)[0]
    assert played["status"] == "done", played
    ours = [seat for seat in played["seats"] if seat["bot"] == "alice/trained"]
    assert len(ours) == 1 and ours[0]["version"] == 1, played["seats"]
    assert set(ours[0]["statuses"]) == {"ok"}, ours[0]  # every game played to the end


def test_weights_for_another_variant_fail_validation_saying_why(
    as_alice, django_capture_on_commit_callbacks, eager_celery
):
    bot_id = as_alice.post("/api/bots/", {"name": "misfit"}).json()["id"]

    version = validated_upload(
        as_alice, django_capture_on_commit_callbacks, bot_id, zipped_example(["manni-basic"])
    )

    assert version["status"] == "rejected"
    report = version["validation_report"]
    assert "weights.npz does not fit manni-basic" in report["stderr_tail"], report
    assert "takes 362 observation numbers" in report["stderr_tail"]
