"""The Celery app: matches run as tasks on worker processes (DESIGN.md sections 5 and 6).

Configuration comes from the ``CELERY_*`` names of ``config.settings`` (the
broker and the result backend are the Redis of ``REDIS_URL``). Start a worker
that plays matches and runs the periodic reaper with::

    celery -A config worker -Q matches,celery --concurrency 4
    celery -A config beat
"""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import after_setup_logger, task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("cardroom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


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


@after_setup_logger.connect
def _per_task_lines_at_warning(**_: object) -> None:
    """Keep the per-task lines out of a worker's log unless ``CARDROOM_TASK_LOG_LEVEL``
    (default ``WARNING``) asks for them (``INFO``)."""
    level = os.environ.get("CARDROOM_TASK_LOG_LEVEL", "WARNING").upper()
    for name in PER_TASK_LOGGERS:
        logging.getLogger(name).setLevel(level)
