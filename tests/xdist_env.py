"""Each pytest-xdist worker gets Redis databases of its own (loaded with ``-p``).

pytest-django imports the settings before any conftest runs, and the settings read
``REDIS_URL`` when imported, so the worker's own URL has to be in the environment
first: this plugin is named in ``addopts`` and imported while the command line is
parsed. xdist has set ``PYTEST_XDIST_WORKER`` (``gw0``, ``gw1``, ...) by then.

Worker ``gwN`` uses database ``1 + N`` as its broker, cache and channel layer, and
``14 - N`` for the Celery worker processes tests start (``CARDROOM_TEST_REDIS_DB``);
PostgreSQL needs nothing: pytest-django suffixes the test database with the worker id.
Subprocesses (workers, the demo, the browser walk) inherit the rewritten variables.
"""

from __future__ import annotations

import os
import re

#: Redis has databases 0 to 15: up to this many workers get two of their own.
MAX_WORKERS = 6


def _worker_index() -> int | None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    match = re.fullmatch(r"gw(\d+)", worker)
    return int(match.group(1)) if match else None


def _with_database(url: str, db: int) -> str:
    """``url`` with its database number replaced by (or set to) ``db``."""
    base, _, tail = url.rpartition("/")
    if base.endswith(":/") or not tail.isdigit():  # redis://host:port (no database)
        return f"{url.rstrip('/')}/{db}"
    return f"{base}/{db}"


def _isolate() -> None:
    index = _worker_index()
    if index is None:
        return
    if index >= MAX_WORKERS:
        raise RuntimeError(
            f"tests/xdist_env.py: worker gw{index} has no Redis databases of its own "
            f"(at most {MAX_WORKERS} workers: run pytest with -n {MAX_WORKERS} or fewer)"
        )
    redis_url = os.environ.get("REDIS_URL")
    if redis_url:
        os.environ["REDIS_URL"] = _with_database(redis_url, 1 + index)
    os.environ["CARDROOM_TEST_REDIS_DB"] = str(14 - index)


_isolate()

# The suite's own processes stand in for no web tier: its bots keep the machine's default
# CPU weight (100) beside them, so a test's timing does not depend on how busy the other
# workers are. The tests of the bots' weight set it themselves (tests/bots/hostile/
# test_resources.py); a deployment has 20 (bots.sandbox.cgroup.DEFAULT_BASE_WEIGHT).
os.environ.setdefault("CARDROOM_SANDBOX_CPU_WEIGHT", "100")

# The suite's accounts are made a moment before they play, by factories or by sign-ups
# without a mailbox, many from one address: its baseline works at once, as the demo does.
# The tests of confirmation, of the wait before public play and of the sign-ups per
# address set these themselves (tests/api/test_confirmation.py, test_public_play.py and
# test_signups.py); an installation's defaults are email, 24 hours and 3 a day.
os.environ.setdefault("CARDROOM_SIGNUP_CONFIRMATION", "none")
os.environ.setdefault("CARDROOM_PUBLIC_PLAY_MIN_AGE_H", "0")
os.environ.setdefault("CARDROOM_THROTTLE_SIGNUP", "1000/min")
