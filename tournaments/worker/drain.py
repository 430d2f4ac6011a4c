"""Draining a worker process: stop claiming, finish the match in play, or give it back.

A worker told to stop (SIGTERM: a rolling deploy, a scale-down, ``systemctl stop``)
makes a warm shutdown: Celery takes no new message and waits for the running tasks.
``config.celery`` then tells each of its pool processes (``SIGUSR2``) to
:func:`begin` draining:

- a task that plays a list of matches or a version test claims nothing more after the
  match or deal in play (:func:`draining`) and sends the rest to the queue again;
- the match in play (inside :func:`playing`) may finish for ``grace_s`` seconds
  (``CARDROOM_DRAIN_GRACE_S``); then :class:`DrainTimeout` is raised in it, and the task
  gives the match back to the queue unplayed and uncharged
  (``tournaments.worker.execution.match_give_back``).

A process killed outright (SIGKILL, or the end of the stop timeout) loses nothing
either: its match stays claimed under its lease, and the reaper requeues it when the
lease expires. Plain Python (signals and a timer): no Django, no Celery.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

#: The signal a worker's main process sends its pool processes to begin draining.
DRAIN_SIGNAL = signal.SIGUSR2


class DrainTimeout(BaseException):
    """The worker is stopping and its grace period is over: give the match back.

    A ``BaseException``, like ``KeyboardInterrupt``, so that the ``except Exception``
    of a match's own error handling does not take it for the match's fault."""


_draining = False
_playing = 0
_grace_s = 0.0


def install(*, grace_s: float) -> None:
    """In a worker process: begin draining on :data:`DRAIN_SIGNAL`; the match in play may
    run ``grace_s`` more seconds."""
    global _grace_s
    _grace_s = grace_s
    signal.signal(DRAIN_SIGNAL, lambda signum, frame: begin())


def begin(grace_s: float | None = None) -> None:
    """Stop claiming from now on; after ``grace_s`` seconds (default: the installed grace)
    interrupt the match in play, if any, with :class:`DrainTimeout`. Idempotent."""
    global _draining
    if _draining:
        return
    _draining = True
    signal.signal(signal.SIGALRM, _grace_over)
    signal.setitimer(signal.ITIMER_REAL, max(0.001, _grace_s if grace_s is None else grace_s))


def _grace_over(signum, frame) -> None:
    if _playing:
        raise DrainTimeout("the worker is stopping and the drain's grace period is over")


def draining() -> bool:
    """True once this process was told to stop: claim nothing more."""
    return _draining


@contextlib.contextmanager
def playing() -> Iterator[None]:
    """Around a match (or a deal) in play: the end of the grace period interrupts it. If
    the grace period is over already, it is interrupted at once."""
    global _playing
    _playing += 1
    try:
        if _draining and signal.getitimer(signal.ITIMER_REAL)[0] == 0:
            raise DrainTimeout("the worker is stopping and the drain's grace period is over")
        yield
    finally:
        _playing -= 1


def reset() -> None:
    """Forget a drain (tests): no timer, claiming again."""
    global _draining
    _draining = False
    signal.setitimer(signal.ITIMER_REAL, 0)
