"""The slots of a lane that one owner's work may hold at once: each worker process that
plays a unit of work counts its slot as the unit's owners' (one hash per lane in Redis,
process -> owners), and a unit whose owner holds its most already elsewhere gives its
turn (``config.fairshare``). The users' lane keeps a slot free for the next person's
upload; the competitions' lane keeps one person's slow bots from every slot a round of
another organiser's waits on. Slots of processes that stopped beating
(``config.liveness``) are dropped on the way. Best effort: with Redis out of reach every
slot is taken.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from config import redis_client

log = logging.getLogger(__name__)

#: The slots in play of a lane: one hash per lane, worker process -> the owners it plays
#: for (space-separated tenants).
SLOTS_KEY = "cardroom:fairshare:user-slots"
#: The lanes whose slots an owner's work holds a bounded number of.
USERS_LANE, COMPETITIONS_LANE = "users", "competitions"
_SLOTS_KEYS = {USERS_LANE: SLOTS_KEY, COMPETITIONS_LANE: "cardroom:fairshare:competition-slots"}


def owner_slots(lane: str = USERS_LANE) -> int:
    """The most slots of ``lane`` an owner's work holds at once while another's waits.

    The users' lane: ``CARDROOM_USERS_OWNER_SLOTS`` (1), so that a slot is free for the
    next person's upload however much one person queued. The competitions' lane:
    ``CARDROOM_COMPETITION_OWNER_SLOTS`` (1), so that the bots of one person (linked
    accounts count as one) whose matches take minutes never hold every slot a round of
    another organiser's waits on. The work held back waits in its queue, given its turn
    every few seconds."""
    from django.conf import settings

    if lane == COMPETITIONS_LANE:
        return settings.CARDROOM_COMPETITION_OWNER_SLOTS
    return settings.CARDROOM_USERS_OWNER_SLOTS


#: KEYS[1] the lane's slots; ARGV: this process, its owners (space-separated), the most
#: slots any of them may hold (-1: no most), the prefix of a live process's heartbeat
#: key. 1 if taken, else 0. A slot counts against the owners when it plays for any of
#: them; slots held by processes that no longer beat are dropped on the way.
_TAKE = """
local mine = {}
for owner in string.gmatch(ARGV[2], '%S+') do mine[owner] = true end
local held = 0
local slots = redis.call('HGETALL', KEYS[1])
for i = 1, #slots, 2 do
  local process, owners = slots[i], slots[i + 1]
  if process ~= ARGV[1] then
    if redis.call('EXISTS', ARGV[4] .. process) == 0 then
      redis.call('HDEL', KEYS[1], process)
    else
      for owner in string.gmatch(owners, '%S+') do
        if mine[owner] then
          held = held + 1
          break
        end
      end
    end
  end
end
local most = tonumber(ARGV[3])
if most >= 0 and held >= most then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
_slot_held: str | None = None  # the lane whose slot this process counts as held


def take_slot(
    owner_tenant: str | None | Sequence[str | None], *, most: int | None, lane: str = USERS_LANE
) -> bool:
    """Count this process's slot of ``lane`` as its owners' (one tenant, or several: a
    match's table) unless one of them holds ``most`` slots already elsewhere (None: no
    most); True if taken (or with Redis out of reach, or no owner: nothing to share)."""
    global _slot_held
    if owner_tenant is None or isinstance(owner_tenant, str):
        owners = [owner_tenant] if owner_tenant else []
    else:
        owners = sorted({o for o in owner_tenant if o})
    if not owners:
        return True
    from django.conf import settings

    from config import liveness

    key = settings.CARDROOM_QUEUE_PREFIX + _SLOTS_KEYS[lane]
    process = liveness.process_name()
    try:
        taken = redis_client.client().eval(
            _TAKE, 1, key, process, " ".join(owners), -1 if most is None else most,
            liveness.ALIVE_PREFIX,
        )  # fmt: skip
    except Exception as exc:
        log.debug("%s' slot not counted: %s", lane, exc)
        return True
    _slot_held = lane if taken else None
    return bool(taken)


def slot_held() -> str | None:
    """The lane whose slot this process counts as held (:func:`take_slot`), or None."""
    return _slot_held


def release_slot() -> None:
    """This process's slot (of whichever lane it took) is free again."""
    global _slot_held
    if _slot_held is None:
        return
    lane, _slot_held = _slot_held, None
    from django.conf import settings

    from config import liveness

    try:
        redis_client.client().hdel(
            settings.CARDROOM_QUEUE_PREFIX + _SLOTS_KEYS[lane], liveness.process_name()
        )
    except Exception as exc:  # dropped by the next take once this process stops beating
        log.debug("%s' slot not given back: %s", lane, exc)
