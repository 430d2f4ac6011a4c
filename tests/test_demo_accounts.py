"""The demo keeps sign-up open: no mail to confirm, no wait before public play, whatever
an installation's defaults (email, 24 hours); its web server and workers run so, and its
banner says so."""

from __future__ import annotations

from io import StringIO

import pytest

from tournaments.management.commands.demo import Command, DemoLogin


@pytest.fixture
def installation_defaults(monkeypatch):
    """An environment that names none of the account settings (the suite's baseline
    sets them: tests/xdist_env.py)."""
    for name in ("CARDROOM_SIGNUP_CONFIRMATION", "CARDROOM_PUBLIC_PLAY_MIN_AGE_H"):
        monkeypatch.delenv(name, raising=False)


def demo() -> Command:
    command = Command(stdout=StringIO())
    command.database_url = ""  # handle() sets it: the demo's SQLite file, or none
    return command


def banner_of(command: Command, tmp_path) -> str:
    command.run_dir, command.pace = tmp_path, 1.0
    command._banner("http://127.0.0.1:8001", DemoLogin(None, None), [], "redis://x:1/0")
    return command.stdout._out.getvalue()


def test_the_demos_children_sign_up_without_confirmation_or_wait(installation_defaults):
    env = demo()._child_env("redis://127.0.0.1:1/0")

    assert env["CARDROOM_SIGNUP_CONFIRMATION"] == "none"
    assert env["CARDROOM_PUBLIC_PLAY_MIN_AGE_H"] == "0"


def test_the_banner_says_sign_up_is_open_and_a_deployment_confirms(installation_defaults, tmp_path):
    banner = banner_of(demo(), tmp_path)

    assert "sign-up:           no e-mail to confirm, no wait before public play" in banner
    assert "a deployment confirms" in banner


def test_an_operator_who_sets_them_is_obeyed_and_told(monkeypatch, tmp_path):
    monkeypatch.setenv("CARDROOM_SIGNUP_CONFIRMATION", "email")
    monkeypatch.setenv("CARDROOM_PUBLIC_PLAY_MIN_AGE_H", "24")
    command = demo()

    env = command._child_env("redis://127.0.0.1:1/0")

    assert env["CARDROOM_SIGNUP_CONFIRMATION"] == "email"
    assert "CARDROOM_SIGNUP_CONFIRMATION=email" in banner_of(command, tmp_path)
