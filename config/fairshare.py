"""Worker seconds shared by owner and by competition: a ledger of the time each tenant's
work held a worker slot lately, and the turn a piece of work gives up while its tenants
have had more than their share and others' work waits.

A **tenant** is a string: ``owner:<user id>`` or ``competition:<id>``. Each unit of work
(a match, a list's match, a validation, a version test's slice) is charged the wall
seconds it holds its slot, as it plays (every heartbeat, ``config.liveness``) and when
it ends (:func:`begin`, :func:`end`; what ended units owe goes to Redis at most once a
second, :func:`settle`), to each of its tenants: a match to its
competition and to the owner of each bot at its table, a validation or a version test to
its bot's owner. A bot that sleeps through its budget makes its own owner's and its own
competition's work expensive, not anyone else's.

The ledger forgets with a half-life of :data:`HALF_LIFE_S` (a tenant's **usage** is its
seconds decayed by their age), so it measures the share of the last several minutes.

At a task boundary (a worker slot about to start a unit) :func:`should_yield` compares
each of the unit's tenants with the other tenants of its kind served lately (charged
within :data:`ACTIVE_S`): over :data:`OVER` times their median usage and by more than
:data:`MARGIN_S`, while other work waits in the queues the slot takes, the unit gives
its turn: its message goes back to its queue to be taken :data:`YIELD_S` seconds later,
and the slot takes the next. As its tenant's usage decays it plays again: a tenant whose
matches hold a slot for five minutes plays about one every ten while others have work,
a third of a slot. A unit gives way at most :data:`MAX_YIELDS` times (its message counts
them), then plays whatever its tenants used: no work waits for ever (ageing); and a
tenant alone on the fleet, or whose work nobody else's waits behind, plays at full
speed.

Everything here is best effort: with Redis out of reach nothing is charged and nothing
gives way.
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections.abc import Iterable, Sequence

from config import redis_client
from config.ledger import DECAYED_LUA, HALF_LIFE_S, LEDGER_KEY, decayed
from config.slots import (  # re-exported: the lanes' slots an owner's work holds
    COMPETITIONS_LANE,
    USERS_LANE,  # noqa: F401 (re-exported: the lane of a challenge's match)
    owner_slots,
    refused,
    release_slot,
    slot_held,
    take_slot,
)

log = logging.getLogger(__name__)

#: A tenant charged within this long is active: its usage is compared (work that is
#: being served is charged every few seconds; one that stopped has nothing waiting).
ACTIVE_S = 60.0
#: A unit gives way when its heaviest tenant used more than OVER times the median of the
#: other active tenants, and more than MARGIN_S seconds above it.
OVER = 3.0
MARGIN_S = 60.0
#: A unit gives way for YIELD_S seconds at a time, at most MAX_YIELDS times (about ten
#: minutes): by then its tenants' usage has decayed, or it plays regardless.
MAX_YIELDS = 120
YIELD_S = 5.0


#: KEYS[1] the ledger; ARGV: now, half-life, seconds, then the tenants charged.
_CHARGE = (
    DECAYED_LUA
    + """
local now = tonumber(ARGV[1])
local half = tonumber(ARGV[2])
local seconds = tonumber(ARGV[3])
for i = 4, #ARGV do
  local usage = decayed(redis.call('HGET', KEYS[1], ARGV[i]), now, half)
  redis.call('HSET', KEYS[1], ARGV[i], tostring(usage + seconds) .. ':' .. tostring(now))
