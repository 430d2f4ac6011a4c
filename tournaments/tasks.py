"""Celery tasks: another door into the services (tournaments.execution).

Tasks take ids, re-read the database and are safe to run twice: a second
delivery of ``match_run`` finds the match claimed or done and does nothing.
"""

from __future__ import annotations

import random
from dataclasses import asdict

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections

from tournaments import execution, version_tests


def retry_countdown(retries: int) -> float:
    """Exponential backoff with jitter: base * 2**retries, at most ten minutes."""
    base = settings.CARDROOM_MATCH_RETRY_BACKOFF_S * 2**retries
    return min(600.0, base * random.uniform(0.8, 1.2))


@shared_task(bind=True, name="tournaments.match_run", max_retries=None)
def match_run(self, match_id: int) -> str:
    """Claim, play and record match ``match_id``; see :func:`execution.match_execute`.

    Infrastructure faults give the match back and retry with backoff, up to
    ``CARDROOM_MATCH_MAX_RETRIES`` times; then the match is ``failed``.
    """
    claimed_by = execution.worker_name(self.request.id or "direct")
    try:
        return execution.match_execute(match_id=match_id, claimed_by=claimed_by)
    except execution.InfrastructureFault as fault:
        close_old_connections()  # a broken database connection is dropped, not reused
        error = f"attempt {self.request.retries + 1}: {fault}"
        if self.request.retries >= settings.CARDROOM_MATCH_MAX_RETRIES:
            execution.match_fail(match_id=match_id, claimed_by=claimed_by, error=error)
            return execution.FAILED
        countdown = retry_countdown(self.request.retries)
        # If even this write fails, the lease expires and the reaper requeues the match.
        execution.match_release(
            match_id=match_id, claimed_by=claimed_by, error=error, retry_in_s=countdown
        )
        raise self.retry(exc=fault, countdown=countdown) from fault


@shared_task(name="tournaments.matches_reap", soft_time_limit=120, time_limit=150)
def matches_reap() -> dict[str, list[int]]:
    """Periodic (beat): requeue lost matches, queue pending ones, feed idle ladders."""
    return asdict(execution.matches_reap())


@shared_task(name="tournaments.version_test_run", max_retries=None)
def version_test_run(test_id: int) -> str:
    """Play a slice of version test ``test_id``; see :func:`version_tests.version_test_play`.

    Safe to run twice: a second delivery finds the test held or finished and does nothing.
    """
    return version_tests.version_test_play(test_id=test_id)
