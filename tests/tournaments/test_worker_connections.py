"""A Celery worker keeps its database connection from one match to the next.

Celery's Django fixup runs around every task; without ``CELERY_DB_REUSE_MAX`` it
closes the connection each time, and every match pays a new connection.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from celery.fixups.django import DjangoWorkerFixup
from celery.signals import task_postrun, task_prerun
from django.db import connection

from config.celery import app

pytestmark = pytest.mark.django_db(transaction=True)


class Task:
    """A task as the hooks see it: one delivered by the broker (not eager)."""

    request = SimpleNamespace(is_eager=False)


TASK = Task()


def run_task_hooks(fixup: DjangoWorkerFixup) -> None:
    """What a worker runs around one task: the fixup's hooks and the app's own."""
    fixup.on_task_prerun(sender=TASK)
    task_prerun.send(sender=TASK)
    with connection.cursor() as cursor:  # the task's own work
        cursor.execute("SELECT 1")
    fixup.on_task_postrun(sender=TASK)
    task_postrun.send(sender=TASK)


def test_two_tasks_of_a_worker_use_one_database_connection():
    fixup = DjangoWorkerFixup(app)
    connection.ensure_connection()
    first = connection.connection

    run_task_hooks(fixup)
    run_task_hooks(fixup)

    assert connection.connection is first


def test_a_connection_that_failed_during_a_task_is_dropped_after_it():
    fixup = DjangoWorkerFixup(app)
    connection.ensure_connection()
    first = connection.connection
    connection.errors_occurred = True
    connection.close_at = 0  # and outlived CONN_MAX_AGE: Django drops it

    task_postrun.send(sender=TASK)
    fixup.on_task_postrun(sender=TASK)

    assert connection.connection is None or connection.connection is not first