end
return #ARGV - 3
"""
)


def _key() -> str:
    from django.conf import settings

    return settings.CARDROOM_QUEUE_PREFIX + LEDGER_KEY


def owner(user_id: int | None) -> str | None:
    return None if user_id is None else f"owner:{user_id}"


def competition(competition_id: int | None) -> str | None:
    return None if competition_id is None else f"competition:{competition_id}"


def charge(tenants: Iterable[str | None], seconds: float, *, now: float | None = None) -> None:
    """Charge ``seconds`` of a worker slot to each of ``tenants`` (None ones left out)."""
    named = sorted({t for t in tenants if t})
    if not named or seconds <= 0:
        return
    now = time.time() if now is None else now
    try:
        redis_client.client().eval(_CHARGE, 1, _key(), now, HALF_LIFE_S, seconds, *named)
    except Exception as exc:  # Redis away: the share is a courtesy
        log.debug("worker seconds not charged to %s: %s", named, exc)


#: The unit this process plays now: its tenants, the time charged up to, and the owner
#: whose day of the users' lane it counts against (None: none).
_unit: tuple[tuple[str, ...], float, str | None] | None = None
_unit_lock = threading.Lock()

#: The seconds of ended units not charged yet, by their tenants, and when this process
#: last charged them: a unit that ends adds to them, and they are charged at most every
#: :data:`OWED_S` (by the next unit's end, the heartbeat's :func:`tick`, or a read of
#: the ledger in this process), not one round trip to Redis a unit. Quick matches end a
#: few hundred times a second, and the ledger is looked at once a second
#: (:data:`LOOK_S`).
OWED_S = 1.0
_owed: dict[tuple[str, ...], float] = {}
_owed_at = -1e9


def begin(
    tenants: Iterable[str | None], *, day_of: str | None = None, lane: str | None = None
) -> None:
    """This process starts a unit of ``tenants``: its seconds are charged as it plays (by
    :func:`tick`, from the heartbeat thread: ``config.liveness``) and when it ends
    (:func:`end`), so that a unit holding its slot for minutes weighs while it holds it.
    A unit of the users' lane also counts against ``day_of``'s seconds of today
    (:func:`day_seconds`: the ``worker_seconds_per_day`` allowance).

    With ``lane``, the slot this process plays it in counts as its owners' if no check
    took it already (the unit started while nothing else waited, or was called
    directly): a slot is counted whenever it is held, so that the next unit of the same
    owners, started once others' work waits, sees it (:func:`take_slot`)."""
    global _unit
    tenants = list(tenants)
    if lane is not None and slot_held() is None:
        owners = [t for t in tenants if t and t.startswith("owner:") and t != "owner:"]
        take_slot(owners, most=None, lane=lane)
    with _unit_lock:
        _unit = (tuple(sorted({t for t in tenants if t})), time.time(), day_of)


def tick() -> None:
    """Charge the unit in play the seconds since its last charge, and what ended units
    owe (the heartbeat's call)."""
    global _unit
    playing = None
    with _unit_lock:
        if _unit is not None:
            tenants, since, day_of = _unit
            now = time.time()
            _unit = (tenants, now, day_of)
            playing = (tenants, now - since, now, day_of)
    if playing is not None:
        charge(playing[0], playing[1], now=playing[2])
        _charge_day(playing[3], playing[1], now=playing[2])
    settle()


def end() -> None:
    """The unit in play ended: what is left of its seconds is owed, and charged with the
    rest within :data:`OWED_S` (:func:`settle`), or at once for a unit that counts against
    an owner's day (``day_of``); its slot is given back (:func:`take_slot`)."""
    global _unit
    release_slot()
    with _unit_lock:
        if _unit is None:
            return
        tenants, since, day_of = _unit
        _unit = None
        now = time.time()
        if day_of is None and tenants and now > since:
            _owed[tenants] = _owed.get(tenants, 0.0) + (now - since)
        due = time.monotonic() - _owed_at >= OWED_S
    if day_of is not None:  # a unit of the users' lane: its day's seconds count at once
        charge(tenants, now - since, now=now)
        _charge_day(day_of, now - since, now=now)
    if due:
        settle()


def settle() -> None:
    """Charge what this process's ended units owe (:func:`end`) now."""
    global _owed_at
    with _unit_lock:
        owed = list(_owed.items())
        _owed.clear()
        _owed_at = time.monotonic()
    now = time.time()
    for tenants, seconds in owed:
        charge(tenants, seconds, now=now)


#: One counter per owner and UTC day: the seconds its work held a slot of the users' lane.
DAY_PREFIX = "cardroom:fairshare:day:"


def _day_key(owner_tenant: str, now: float) -> str:
    from django.conf import settings

    day = time.strftime("%Y-%m-%d", time.gmtime(now))
    return f"{settings.CARDROOM_QUEUE_PREFIX}{DAY_PREFIX}{day}:{owner_tenant}"


def _charge_day(owner_tenant: str | None, seconds: float, *, now: float) -> None:
    if owner_tenant is None or seconds <= 0:
        return
    key = _day_key(owner_tenant, now)
    try:
        pipe = redis_client.client().pipeline(transaction=False)
        pipe.incrbyfloat(key, seconds)
        pipe.expire(key, 2 * 86400)
        pipe.execute()
    except Exception as exc:  # best effort, as the ledger
        log.debug("day's seconds not charged: %s", exc)


