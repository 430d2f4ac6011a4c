"""deploy/: what the compose files and the systemd units give each process, read from the
files themselves: every kind of work has a worker, and the workers keep to their lanes
(docs/queues.md "Lanes")."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
#: The kinds of work of each lane (docs/queues.md "Lanes"); the periodic worker takes
#: ``periodic`` only.
COMPETITION_KINDS = ("periodic", "competition", "ladder")
USER_KINDS = ("validation", "challenge", "version-test", "default")
#: What a worker lowers its niceness to when ``CARDROOM_WORKER_NICE`` is unset.
DEFAULT_NICE = 10


@dataclass(frozen=True)
class Worker:
    """A Celery worker as deployed: its queues in the order given, the niceness it runs at
    and its CPU weight as a fraction of the web tier's (the default weight)."""

    name: str
    queues: tuple[str, ...]
    nice: int
    cpu_weight: float
    processes: tuple[int, int]  # its slots, and the most processes it grows to


def pool_size(argv: list[str]) -> tuple[int, int]:
    """A worker's slots and the most processes its pool grows to (``--autoscale MAX,MIN``,
    else ``--concurrency``: a pool that never grows)."""
    if "--autoscale" in argv:
        most, _, least = argv[argv.index("--autoscale") + 1].partition(",")
        return int(least), int(most)
    for flag in ("--concurrency", "-c"):
        if flag in argv:
            slots = int(argv[argv.index(flag) + 1])
            return slots, slots
    return 0, 0


def compose(name: str = "compose.yaml") -> dict:
    return yaml.safe_load((DEPLOY / name).read_text())


def celery_queues(argv: list[str]) -> tuple[str, ...] | None:
    """The ``-Q`` of a ``celery ... worker`` command line (None: not a worker)."""
    if "celery" not in [Path(word).name for word in argv] or "worker" not in argv:
        return None
    return tuple(argv[argv.index("-Q") + 1].split(","))


def expand(text: str, pattern: str, environment: dict[str, str]) -> str:
    """``text`` with each variable ``pattern`` matches (its name in group 1) replaced by
    its value in ``environment``; a variable not there is a ``KeyError``."""
    return re.sub(pattern, lambda match: environment[match.group(1)], text)


def compose_workers(name: str) -> list[Worker]:
    workers = []
    for service_name, service in compose(name)["services"].items():
        environment = {key: str(value) for key, value in service.get("environment", {}).items()}
        command = service.get("command") or []
        if command[:2] == ["sh", "-c"]:
            # The shell reads the service's environment ($$ is compose's escaped $).
            script = expand(command[2], r"\$\$(\w+)", environment)
            command = shlex.split(script.rpartition("exec ")[2])
        queues = celery_queues(command)
        if queues is not None:
            nice = int(environment.get("CARDROOM_WORKER_NICE", DEFAULT_NICE))
            weight = service.get("cpu_shares", 1024) / 1024
            workers.append(Worker(service_name, queues, nice, weight, pool_size(command)))
    return workers


def unit_settings(path: Path) -> tuple[dict[str, list[str]], dict[str, str]]:
    """A unit's ``[Service]`` settings (every value of each key) and its environment."""
    text = path.read_text().replace("\\\n", " ")
    settings: dict[str, list[str]] = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    environment = dict(value.split("=", 1) for value in settings.get("Environment", []))
    return settings, environment


def systemd_workers() -> list[Worker]:
    workers = []
    for path in sorted((DEPLOY / "systemd").glob("*.service")):
        settings, environment = unit_settings(path)
        argv = shlex.split(expand(settings["ExecStart"][0], r"\$\{(\w+)\}", environment))
        if Path(argv[0]).name == "env":  # /usr/bin/env NAME=value ... command
            while "=" in argv[1]:
                key, _, value = argv.pop(1).partition("=")
                environment[key] = value
        queues = celery_queues(argv)
        if queues is not None:
            # A worker lowers its niceness to CARDROOM_WORKER_NICE and never raises it.
            nice = max(
                int(settings.get("Nice", ["0"])[0]),
                int(environment.get("CARDROOM_WORKER_NICE", DEFAULT_NICE)),
            )
            weight = int(settings.get("CPUWeight", ["100"])[0]) / 100
            workers.append(Worker(path.name, queues, nice, weight, pool_size(argv)))
    return workers


DEPLOYMENTS = {
    "compose": lambda: compose_workers("compose.yaml"),
    "systemd": systemd_workers,
    "deploy-check": lambda: compose_workers("check/compose.yaml"),
}


