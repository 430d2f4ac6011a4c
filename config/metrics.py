"""Prometheus metrics of the web tier and the workers (deploy/README.md "Metrics").

What is measured (every name starts with ``cardroom_``):

- ``queue_depth{queue,kinds}``: messages waiting in each Celery queue of a Redis
  broker, read when scraped (the web tier's ``/metrics`` only); ``kinds`` lists the
  kinds of work the queue carries (:data:`QUEUE_OF_KIND`).
- ``matches_started_total{kind}``, ``matches_finished_total{kind,outcome}`` (outcome
  ``recorded`` or ``refused``: its lease was taken over), ``matches_failed_total{kind,cause}``
  (``invalid``: it cannot be played; ``unexpected``: an error of ours; ``infrastructure``:
  retried later; ``drained``: given back by a stopping worker at the end of its grace
  period; ``lease_exhausted``: its workers died too often), with ``kind``
  ``competition``, ``ladder`` or ``challenge`` (:func:`match_kind`).
- ``match_duration_seconds{kind}`` (claim to recorded) and ``recording_seconds{kind}``
  (the recording transaction: the recording latency).
- ``validations_total{outcome}`` (``ready``, ``rejected``, ``error``) and
  ``validation_duration_seconds``.
- ``websocket_clients``: live dashboard sockets (summed over the web processes).
- ``metrics_errors_total``: failures of the metrics themselves.

``CARDROOM_METRICS=0`` turns a process's updates off (for measuring their cost).

A metric never takes a request or a match down: :func:`observe` runs each update,
and a failure is logged and counted in ``metrics_errors_total`` instead of raised.

Several processes: with ``PROMETHEUS_MULTIPROC_DIR`` set (before start; one empty
directory per service and host) prometheus-client's multiprocess mode keeps each
process's values in files there, and the scrape sums them. The web tier serves
``/metrics`` (:func:`metrics_view`: staff sessions, or ``Authorization: Bearer
<CARDROOM_METRICS_TOKEN>``; everyone else a 404). A Celery worker serves its own,
gathered from its pool's processes, on ``CARDROOM_WORKER_METRICS_PORT`` (started by
its main process: ``config.celery``), without a token: keep that port inside the
cluster.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import os
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

from config.task_sending import queue_lengths

log = logging.getLogger(__name__)

# Multiprocess mode writes a file per process there from the first metric on: a missing
# directory is made rather than failing the start (or, later, every update).
if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    try:
        os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)
    except OSError:
        log.exception("PROMETHEUS_MULTIPROC_DIR cannot be created: metrics will fail")

#: The queue (by its setting's name) of each kind of work: the kinds of
#: ``settings.CARDROOM_QUEUES`` (docs/queues.md), read by name so a test or an
#: installation that renames one queue is followed.
QUEUE_OF_KIND = {
    "periodic": "CARDROOM_PERIODIC_QUEUE",
    "competition": "CARDROOM_MATCH_QUEUE",
    "ladder": "CARDROOM_LADDER_QUEUE",
    "validation": "CARDROOM_VALIDATE_QUEUE",
    "challenge": "CARDROOM_CHALLENGE_QUEUE",
    "version_test": "CARDROOM_VERSION_TEST_QUEUE",
    "default": "CARDROOM_DEFAULT_QUEUE",
}

_DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)
_RECORDING_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)

MATCHES_STARTED = Counter("cardroom_matches_started", "Matches claimed by a worker.", ["kind"])
MATCHES_FINISHED = Counter(
    "cardroom_matches_finished", "Matches played to the end.", ["kind", "outcome"]
)
MATCHES_FAILED = Counter(
    "cardroom_matches_failed", "Matches that failed or were given back.", ["kind", "cause"]
)
MATCH_DURATION = Histogram(
    "cardroom_match_duration_seconds",
    "From claim to recorded result.",
    ["kind"],
    buckets=_DURATION_BUCKETS,
)
RECORDING = Histogram(
    "cardroom_recording_seconds",
    "The recording transaction of a played match.",
    ["kind"],
    buckets=_RECORDING_BUCKETS,
)
VALIDATIONS = Counter("cardroom_validations", "Validations of uploaded versions.", ["outcome"])
VALIDATION_DURATION = Histogram(
    "cardroom_validation_duration_seconds", "One validation match.", buckets=_DURATION_BUCKETS
)
WEBSOCKET_CLIENTS = Gauge(
    "cardroom_websocket_clients", "Live dashboard sockets.", multiprocess_mode="livesum"
)
METRICS_ERRORS = Counter("cardroom_metrics_errors", "Failures of the metrics themselves.")


#: ``CARDROOM_METRICS=0`` in a process's environment turns its metric updates off
#: (``python -m bench.bulk --metrics-cost`` measures with and without).
ENABLED = os.environ.get("CARDROOM_METRICS", "1").strip().lower() not in ("0", "false", "no")


def observe(update: Callable[[], Any]) -> None:
    """Run one metric ``update``; a failure is logged and counted, never raised."""
    if not ENABLED:
        return
    try:
        update()
    except Exception:
        log.warning("a metric failed to update", exc_info=True)
        # The counter itself may be what is broken: then the log line is all there is.
        with contextlib.suppress(Exception):
            METRICS_ERRORS.inc()


def inc(metric: Any, *labels: str) -> None:
    """Add one to ``metric`` (with ``labels``); never raises (:func:`observe`)."""
    observe(lambda: (metric.labels(*labels) if labels else metric).inc())


def match_kind(competition: Any) -> str:
    """The kind of work of a competition's matches: ``ladder``, ``challenge`` or
    ``competition``."""
    format_ = getattr(competition, "format", "")
    return format_ if format_ in ("ladder", "challenge") else "competition"


# --- queue depth ---------------------------------------------------------------------------


def queue_kinds() -> dict[str, list[str]]:
    """Each queue's name (from the settings) and the kinds of work it carries."""
    queues: dict[str, list[str]] = {}
    for kind, setting in QUEUE_OF_KIND.items():
        queues.setdefault(getattr(settings, setting), []).append(kind)
    return queues


