"""The Celery app: matches run as tasks on worker processes (DESIGN.md sections 5 and 6).

Configuration comes from the ``CELERY_*`` names of ``config.settings`` (the
broker and the result backend are the Redis of ``REDIS_URL``). Start a worker
that plays matches and runs the periodic reaper with::

    celery -A config worker -Q matches,celery --concurrency 4
    celery -A config beat
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("cardroom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