def day_seconds(owner_tenant: str | None, *, now: float | None = None) -> float:
    """The seconds ``owner_tenant``'s work held a slot of the users' lane today (UTC),
    the unit in play counted as it plays; 0.0 if Redis cannot be read."""
    if owner_tenant is None:
        return 0.0
    try:
        value = redis_client.client().get(
            _day_key(owner_tenant, time.time() if now is None else now)
        )
    except Exception as exc:
        log.debug("day's seconds not read: %s", exc)
        return 0.0
    return float(value or 0.0)


def usages(*, now: float | None = None) -> dict[str, float]:
    """Each active tenant's usage now (decayed seconds); {} if Redis cannot be read."""
    now = time.time() if now is None else now
    settle()  # what this process owes first: it reads its own charges
    try:
        raw = redis_client.client().hgetall(_key())
    except Exception as exc:
        log.debug("worker seconds not read: %s", exc)
        return {}
    out = {}
    for tenant, held in raw.items():
        value, _, at = held.decode().partition(":")
        try:
            value_f, at_f = float(value), float(at)
        except ValueError:
            continue
        if now - at_f <= ACTIVE_S:
            out[tenant.decode()] = decayed(value_f, at_f, now)
    return out


#: Seconds a process keeps its look at the ledger (:func:`heavy`): a unit about to start
#: costs no round trip to Redis while the look is fresh.
LOOK_S = 1.0
_look: tuple[float, frozenset[str], dict[str, float]] = (-1e9, frozenset(), {})


def heavy(*, now: float | None = None, fresh: bool = False) -> frozenset[str]:
    """The tenants that used more than their share lately: more than :data:`OVER` times
    the median usage of the other tenants of their kind (owners, or competitions) served
    within :data:`ACTIVE_S`, and :data:`MARGIN_S` seconds more. Looked at once per
    :data:`LOOK_S` per process (``fresh``: now)."""
    global _look
    clock = time.monotonic()
    if not fresh and clock - _look[0] < LOOK_S:
        return _look[1]
    used = usages(now=now)
    found = set()
    for tenant, mine in used.items():
        kind = tenant.partition(":")[0] + ":"
        others = [u for t, u in used.items() if t.startswith(kind) and t != tenant]
        if not others:
            continue  # alone of its kind lately: nobody else's share to keep
        typical = statistics.median(others)
        if mine > OVER * typical and mine - typical > MARGIN_S:
            found.add(tenant)
    _look = (clock, frozenset(found), used)
    return _look[1]


def usage(tenant: str) -> float:
    """``tenant``'s usage as of the last look (:func:`heavy`); 0.0 if not active."""
    heavy()
    return _look[2].get(tenant, 0.0)


def over_share(tenants: Sequence[str | None], *, now: float | None = None) -> str | None:
    """The first of ``tenants`` that used more than its share lately (:func:`heavy`)."""
    found = heavy(now=now)
    return next((t for t in tenants if t and t in found), None)


def should_yield(
    tenants: Sequence[str | None],
    *,
    yields: int,
    others_wait: bool,
    waiting: Iterable[str] | None = None,
    now: float | None = None,
) -> str | None:
    """Whether a unit of ``tenants`` about to start gives its turn (it has given it
    ``yields`` times already; ``others_wait``: other work waits for this slot): the tenant
    over its share, or None to play now.

    With ``waiting``, the tenants of the work that waits for this slot, the unit gives
    its turn to lighter work only, the lightest first as in weighted fair queuing: when a
    waiting tenant of one of its tenants' kind used less than an :data:`OVER`-th of it,
    and :data:`MARGIN_S` seconds less (a table of house bots alone, nobody's, and a
    newcomer used nothing). Work that waits behind it but used as much or more is no
    reason to stop: an organiser's round robin does not give way to the flood it is
    measured against."""
    if yields >= MAX_YIELDS or not others_wait:
        return None
    if waiting is None:
        return over_share(tenants, now=now)
    waiting = [t for t in waiting if t not in tenants]
    heavy(now=now)  # a fresh enough look at the ledger
    for over in filter(None, tenants):
        kind, mine = over.partition(":")[0] + ":", usage(over)
        for other in waiting:
            theirs = usage(other)
            if other.startswith(kind) and theirs * OVER < mine and mine - theirs > MARGIN_S:
                return over
    return None


