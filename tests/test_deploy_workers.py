"""deploy/: what the compose file and the systemd units give each process, read from the
files themselves."""

from __future__ import annotations

from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def compose_services(name: str = "compose.yaml") -> dict[str, dict]:
    return yaml.safe_load((DEPLOY / name).read_text())["services"]


def test_every_cardroom_container_keeps_the_shared_redis_settings():
    services = compose_services()
    shared = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["x-cardroom"]["environment"]

    for name, service in services.items():
        if service.get("image") != "cardroom:latest":
            continue
        environment = service["environment"]
        assert environment["CARDROOM_CACHE_URL"] == shared["CARDROOM_CACHE_URL"], name
        assert environment["REDIS_URL"] == shared["REDIS_URL"], name