#: A scrape waits at most this long for the broker.
BROKER_TIMEOUT_S = 0.5


def queue_depths() -> dict[str, int]:
    """Messages waiting in each queue of a Redis broker (nothing for another broker,
    nothing if it cannot be read: logged and counted)."""
    url = getattr(settings, "CELERY_BROKER_URL", "") or ""
    try:
        lengths = queue_lengths(url, list(queue_kinds()), timeout_s=BROKER_TIMEOUT_S)
    except Exception:
        log.warning("queue depth unknown: the broker cannot be read", exc_info=True)
        observe(METRICS_ERRORS.inc)
        return {}
    return lengths or {}


class QueueDepthCollector:
    """``cardroom_queue_depth``, read from the broker when scraped."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "cardroom_queue_depth", "Messages waiting in a Celery queue.", labels=["queue", "kinds"]
        )
        kinds = queue_kinds()
        for queue, depth in queue_depths().items():
            family.add_metric([queue, ",".join(kinds[queue])], depth)
        yield family


# --- exposition ----------------------------------------------------------------------------


def multiprocess_enabled() -> bool:
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


def process_registry() -> CollectorRegistry:
    """What this process (or, in multiprocess mode, its service's processes) measured."""
    if not multiprocess_enabled():
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return registry


def exposition(*, with_queues: bool) -> bytes:
    """The text to scrape; the queue depths too if ``with_queues``."""
    text = generate_latest(process_registry())
    if with_queues:
        queues = CollectorRegistry()
        queues.register(QueueDepthCollector())
        text += generate_latest(queues)
    return text


def _bearer_matches(request: HttpRequest) -> bool:
    token = settings.CARDROOM_METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if not token or not header.startswith("Bearer "):
        return False
    return hmac.compare_digest(header[len("Bearer ") :].strip().encode(), token.encode())


def metrics_view(request: HttpRequest) -> HttpResponse:
    """``GET /metrics``: staff sessions and the bearer token only (everyone else a 404,
    as if there were nothing here). A failure to gather them is a 503, logged and counted."""
    user = getattr(request, "user", None)
    if not (_bearer_matches(request) or (user is not None and user.is_staff)):
        raise Http404("no such page")
    try:
        text = exposition(with_queues=True)
    except Exception:
        log.exception("metrics could not be gathered")
        observe(METRICS_ERRORS.inc)
        return HttpResponse("metrics unavailable\n", status=503, content_type="text/plain")
    return HttpResponse(text, content_type=CONTENT_TYPE_LATEST)


def worker_server_start(port: int) -> None:
    """Serve this worker's metrics (its pool's processes, in multiprocess mode) on
    ``port``; a failure (the port taken) is logged, and the worker goes on."""
    from prometheus_client import start_http_server

    try:
        start_http_server(port, registry=process_registry())
    except Exception:
        log.exception("worker metrics cannot be served on port %s", port)
        observe(METRICS_ERRORS.inc)


def process_exited(pid: int) -> None:
    """Forget the live gauges of a pool process that exited (multiprocess mode)."""
    if multiprocess_enabled():
        observe(lambda: multiprocess.mark_process_dead(pid))
