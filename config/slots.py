"""The slots of a lane that one owner's work may hold at once: each worker process that
plays a unit of work counts its slot as the unit's owners' (one hash per lane in Redis,
process -> owners), and a unit whose owner holds its most already elsewhere gives its
turn (``config.fairshare``). The users' lane keeps a slot free for the next person's
upload; the competitions' lane keeps one person's slow bots from every slot a round of
another organiser's waits on. Slots of processes that stopped beating
(``config.liveness``) are dropped on the way. Best effort: with Redis out of reach every
slot is taken.

The users' lane also keeps its **last free slot for a light owner** (:func:`take_slot`
with ``reserve``): the owners who used more than :data:`LIGHT_S` seconds of worker slots
lately (the ledger of ``config.fairshare``, read in the same script) hold at most all
its slots but one, so that a person who uploads now finds a slot free however long the
heavy owners' units last (a validation of a bot that sleeps through its budget holds
one for minutes, and a unit that started cannot be stopped for another). Each worker
process of the lane counts itself a member of it (:func:`join_lane`): the slots of the
lane are its members alive. A lane of one slot keeps none back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from config import redis_client
from config.ledger import DECAYED_LUA, HALF_LIFE_S, LEDGER_KEY

log = logging.getLogger(__name__)

#: The slots in play of a lane: one hash per lane, worker process -> the owners it plays
#: for (space-separated tenants).
SLOTS_KEY = "cardroom:fairshare:user-slots"
#: The lanes whose slots an owner's work holds a bounded number of.
USERS_LANE, COMPETITIONS_LANE = "users", "competitions"
_SLOTS_KEYS = {USERS_LANE: SLOTS_KEY, COMPETITIONS_LANE: "cardroom:fairshare:competition-slots"}
#: The kinds of work (``CARDROOM_QUEUES``) of the users' lane: a worker process that takes
#: any of them is one of its slots.
USERS_KINDS = frozenset({"validation", "challenge", "version-test"})
#: The worker processes of a lane (one hash per lane, process -> "1"): how many slots it has.
MEMBERS_PREFIX = "cardroom:fairshare:lane-members:"
#: An owner who used more than this many seconds of worker slots lately (decayed, as the
#: ledger keeps them) is heavy: the users' lane's last free slot is not for its work.
LIGHT_S = 60.0


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


#: KEYS[1] the lane's slots, KEYS[2] its members, KEYS[3] the fair-share ledger; ARGV:
#: this process, its owners (space-separated), the most slots any of them may hold (-1:
#: no most), the prefix of a live process's heartbeat key, whether to keep the last free
#: slot for a light owner (1 or 0), now, the ledger's half-life, LIGHT_S. 1 if taken,
#: 0 if the owners hold their most already, -1 if the last free slot is kept. A slot
#: counts against the owners when it plays for any of them; slots held by processes that
#: no longer beat are dropped on the way, and so are members.
_TAKE = (
    DECAYED_LUA
    + """
local now, half, light = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local function heavy(owners)
  for owner in string.gmatch(owners, '%S+') do
    if decayed(redis.call('HGET', KEYS[3], owner), now, half) > light then return true end
  end
  return false
end
local mine = {}
for owner in string.gmatch(ARGV[2], '%S+') do mine[owner] = true end
local held, heavies = 0, 0
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
      if ARGV[5] == '1' and heavy(owners) then heavies = heavies + 1 end
    end
  end
end
local most = tonumber(ARGV[3])
if most >= 0 and held >= most then
  return 0
end
if ARGV[5] == '1' and heavy(ARGV[2]) then
  local members = 0
  local listed = redis.call('HKEYS', KEYS[2])
  for _, process in ipairs(listed) do
    if redis.call('EXISTS', ARGV[4] .. process) == 0 then
      redis.call('HDEL', KEYS[2], process)
    else
      members = members + 1
    end
  end
  if members > 1 and heavies + 1 > members - 1 then
    return -1
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
)
_slot_held: str | None = None  # the lane whose slot this process counts as held
#: Why the last :func:`take_slot` of this process was refused ("" if it was not).
_refused = ""
#: What each refusal of the slots' script means.
_REFUSALS = {0: "holds a slot", -1: "is heavy: the last free slot is kept for a light owner"}


def take_slot(
    owner_tenant: str | None | Sequence[str | None],
    *,
    most: int | None,
    lane: str = USERS_LANE,
    reserve: bool = False,
) -> bool:
    """Count this process's slot of ``lane`` as its owners' (one tenant, or several: a
    match's table) unless one of them holds ``most`` slots already elsewhere (None: no
    most), or, with ``reserve``, unless they are heavy and heavy owners hold every slot
    of the lane but one already (the last is kept for a light owner: module docstring);
    True if taken (or with Redis out of reach, or no owner: nothing to share); why not
    in :func:`refused`."""
    global _slot_held, _refused
    _refused = ""
    if owner_tenant is None or isinstance(owner_tenant, str):
        owners = [owner_tenant] if owner_tenant else []
    else:
        owners = sorted({o for o in owner_tenant if o})
    if not owners:
        return True
    from django.conf import settings

    from config import liveness

    prefix = settings.CARDROOM_QUEUE_PREFIX
    keys = (prefix + _SLOTS_KEYS[lane], prefix + MEMBERS_PREFIX + lane, prefix + LEDGER_KEY)
    process = liveness.process_name()
    try:
        taken = redis_client.client().eval(
            _TAKE, len(keys), *keys, process, " ".join(owners), -1 if most is None else most,
            liveness.ALIVE_PREFIX, "1" if reserve else "0", time.time(), HALF_LIFE_S, LIGHT_S,
        )  # fmt: skip
    except Exception as exc:
        log.debug("%s' slot not counted: %s", lane, exc)
        return True
    _slot_held = lane if taken == 1 else None
    _refused = _REFUSALS.get(taken, "")
    return taken == 1


def refused() -> str:
    """Why this process's last :func:`take_slot` was refused: its owners hold their most
    slots already, or they are heavy and the lane's last free slot is kept for a light
    owner; "" if it was taken."""
    return _refused


def join_lane(lane: str) -> None:
    """This worker process plays the units of ``lane``: it counts as one of its slots
    until it stops beating (``config.liveness``; the worker's pool processes join at
    their start, ``config.celery``)."""
    from django.conf import settings

    from config import liveness

    try:
        redis_client.client().hset(
            settings.CARDROOM_QUEUE_PREFIX + MEMBERS_PREFIX + lane, liveness.process_name(), "1"
        )
    except Exception as exc:
        log.debug("not counted a member of the %s' lane: %s", lane, exc)


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
