"""Any policy as an uploaded bot: a table from a small MCCFR run (bots/examples/python-cfr)
and the recipe's callable policy (bots/examples/python-recipe) upload through the API and
validate in the sandbox; a table of another variant fails validation saying why."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

from bots import sandbox
from tests.api.conftest import validated_upload

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.slow,
    pytest.mark.skipif(not sandbox.available(), reason="uploaded bots need the sandbox"),
]

EXAMPLES = Path(__file__).parents[2] / "bots" / "examples"


def zipped(folder: Path, files: dict[str, bytes], variants: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
        archive.writestr("bot.py", (folder / "bot.py").read_bytes())
        archive.writestr("bot.json", json.dumps({"entry": "bot.py", "variants": variants}))
    return buffer.getvalue()


@pytest.fixture(scope="module")
def small_cfr_table(tmp_path_factory) -> bytes:
    pytest.importorskip("pyspiel", reason="the 'rl' extra is not installed: pip install '.[rl]'")
    sys.path.insert(0, str(EXAMPLES / "python-cfr"))
    try:
        from solve import solve
    finally:
        sys.path.pop(0)
    out = tmp_path_factory.mktemp("cfr") / "policy.json.gz"
    assert solve(150, out) > 0
    return out.read_bytes()


def test_a_small_cfr_run_uploads_and_validates(
    as_alice, django_capture_on_commit_callbacks, eager_celery, small_cfr_table
):
    bot_id = as_alice.post("/api/bots/", {"name": "cfr"}).json()["id"]
    archive = zipped(EXAMPLES / "python-cfr", {"policy.json.gz": small_cfr_table}, ["maniglia-4"])

    version = validated_upload(as_alice, django_capture_on_commit_callbacks, bot_id, archive)

    assert version["status"] == "ready", version["validation_report"]
    assert version["passed"] == ["maniglia-4"]


def test_a_table_of_another_variant_fails_validation_saying_why(
    as_alice, django_capture_on_commit_callbacks, eager_celery, small_cfr_table
):
    bot_id = as_alice.post("/api/bots/", {"name": "misfit"}).json()["id"]
    archive = zipped(EXAMPLES / "python-cfr", {"policy.json.gz": small_cfr_table}, ["maniglia-3"])

    version = validated_upload(as_alice, django_capture_on_commit_callbacks, bot_id, archive)

    assert version["status"] == "rejected"
    report = version["validation_report"]
    assert (
        "policy.json.gz does not fit maniglia-3: it is a table of maniglia-4"
        in (report["stderr_tail"])
    ), report


def test_the_recipe_bot_uploads_and_validates_with_the_built_ins_rules(
    as_alice, django_capture_on_commit_callbacks, eager_celery
):
    folder = EXAMPLES / "python-recipe"
    files = {name: (folder / name).read_bytes() for name in ("recipe.py", "weights.json")}
    bot_id = as_alice.post("/api/bots/", {"name": "recipe"}).json()["id"]

    version = validated_upload(
        as_alice,
        django_capture_on_commit_callbacks,
        bot_id,
        zipped(folder, files, ["maniglia-3", "money-jordan"]),
    )

    assert version["status"] == "ready", version["validation_report"]
    assert sorted(version["passed"]) == ["maniglia-3", "money-jordan"]
