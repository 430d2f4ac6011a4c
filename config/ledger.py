"""Where the ledger of worker seconds lives in Redis and how fast it forgets: shared by
the fair share's turns (``config.fairshare``, which charges and reads it) and the lanes'
slots (``config.slots``, whose script reads it to tell a heavy owner from a light one).

An entry is ``"usage:timestamp"``: the seconds as of ``timestamp``; read later, they have
halved every :data:`HALF_LIFE_S`. The decay is written once for Python (:func:`decayed`)
and once for the Redis scripts that read the ledger (:data:`DECAYED_LUA`).
"""

from __future__ import annotations

import math

#: One hash: tenant -> "usage:timestamp" (usage in seconds, as of timestamp).
LEDGER_KEY = "cardroom:fairshare:ledger"
#: Usage halves in this many seconds: the ledger measures the last several minutes.
HALF_LIFE_S = 300.0


#: ``decayed(entry, now, half)`` for the Lua scripts (prepended to each): an entry's
#: usage as of ``now``, 0 for none.
DECAYED_LUA = """
local function decayed(entry, now, half)
  if not entry then return 0 end
  local sep = string.find(entry, ':')
  local value = tonumber(string.sub(entry, 1, sep - 1))
  local at = tonumber(string.sub(entry, sep + 1))
  return value * math.pow(0.5, math.max(0, now - at) / half)
end
"""


def decayed(value: float, at: float, now: float) -> float:
    """Seconds ``value`` charged as of ``at``, as the ledger counts them at ``now``."""
    return value * math.pow(0.5, max(0.0, now - at) / HALF_LIFE_S)
