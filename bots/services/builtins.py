"""The built-in bots: created once, each with its one version, valid at once."""

from __future__ import annotations

import hashlib
import logging

from django.db import transaction

from bots import builtin
from bots.models import Bot, BotVersion

log = logging.getLogger(__name__)


def builtin_bots_ensure() -> list[Bot]:
    """One bot with one ready ``builtin`` version per name of ``bots.builtin.names()``.

    Idempotent: existing rows are kept as they are. Returns the bots in name order.
    """
    return [builtin_bot_ensure(name=name) for name in builtin.names()]


def builtin_bot_ensure(*, name: str) -> Bot:
    """The platform's bot (no owner, named after it) with one ready ``builtin`` version
    that runs the built-in ``name`` (of ``builtin.names()`` or ``builtin.strengths()``),
    made if missing. ``ValueError`` for an unknown name."""
    if name not in builtin.names() and name not in builtin.strengths():
        builtin.make(name)  # raises, naming the known ones
    with transaction.atomic():
        # Several rows may run one built-in (demo tables); the platform's own is the
        # owner-less row named after it.
        bot = Bot.objects.filter(builtin=name, owner=None, name=name).first()
        if bot is None:
            bot = Bot.objects.create(
                builtin=name, name=name, description=f"The platform's built-in {name} bot."
            )
        BotVersion.objects.get_or_create(
            bot=bot,
            number=1,
            defaults={
                "runtime": BotVersion.Runtime.BUILTIN,
                "status": BotVersion.Status.READY,
                "entry_point": f"builtin:{name}",
                "sha256": hashlib.sha256(f"builtin:{name}".encode()).hexdigest(),
            },
        )
    return bot