def queues_of(settings, kinds: tuple[str, ...]) -> set[str]:
    return {queue for kind, queue in settings.CARDROOM_QUEUES if kind in kinds}


def lanes(settings, workers: list[Worker]) -> tuple[list[Worker], list[Worker]]:
    """The workers that take competitions' matches and those that take users' work."""
    matches = queues_of(settings, ("competition", "ladder"))
    users = queues_of(settings, USER_KINDS)
    return (
        [worker for worker in workers if matches & set(worker.queues)],
        [worker for worker in workers if users & set(worker.queues)],
    )


@pytest.mark.parametrize("deployment", DEPLOYMENTS)
def test_every_kind_of_work_has_a_worker_that_listens_to_it(settings, deployment):
    workers = DEPLOYMENTS[deployment]()
    known = [queue for _, queue in settings.CARDROOM_QUEUES]

    listened = {queue for worker in workers for queue in worker.queues}

    assert listened == set(known), f"unserved: {set(known) - listened}"
    for worker in workers:  # in the order of CARDROOM_QUEUES: the priority is kept
        assert list(worker.queues) == sorted(worker.queues, key=known.index), worker.name


@pytest.mark.parametrize("deployment", DEPLOYMENTS)
def test_the_competitions_lane_never_listens_to_a_users_kind(settings, deployment):
    competitions, users = lanes(settings, DEPLOYMENTS[deployment]())

    assert competitions and users
    for worker in competitions:
        assert set(worker.queues) <= queues_of(settings, COMPETITION_KINDS), worker
    for worker in users:
        assert set(worker.queues) <= queues_of(settings, USER_KINDS), worker


@pytest.mark.parametrize("deployment", ["compose", "systemd"])
def test_the_users_lane_has_the_lower_cpu_weight_and_niceness_19(settings, deployment):
    competitions, users = lanes(settings, DEPLOYMENTS[deployment]())

    for worker in users:
        assert worker.nice == 19, worker
        for competing in competitions:
            assert worker.cpu_weight < competing.cpu_weight < 1, (worker, competing)
            assert competing.nice < worker.nice, (worker, competing)


def test_the_users_lanes_are_as_documented():
    services = compose()["services"]
    unit, environment = unit_settings(DEPLOY / "systemd" / "cardroom-worker-users.service")

    assert services["worker-users"]["deploy"]["replicas"] == 1
    assert services["worker-users"]["cpu_shares"] == 20 and services["worker"]["cpu_shares"] == 205
    assert unit["CPUWeight"] == ["2"] and environment["CARDROOM_USERS_CONCURRENCY"] == "2"


def test_both_lanes_run_in_the_same_sandbox():
    services = compose()["services"]
    shared = ("image", "user", "cgroup", "init", "security_opt", "stop_grace_period", "tmpfs")

    for key in shared:
        assert services["worker-users"][key] == services["worker"][key], key
    assert services["worker"]["security_opt"] == compose()["x-sandbox"]
    competitions, _ = unit_settings(DEPLOY / "systemd" / "cardroom-worker@.service")
    users, _ = unit_settings(DEPLOY / "systemd" / "cardroom-worker-users.service")
    for key in ("User", "Delegate", "KillMode", "KillSignal", "TimeoutStopSec", "NoNewPrivileges"):
        assert users[key] == competitions[key], key


def test_every_cardroom_container_keeps_the_shared_redis_settings():
    services = compose()["services"]
    shared = compose()["x-cardroom"]["environment"]

    for name, service in services.items():
        if service.get("image") != "cardroom:latest":
            continue
        environment = service["environment"]
        assert environment["CARDROOM_CACHE_URL"] == shared["CARDROOM_CACHE_URL"], name
        assert environment["REDIS_URL"] == shared["REDIS_URL"], name


@pytest.mark.parametrize("deployment", DEPLOYMENTS)
def test_both_lanes_pools_may_grow_by_a_process_while_their_bots_sleep(settings, deployment):
    """A sleeping bot holds a slot and no CPU: every worker that plays bots may grow past
    its slots (config.autoscale) by a process or two, never more (each grows on its own)."""
    matches, users = lanes(settings, DEPLOYMENTS[deployment]())
    for worker in matches + users:
        slots, most = worker.processes
        assert slots >= 1 and slots + 1 <= most <= slots + 2, worker
    assert settings.CELERY_WORKER_AUTOSCALER == "config.autoscale:IdleCpuAutoscaler"
