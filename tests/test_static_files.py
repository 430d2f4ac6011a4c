"""The pages' scripts, styles and icon are the apps' static files (``<app>/static/``): every
one a template names exists, every one is named by a template, and ``collectstatic`` puts
them where the deployment's nginx serves ``STATIC_URL`` from.

That the demo's server and the live test server serve them is tested where the pages are
(``tests/static_files.static_get``, ``tests/test_demo.py``, the browser tests)."""

from __future__ import annotations

import re
from pathlib import Path

from django.contrib.staticfiles import finders
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
#: The web app's own static folder (the others are Django's, DRF's and the API docs').
FOLDERS = [ROOT / "web" / "static"]
TEMPLATES = sorted(
    [
        *(ROOT / "web").rglob("templates/**/*.html"),
    ]
)
#: Files kept beside the others that no page loads: the vendored CSS's licence.
NOT_LOADED = {"cardroom/NOTICE"}


def named_in_templates() -> set[str]:
    """Every name a template passes to ``{% static %}``."""
    names = set()
    for template in TEMPLATES:
        names |= set(re.findall(r"""{%\s*static\s+['"]([^'"]+)['"]\s*%}""", template.read_text()))
    return names


def own_files() -> dict[str, Path]:
    """The apps' static files by the name ``{% static %}`` takes."""
    return {
        path.relative_to(folder).as_posix(): path
        for folder in FOLDERS
        for path in folder.rglob("*")
        if path.is_file()
    }


def test_every_file_a_template_names_is_one_of_the_apps_static_files():
    named = named_in_templates()
    assert {"dashboard/live.js", "cardroom/site.css", "bots/bots.js"} <= named

    for name in named:
        assert finders.find(name) == str(own_files()[name]), name


def test_every_static_file_of_the_apps_is_loaded_by_a_page():
    assert set(own_files()) - NOT_LOADED == named_in_templates()


def test_collectstatic_puts_the_files_where_the_deployment_serves_static_url(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path / "static"

    call_command("collectstatic", interactive=False, verbosity=0)

    for name, source in own_files().items():
        assert (tmp_path / "static" / name).read_bytes() == source.read_bytes(), name
    # nginx serves STATIC_URL from STATIC_ROOT as the image sets it (CARDROOM_VAR_DIR/static).
    nginx = (ROOT / "deploy" / "nginx" / "cardroom.conf").read_text()
    var_dir = re.search(r"CARDROOM_VAR_DIR=(\S+)", (ROOT / "deploy" / "Dockerfile").read_text())
    location = re.search(r"location (\S+) \{\s*alias (\S+);", nginx)
    assert location.groups() == (settings.STATIC_URL, f"{var_dir.group(1)}/static/")
