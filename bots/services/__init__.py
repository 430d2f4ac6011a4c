"""Writes on bots, one module per sub-domain: a bot itself (:mod:`~bots.services.bot`),
uploading a version and reading its tree back (:mod:`~bots.services.uploads`), queuing
its validation (:mod:`~bots.services.validation_queue`) and queuing it again when its task was
lost (:mod:`~bots.services.validation_requeue`), running it on a worker
(:mod:`~bots.services.validation_run`), the built-in bots
(:mod:`~bots.services.builtins`). The API tokens (:mod:`~bots.services.tokens`) are
imported from their module: they use the REST framework's token model, which the
site's pages (importing this package) may not reach.

An upload is kept by its SHA-256 in the bot store (``bots.store``: the database
by default, or an object store), never on a disk the workers would have to
share. A worker asks :func:`bot_version_path` for a version's tree: it comes
from the worker's own cache (``bots.cache``, under ``CARDROOM_BOT_CACHE_DIR``),
filled from the store and checked against the hash before anything runs.
Versions uploaded before the store kept their file in ``archive`` under
``MEDIA_ROOT``; migration 0004 copies them into the store, and a worker that
still finds one missing there reads that file instead.

An upload is validated on a worker: :func:`bot_version_queue` marks it
``validating`` and sends ``bots.version_validate`` after commit; the task runs
:func:`bot_version_validate`, which commands and tests may also call directly.
:func:`bot_versions_requeue` (periodic) sends again the validations whose task
was lost or whose worker died.

A user's mistake (a bad name, a refused upload) is a
``django.core.exceptions.ValidationError`` keyed by the field at fault
(``name``, ``file``); a programmer's mistake is a ``ValueError``. Every write is
importable from this package as it was from the one module it replaces.
"""

from bots.services.bot import (
    MAX_NAME_LENGTH,
    bot_challengeable_set,
    bot_create,
    bot_play_set,
)
from bots.services.builtins import (
    builtin_bot_ensure,
    builtin_bots_ensure,
)
from bots.services.uploads import (
    SKETCH_SOURCE_BYTES,
    bot_cache,
    bot_version_content,
    bot_version_path,
    bot_version_upload,
    upload_name,
)
from bots.services.validation_queue import (
    LOST_AFTER_HARD_LIMIT_S,
    QUEUE_KEY,
    TASK_HARD_LIMIT_EXTRA_S,
    VALIDATE_TASK,
    VALIDATION_MAX_ATTEMPTS,
    VALIDATION_STALE_S,
    VALIDATION_WINDOW,
    Sender,
    bot_version_queue,
    bot_version_validate_more,
    send_validation_task,
    validation_plans,
    validation_secret,
    validations_top_up,
)
from bots.services.validation_requeue import bot_versions_requeue
from bots.services.validation_run import (
    bot_version_validate,
)

__all__ = [
    "LOST_AFTER_HARD_LIMIT_S",
    "MAX_NAME_LENGTH",
    "QUEUE_KEY",
    "SKETCH_SOURCE_BYTES",
    "TASK_HARD_LIMIT_EXTRA_S",
    "VALIDATE_TASK",
    "VALIDATION_MAX_ATTEMPTS",
    "VALIDATION_STALE_S",
    "VALIDATION_WINDOW",
    "Sender",
    "bot_cache",
    "bot_challengeable_set",
    "bot_create",
    "bot_play_set",
    "bot_version_content",
    "bot_version_path",
    "bot_version_queue",
    "bot_version_upload",
    "bot_version_validate",
    "bot_version_validate_more",
    "bot_versions_requeue",
    "builtin_bot_ensure",
    "builtin_bots_ensure",
    "send_validation_task",
    "upload_name",
    "validation_plans",
    "validation_secret",
    "validations_top_up",
]
