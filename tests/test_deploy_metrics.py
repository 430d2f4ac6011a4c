"""deploy/: the compose autoscaling rule does what deploy/README.md says, and the
dashboard and the KEDA rule name metrics that exist and the competitions' lane's queues."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from config import metrics

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"

FAKE_COMPOSE = """#!/bin/sh
# A stand-in for docker compose: queue lengths from $DEPTHS (queue=n ...), $HAVE workers.
case "$*" in
  *"redis-cli LLEN"*)
    list=$(printf '%s' "$6" | tr -d '\\006\\026')
    for pair in $DEPTHS; do [ "${pair%%=*}" = "$list" ] && { echo "${pair#*=}"; exit 0; }; done
    echo 0 ;;
  *"ps -q worker"*) i=0; while [ $i -lt "$HAVE" ]; do echo "c$i"; i=$((i+1)); done ;;
  *"up -d"*) echo "$*" >> "$CALLS" ;;
esac
"""


def scale(tmp_path: Path, depths: str, have: int, **env: str) -> str:
    fake = tmp_path / "compose"
    fake.write_text(FAKE_COMPOSE)
    fake.chmod(0o755)
    calls = tmp_path / "calls"
    calls.write_text("")
    environ = {**os.environ, "COMPOSE": str(fake), "DEPTHS": depths, "HAVE": str(have)}
    environ.update(CALLS=str(calls), **env)
    subprocess.run([str(DEPLOY / "scale-workers.sh")], env=environ, check=True, timeout=30)
    return calls.read_text()


@pytest.mark.parametrize(
    ("depths", "have", "wanted"),
    [
        ("matches=45 ladders=3", 1, "--scale worker=5"),  # 48 waiting: 5 at once
        ("matches=5 validations=300", 1, None),  # the users' lane is not the worker service
        ("matches=0", 4, "--scale worker=3"),  # idle: down one a run
        ("matches=500", 2, "--scale worker=8"),  # at most MAX_WORKERS
        ("matches=0", 1, None),  # at least one: nothing to do
        ("matches3=25", 1, "--scale worker=3"),  # a prioritised list counts too
    ],
)
def test_the_compose_rule_is_one_worker_per_ten_waiting(tmp_path, depths, have, wanted):
    calls = scale(tmp_path, depths, have)

    if wanted is None:
        assert calls == ""
    else:
        assert wanted in calls and calls.strip().endswith("worker")


def test_the_dashboard_and_the_keda_rule_name_what_exists(settings):
    dashboard = json.loads((DEPLOY / "grafana" / "cardroom-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    known = {
        "cardroom_queue_depth",
        *(
            m._name + suffix
            for m in metrics.__dict__.values()
            if hasattr(m, "_name")
            for suffix in ("", "_total", "_bucket")
        ),
    }
    keda = yaml.safe_load((DEPLOY / "keda" / "scaledobject.yaml").read_text())
    lists = {t["metadata"]["listName"] for t in keda["spec"]["triggers"] if t["type"] == "redis"}

    for expr in exprs:
        for name in re.findall(r"cardroom_\w+", expr):
            assert name in known, f"the dashboard names {name}, which no metric has"
    # The matches of the competitions' lane, whose workers KEDA scales (the periodic tasks
    # have a worker of their own; the users' lane is one worker per node).
    competitions = {
        queue for kind, queue in settings.CARDROOM_QUEUES if kind in ("competition", "ladder")
    }
    assert lists == competitions
