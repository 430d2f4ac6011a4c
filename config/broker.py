"""The Redis transport of the Celery broker: kombu's, with one teardown fault mended.

When a worker loses its Redis while a task is unacknowledged (``task_acks_late``:
every running task is), Celery's consumer first collects the broken connection and
then closes it. If the collect's close of the channel fails half-way (its pending
``BRPOP`` read raises on the dead socket), the collect still tears the transport
down, and the close that follows tries again to put the unacknowledged messages back:
kombu builds a new Redis pool from the torn-down transport and raises
``AttributeError: 'NoneType' object has no attribute 'hostname'``. That error is
outside the connection errors Celery ignores there, so the worker stops with
"Unrecoverable error" instead of reconnecting when the broker is back.

Here the second try is skipped: with the transport gone there is no server to put
the messages back on. They stay in Redis's unacknowledged set, from which kombu
restores them after ``visibility_timeout``, and a match they carried is sent again
by the reaper sooner than that (``CARDROOM_QUEUE_GRACE_S``); a duplicate delivery is
harmless. ``CELERY_BROKER_TRANSPORT`` names this transport for ``redis://`` URLs.

The same torn-down channel is met again when a task received before the loss ends
after the worker has reconnected: acknowledging (or rejecting) its message on the old
channel built a pool from the dead transport and stopped the worker with
``AttributeError: 'NoneType' object has no attribute 'client'``. There the message is
forgotten locally; its copy in the unacknowledged set comes back after the visibility
timeout and is skipped as already played.
"""

from __future__ import annotations

import logging

from kombu.transport import redis

log = logging.getLogger(__name__)


class QoS(redis.QoS):
    def _torn_down(self) -> bool:
        connection = self.channel.connection
        return connection is None or connection.client is None

    def restore_unacked(self, client=None):
        if client is None and self._torn_down():
            if self._delivered:
                log.warning(
                    "broker connection already torn down: %d unacknowledged message(s) "
                    "stay in Redis until its visibility timeout",
                    len(self._delivered),
                )
            self._delivered.clear()
            return
        super().restore_unacked(client)

    def ack(self, delivery_tag):
        if self._torn_down():
            log.warning(
                "broker channel torn down: message %s acknowledged locally only", delivery_tag
            )
            self._delivered.pop(delivery_tag, None)
            return
        super().ack(delivery_tag)

    def reject(self, delivery_tag, requeue=False):
        if self._torn_down():
            log.warning("broker channel torn down: message %s rejected locally only", delivery_tag)
            self._delivered.pop(delivery_tag, None)
            return
        super().reject(delivery_tag, requeue=requeue)


class Channel(redis.Channel):
    QoS = QoS


class Transport(redis.Transport):
    Channel = Channel
