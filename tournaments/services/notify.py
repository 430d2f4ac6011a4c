"""The services' live notifications: each sent once the transaction that made the
change commits (``tournaments.live.events``)."""

from __future__ import annotations

from functools import partial

from django.db import transaction

from tournaments.live import events


def notify_on_commit(
    competition_id: int, *changes: str, match_id: int | None = None, round_=None
) -> None:
    """The notification of ``changes`` (``tournaments.live.events``) once the transaction
    commits."""
    transaction.on_commit(
        partial(
            events.notify,
            competition_id=competition_id,
            changes=list(changes),
            match_id=match_id,
            round_number=round_,
        ),
        robust=True,
    )
