"""A Celery worker keeps its database connection from one match to the next.

Celery's Django fixup runs around every task; without ``CELERY_DB_REUSE_MAX`` it
closes the connection each time, and every match pays a new connection.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from celery.fixups.django import DjangoWorkerFixup
from celery.signals import after_setup_logger, task_postrun, task_prerun
from django.db import connection

from config.celery import PER_TASK_LOGGERS, app

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
    # A connection of its own: one an earlier test of this process opened may be past
    # CONN_MAX_AGE already, and the fixup is right to close that one.
    connection.close()
    connection.ensure_connection()
    first = connection.connection

    run_task_hooks(fixup)
    run_task_hooks(fixup)

    assert connection.connection is first


@pytest.mark.skipif(
    connection.vendor == "sqlite",
    reason="Django never closes an in-memory SQLite test database (make test runs PostgreSQL)",
)
def test_a_connection_that_failed_during_a_task_is_dropped_after_it():
    fixup = DjangoWorkerFixup(app)
    # A connection of its own: one an earlier test of this process opened may be past
    # CONN_MAX_AGE already, and the fixup is right to close that one.
    connection.close()
    connection.ensure_connection()
    first = connection.connection
    connection.errors_occurred = True
    connection.close_at = 0  # and outlived CONN_MAX_AGE: Django drops it

    task_postrun.send(sender=TASK)
    fixup.on_task_postrun(sender=TASK)

    assert connection.connection is None or connection.connection is not first


@pytest.fixture
def celery_loggers():
    """The per-task loggers, their levels restored afterwards."""
    loggers = [logging.getLogger(name) for name in PER_TASK_LOGGERS]
    levels = [logger.level for logger in loggers]
    yield loggers
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(level)


def test_a_worker_logs_no_line_per_task_at_info(monkeypatch, celery_loggers):
    monkeypatch.delenv("CARDROOM_TASK_LOG_LEVEL", raising=False)

    after_setup_logger.send(sender=None, logger=logging.getLogger(), loglevel=logging.INFO)

    for logger in celery_loggers:
        assert not logger.isEnabledFor(logging.INFO) and logger.isEnabledFor(logging.ERROR)


def test_the_per_task_lines_come_back_when_asked_for(monkeypatch, celery_loggers):
    monkeypatch.setenv("CARDROOM_TASK_LOG_LEVEL", "info")

    after_setup_logger.send(sender=None, logger=logging.getLogger(), loglevel=logging.INFO)

    assert all(logger.isEnabledFor(logging.INFO) for logger in celery_loggers)
