"""The Celery app: matches run as tasks on worker processes (DESIGN.md sections 5 and 6).

Configuration comes from the ``CELERY_*`` names of ``config.settings`` (the
broker and the result backend are the Redis of ``REDIS_URL``). Work is queued by
kind, most urgent first (``CARDROOM_QUEUES``; ``manage.py worker_queues`` prints
them in order). Start a worker on every queue (``manage.py demo``, a small machine), or
as deployed the two lanes of docs/queues.md ("Lanes"); then one that serves the periodic
tasks however busy the others are, and beat::

    celery -A config worker -Q $(python manage.py worker_queues) --concurrency 4
    # or: the competitions' lane, and the users' lane at the lowest priority
    celery -A config worker -Q $(python manage.py worker_queues periodic competition ladder)
    CARDROOM_WORKER_NICE=19 celery -A config worker \
        -Q $(python manage.py worker_queues validation challenge version-test default)
    celery -A config worker -Q periodic --concurrency 1 --pool solo
    celery -A config beat

SIGTERM drains a worker (``tournaments.worker.drain``): it takes no new message, lets
the matches in play finish for ``CARDROOM_DRAIN_GRACE_S`` seconds, then gives
back those still playing.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from celery import Celery
from celery.signals import (
    after_setup_logger,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutting_down,
)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("cardroom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# tournaments' tasks are its worker's runtime: tournaments.worker.tasks.
app.autodiscover_tasks(["tournaments.worker"])


@task_prerun.connect
@task_postrun.connect
def _close_old_database_connections(task: object = None, **_: object) -> None:
    """Around each task, drop a database connection that failed or outlived
    ``CONN_MAX_AGE``, as Django does around a request; a healthy one is kept (with
    ``CELERY_DB_REUSE_MAX`` set, Celery's fixup no longer closes it after every task).

    A task run eagerly (``task_always_eager``, ``.apply()``) runs on its caller's
    connection, often inside the caller's transaction: that one is the caller's to keep.
    """
    if getattr(getattr(task, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


#: Celery's loggers that write a line at INFO for every task ("received", "succeeded
#: in"): a thousand matches a minute make them the worker's busiest work after the
#: matches. Failures are logged at ERROR (and a match's retries stay in its ``error``).
PER_TASK_LOGGERS = ("celery.app.trace", "celery.worker.strategy")


@task_prerun.connect
def _periodic_task_started(task: object = None, **_: object) -> None:
    """A periodic task starts: beat may send the next one (``config.beat``)."""
    from django.conf import settings

    name = getattr(task, "name", "")
    if name in settings.CARDROOM_PERIODIC_TASKS and not getattr(
        getattr(task, "request", None), "is_eager", False
    ):
        from config import beat

        beat.task_started(name, app)


@after_setup_logger.connect
def _per_task_lines_at_warning(**_: object) -> None:
    """Keep the per-task lines out of a worker's log unless ``CARDROOM_TASK_LOG_LEVEL``
    (default ``WARNING``) asks for them (``INFO``)."""
    level = os.environ.get("CARDROOM_TASK_LOG_LEVEL", "WARNING").upper()
    for name in PER_TASK_LOGGERS:
        logging.getLogger(name).setLevel(level)


@worker_init.connect
def _lower_the_workers_priority(**_: object) -> None:
    """The worker's niceness, ``CARDROOM_WORKER_NICE``, before its pool starts (its
    processes and their bots inherit it); never raised back if it is nicer already."""
    from django.conf import settings

    wanted = settings.CARDROOM_WORKER_NICE
    if os.getpriority(os.PRIO_PROCESS, 0) < wanted:
        os.setpriority(os.PRIO_PROCESS, 0, wanted)
    _lower_the_sessions_autogroup(wanted)


#: Where Linux keeps the niceness of a session's scheduling group (``sched(7)``).
AUTOGROUP = Path("/proc/self/autogroup")


def _lower_the_sessions_autogroup(wanted: int) -> None:
    """The same niceness for the worker's session as a whole, where the kernel groups
    processes by session (``sched_autogroup_enabled``, on by default in most desktop and
    many server kernels): there the CPUs are shared between sessions first, and a
    process's own niceness counts only against the processes of its session. A worker
    started in a session of its own (``setsid``, as ``tests.workers``, ``bench`` and
    ``manage.py demo`` start theirs) would otherwise take a full share against the web
    tier's session whatever its niceness. Only a worker that leads its session changes
    it (the others would lower the priority of whatever else runs in that session, a
    shell's included); under systemd or a container the worker's cgroup is weighed
    instead and the kernel ignores the autogroup. Never raises: a kernel without
    autogroups has no such file."""
    if os.getsid(0) != os.getpid():
        return
    try:
        current = int(AUTOGROUP.read_text().split("nice")[-1])
        if current < wanted:
            AUTOGROUP.write_text(f"{wanted}\n")
    except (OSError, ValueError):
        return


@worker_ready.connect
def _serve_worker_metrics(**_: object) -> None:
    """The worker's own metrics on ``CARDROOM_WORKER_METRICS_PORT`` (0: none), served by
    its main process from its pool's processes (``config.metrics``)."""
    from django.conf import settings

    if settings.CARDROOM_WORKER_METRICS_PORT:
        from config import metrics

        metrics.worker_server_start(settings.CARDROOM_WORKER_METRICS_PORT)


@worker_process_shutdown.connect
def _forget_pool_process(pid: int | None = None, **_: object) -> None:
    from config import metrics

    metrics.process_exited(pid or os.getpid())


@worker_process_init.connect
def _beat_while_alive(**_: object) -> None:
    """A pool process beats while it lives, so that the work it holds is sent again
    within seconds of its death (``config.liveness``)."""
    from config import fairshare, liveness

    liveness.start(on_beat=fairshare.tick)  # the unit in play weighs while it plays


@worker_process_init.connect
def _join_the_users_lane(**_: object) -> None:
    """A pool process of a worker that takes the users' lane's queues (or every queue)
    counts as one of that lane's slots (``config.slots.join_lane``)."""
    from django.conf import settings

    from config import slots

    consumed = set(app.amqp.queues.consume_from or ())
    users = {queue for kind, queue in settings.CARDROOM_QUEUES if kind in slots.USERS_KINDS}
    if not consumed or consumed & users:
        slots.join_lane(slots.USERS_LANE)


@worker_ready.connect
def _recover_lost_work(**_: object) -> None:
    """A worker that starts looks at once for work a dead worker held: the reaper and the
    validations' requeuing are sent now rather than at their next period (a restarted
    worker's lost validation waited ``CARDROOM_VALIDATE_GRACE_S``, ten minutes)."""
    from django.conf import settings

    from config import beat

    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        if entry["task"] in ("tournaments.matches_reap", "bots.versions_requeue"):
            beat.send_once(
                app,
                entry["task"],
                queue=settings.CARDROOM_PERIODIC_QUEUE,
                period_s=float(entry["schedule"]),
            )


@worker_process_init.connect
def _drain_on_signal(**_: object) -> None:
    """A pool process begins draining when its worker stops (``tournaments.worker.drain``)."""
    from django.conf import settings

    from tournaments.worker import drain

    drain.install(grace_s=settings.CARDROOM_DRAIN_GRACE_S)


@worker_shutting_down.connect
def _drain_the_pool(how: str = "Warm", **_: object) -> None:
    """On a warm shutdown (SIGTERM), tell each pool process to drain: it claims nothing
    more and gives back, after the grace period, a match it still plays. A worker without
    pool processes (``--pool solo``) drains itself."""
    from billiard.process import active_children
    from django.conf import settings

    from tournaments.worker import drain

    if how != "Warm":
        return
    children = active_children()
    for child in children:
        with contextlib.suppress(OSError):  # gone already
            os.kill(child.pid, drain.DRAIN_SIGNAL)
    if not children:
        drain.begin(settings.CARDROOM_DRAIN_GRACE_S)
