"""The deployment settings pass ``check --deploy``; every response has its security headers."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
ENV_EXAMPLE = ROOT / "deploy" / "cardroom.env.example"
TEMPLATES = ROOT / "tournaments" / "dashboard" / "templates" / "dashboard"


def example_environment(tmp_path: Path, **overrides: str) -> dict[str, str]:
    """The environment of deploy/cardroom.env.example (private directories in tmp_path)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CARDROOM_", "DJANGO_", "DATABASE_", "REDIS_", "CELERY_"))
    }
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            env[key.strip()] = value.strip()
    env.update(
        CARDROOM_VAR_DIR=str(tmp_path / "var"),
        CARDROOM_MEDIA_ROOT=str(tmp_path / "var" / "media"),
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    env.update(overrides)
    return env


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_deployment_settings(tmp_path):
    env = example_environment(tmp_path, CARDROOM_SECRET_KEY=secrets.token_urlsafe(50))
    assert env["CARDROOM_HTTPS"] == "1" and env["DATABASE_URL"].startswith("postgres://")

    result = check_deploy(env)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_refuses_the_example_placeholder_secret(tmp_path):
    result = check_deploy(example_environment(tmp_path))  # CARDROOM_SECRET_KEY=change-me

    assert result.returncode != 0
    assert "security.W009" in result.stderr + result.stdout


def test_without_https_check_deploy_names_what_is_missing(tmp_path):
    env = example_environment(
        tmp_path, CARDROOM_SECRET_KEY=secrets.token_urlsafe(50), CARDROOM_HTTPS="0"
    )

    output = check_deploy(env)

    text = output.stdout + output.stderr
    assert output.returncode != 0
    assert {"security.W004", "security.W008", "security.W012", "security.W016"} <= set(
        re.findall(r"security\.W\d+", text)
    )


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/dashboard/", "/admin/login/", "/api/", "/api/docs/"])
def test_every_page_has_a_content_security_policy_and_no_framing(url):
    response = Client().get(url)

    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-eval" not in policy
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
def test_the_docs_page_has_no_inline_script():
    page = Client().get("/api/docs/").content.decode()

    assert inline_scripts(page) == []


def inline_scripts(html: str) -> list[str]:
    """``<script>`` elements with code in the page (not ``src=``, not JSON data blocks)."""
    found = []
    for attributes, body in re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S | re.I):
        if "src=" in attributes or "application/json" in attributes:
            continue
        if body.strip():
            found.append(body.strip()[:80])
    return found


def test_the_dashboard_templates_run_no_inline_script_nor_handlers():
    for template in TEMPLATES.glob("*.html"):
        html = template.read_text()
        assert inline_scripts(html) == [], template.name
        assert not re.search(r"\son[a-z]+\s*=", html), template.name  # onclick= etc.
        assert "javascript:" not in html, template.name


@pytest.mark.django_db
def test_https_settings_redirect_plain_http_and_send_hsts(settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 3600
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True

    plain = Client().get("/dashboard/")
    secure = Client().get("/dashboard/", secure=True)

    assert plain.status_code == 301 and plain.headers["Location"].startswith("https://")
    assert secure.status_code == 200
    assert secure.headers["Strict-Transport-Security"].startswith("max-age=3600")