def users_unit_gives_turn(
    owner_tenant: str | None,
    tenants: Sequence[str | None],
    *,
    yields: int,
    others_wait: bool,
    waiting: Iterable[str] | None = None,
) -> str | None:
    """Whether a unit of the users' lane about to start gives its turn, and why: its owner
    holds :func:`owner_slots` slots already (its own is counted otherwise, until
    :func:`end`), or one of ``tenants`` used more than its share while others' work waits
    (:func:`should_yield`); None to play now. Past :data:`MAX_YIELDS` it plays."""
    capped = yields < MAX_YIELDS  # a slot is kept for the next person
    if not take_slot(owner_tenant, most=owner_slots() if capped else None, reserve=capped):
        return f"{owner_tenant} {refused()}"
    over = should_yield(tenants, yields=yields, others_wait=others_wait, waiting=waiting)
    if over is None:
        return None
    release_slot()
    return f"{over} over its share"


def competition_unit_gives_turn(
    tenants: Sequence[str | None],
    *,
    yields: int,
    others_wait: bool,
    waiting: Iterable[str] | None = None,
) -> str | None:
    """Whether a match of the competitions' lane about to start gives its turn, and why:
    while another's work waits, one of its owners holds :func:`owner_slots` of the lane's
    slots already, or one of ``tenants`` used more than its share (:func:`should_yield`);
    None to play now. A match of house bots alone is nobody's: never capped."""
    if not others_wait or yields >= MAX_YIELDS:
        return None
    owners = [t for t in tenants if t and t.startswith("owner:")]
    if not take_slot(owners, most=owner_slots(COMPETITIONS_LANE), lane=COMPETITIONS_LANE):
        return f"{' '.join(owners)} holds a slot"
    over = should_yield(tenants, yields=yields, others_wait=others_wait, waiting=waiting)
    if over is None:
        return None
    release_slot()
    return f"{over} over its share"


#: Per unit of work (``match:<id>``...): how often it gave its turn, and whether a message
#: of it sent for later is on its way (a unit may reach a worker by several messages: its
#: own sent later, and the lists of its competition's matches).
TURNS_PREFIX = "cardroom:fairshare:turns:"


def turn_on_its_way(unit: str) -> bool:
    """Whether ``unit`` gave its turn within the last :data:`YIELD_S` seconds, its message
    sent for later still on its way: another delivery of it leaves it to that one."""
    try:
        return bool(redis_client.client().exists(_turns_key(unit) + ":later"))
    except Exception as exc:
        log.debug("turns of %s not read: %s", unit, exc)
        return False


def turns_on_their_way(units: list[str]) -> list[bool]:
    """:func:`turn_on_its_way` of each of ``units``, in one round trip."""
    try:
        pipe = redis_client.client().pipeline(transaction=False)
        for unit in units:
            pipe.exists(_turns_key(unit) + ":later")
        return [bool(found) for found in pipe.execute()]
    except Exception as exc:
        log.debug("turns of %s not read: %s", units, exc)
        return [False] * len(units)


def turns_given(unit: str) -> int:
    """How often ``unit`` gave its turn (its ageing, whichever message brought it)."""
    try:
        return int(redis_client.client().get(_turns_key(unit)) or 0)
    except Exception as exc:
        log.debug("turns of %s not read: %s", unit, exc)
        return 0


def turn_given(unit: str) -> int:
    """``unit`` gives its turn now, a message of it sent :data:`YIELD_S` seconds later:
    how often it has in all."""
    key = _turns_key(unit)
    try:
        pipe = redis_client.client().pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, int(MAX_YIELDS * YIELD_S * 2))
        pipe.set(key + ":later", "1", px=int(YIELD_S * 1000))
        return int(pipe.execute()[0])
    except Exception as exc:
        log.debug("turn of %s not counted: %s", unit, exc)
        return 1


def _turns_key(unit: str) -> str:
    from django.conf import settings

    return f"{settings.CARDROOM_QUEUE_PREFIX}{TURNS_PREFIX}{unit}"


def reset() -> None:
    """Forget every charge (tests, benchmarks)."""
    global _look
    _look = (-1e9, frozenset(), {})
    with _unit_lock:
        _owed.clear()
    try:
        redis_client.client().delete(_key())
    except Exception as exc:
        log.debug("ledger not reset: %s", exc)
