"""``manage.py validate``: the platform's validation on this machine, the site's report."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bots import sandbox, validation

EXAMPLE = Path(__file__).parents[2] / "bots" / "examples" / "python"

needs_sandbox = pytest.mark.skipif(not sandbox.available(), reason="no sandbox on this host")


def run(*args: str) -> tuple[str, int]:
    out = io.StringIO()
    try:
        call_command("validate", *args, stdout=out)
    except SystemExit as exit_:
        return out.getvalue(), int(exit_.code)
    return out.getvalue(), 0


@needs_sandbox
def test_it_validates_the_variants_of_bot_json_and_prints_the_sites_report(tmp_path):
    bot = tmp_path / "money"
    shutil.copytree(EXAMPLE, bot)
    (bot / "bot.json").write_text(
        json.dumps({"command": ["python3", "/bot/bot.py"], "variants": ["money-syria"]})
    )
    saved = tmp_path / "report.json"

    printed, code = run(str(bot), "--json", str(saved))

    report = json.loads(saved.read_text())
    assert code == 0 and list(report["variants"]) == ["money-syria"]
    for line in validation.report_lines(report):  # the words the bot's page shows
        assert line in printed
    assert printed.startswith("Validating") and printed.rstrip().endswith("Validation passed.")


@needs_sandbox
def test_a_failing_bot_fails_with_its_reasons_and_exit_1(tmp_path):
    bot = tmp_path / "illegal.py"
    bot.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': print(json.dumps({'ready': True}), flush=True)\n"
        "    elif m['type'] == 'act': print(json.dumps({'action': 'nonsense'}), flush=True)\n"
        "    elif m['type'] == 'bye': break\n"
    )

    printed, code = run(str(bot), "--variant", "manni-basic")

    assert code == 1
    assert "manni-basic: failed: game 1: illegal:" in printed
    assert printed.rstrip().endswith("Validation failed.")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "poker"], "unknown variant 'poker'"),
        (["--variant", "money-jordan", "--variant", "whist"], "unknown variant 'whist'"),
    ],
)
def test_an_unknown_variant_is_a_command_error_naming_it(args, message):
    with pytest.raises(CommandError, match=message):
        run(str(EXAMPLE), *args)


def test_a_missing_bot_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match="no bot at"):
        run(str(tmp_path / "nothing"))
