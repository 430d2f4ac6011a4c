"""A small SDK for Python bot authors (no dependency beyond the standard library).

A bot is a subclass of :class:`Bot` (or a plain function wrapped by
:class:`FunctionBot`) whose ``act`` gets the observation and the legal labels
and returns one label. :func:`run` speaks the protocol on stdin/stdout::

    from bots.sdk import Bot, run

    class First(Bot):
        def act(self, observation, legal):
            return legal[0]

    if __name__ == "__main__":
        run(First())

The same objects run in-process in the referee (built-in bots). The bot and its loop
are ``bots.sdk.bot`` (standard library only); the tracked game state (``GameTracker``,
``TrackingBot``, which need ``games``) is ``bots.sdk.tracking``.
"""

from bots.sdk.bot import HISTORY_DELTA, HISTORY_DELTA_VERSION, Bot, FunctionBot, History, run
from bots.sdk.tracking import GameTracker, TrackingBot, TrackingError

__all__ = [
    "HISTORY_DELTA",
    "HISTORY_DELTA_VERSION",
    "Bot",
    "FunctionBot",
    "GameTracker",
    "History",
    "TrackingBot",
    "TrackingError",
    "run",
]
