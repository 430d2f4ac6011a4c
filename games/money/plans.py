"""Action ids and the enumeration of legal purchase steps (MONEY-JO-8..14, MONEY-EG-2..4).

Every money system has its own :class:`ActionTable`: the list of every label
a game with that money can ever use, so an action id is an index into it.
Ids, and therefore legal lists, are in this order (ACTION-7):

1. ``turn`` (0), ``capture`` (1), ``decline`` (2);
2. ``buy <C> at ground change <M>``: by paid card C in label order (highest
   value first), then by change M in *set order* (value, then label);
3. ``buy <C> at opponent``: by C in label order;
4. ``exchange <G> for <R> at opponent``, then the same ``at ground``: by G in
   set order, then R in set order;
5. ``change <M>``: by M in set order.

A :class:`Planner` answers "which purchase steps are legal" from the money
positions (packed sets, see ``games.money.sets``) and two numeral counts, and
memoises the answers: money positions repeat a great deal within and across
games, so a purchase decision is usually one dictionary lookup (its key one
int: :func:`position_key`). The parts of an answer (the ground buys, the
opponent buys, the exchanges with each place) are memoised too, on the
fewer arguments each depends on, so that a position not seen before costs a
few lookups rather than a search.
"""

from __future__ import annotations

from typing import Final

from games.money.sets import MoneySystem

# Final: constants to mypyc (build_engines.py), which then reads them without a lookup.
TURN: Final = 0
CAPTURE: Final = 1
DECLINE: Final = 2
K_TURN: Final = 0
K_CAPTURE: Final = 1
K_DECLINE: Final = 2
K_GROUND: Final = 3
K_OPPONENT: Final = 4
K_EXCHANGE: Final = 5
K_CHANGE: Final = 6

# Places and purchase sources.
GROUND: Final = 0
OPPONENT: Final = 1
ANY: Final = 2
STUCK: Final = 3
PLACE_NAMES = ("ground", "opponent", "any", "stuck")

#: MONEY-JO-9: with fewer numerals than this in the pile, Jordan buys from the opponent.
GROUND_THRESHOLD = 5

_CACHE_LIMIT: Final = 400_000
#: Bits of a packed money set (four per denomination, at most four denominations) and of
#: a numeral count clamped at the highest value (at most 30) in :func:`position_key`.
_SET_BITS: Final = 16
_COUNT_BITS: Final = 5


def position_key(bank: int, other: int, under: int, g: int, s: int) -> int:
    """One int for the money position and the two clamped numeral counts (memo keys).

    The fields are folded into the low bits (``x ^ x >> 20 ^ x >> 40``, one to one),
    where a dictionary first looks: left as they are, the low bits would hold only
    the counts and the money under the pile, and most keys would collide there.
    """
    x = (((bank << _SET_BITS | other) << _SET_BITS | under) << _COUNT_BITS | g) << (_COUNT_BITS) | s
    return x ^ x >> 20 ^ x >> 40


class ActionTable:
    """Every action label of one money system, with its decoded arguments.

    ``kind[a]`` is one of the ``K_*`` constants and ``args[a]`` its arguments:
    ``(d, M)`` for a ground buy (denomination index, packed change),
    ``(d,)`` for an opponent buy, ``(place, G, R)`` for an exchange,
    ``(M,)`` for a change.
    """

    def __init__(self, system: MoneySystem) -> None:
        self.system = system
        labels: list[str] = ["turn", "capture", "decline"]
        kind = [K_TURN, K_CAPTURE, K_DECLINE]
        args: list[tuple[int, ...]] = [(), (), ()]
        name = system.label
        self.ground: dict[tuple[int, int], int] = {}
        self.opponent: dict[int, int] = {}
        self.exchange: dict[tuple[int, int, int], int] = {}
        self.change: dict[int, int] = {}

        def add(label: str, k: int, a: tuple[int, ...]) -> int:
            labels.append(label)
            kind.append(k)
            args.append(a)
            return len(labels) - 1

        for d, letter in enumerate(system.letters):
            for m in system.sets:
                if system.value[m] < system.values[d]:
                    self.ground[(d, m)] = add(
                        f"buy {letter} at ground change {name[m]}", K_GROUND, (d, m)
                    )
        for d, letter in enumerate(system.letters):
            self.opponent[d] = add(f"buy {letter} at opponent", K_OPPONENT, (d,))
        pairs = [
            (g, r)
            for g in system.sets[1:]
            for r in system.sets[1:]
            if system.value[g] == system.value[r] and not system.support[g] & system.support[r]
        ]
        for place in (OPPONENT, GROUND):
            for g, r in pairs:
                self.exchange[(place, g, r)] = add(
                    f"exchange {name[g]} for {name[r]} at {PLACE_NAMES[place]}",
                    K_EXCHANGE,
                    (place, g, r),
                )
        for m in system.sets:
            self.change[m] = add(f"change {name[m]}", K_CHANGE, (m,))
        self.labels: tuple[str, ...] = tuple(labels)
        self.ids: dict[str, int] = {label: i for i, label in enumerate(labels)}
        self.kind: tuple[int, ...] = tuple(kind)
        self.args: tuple[tuple[int, ...], ...] = tuple(args)


class Planner:
    """Legal purchase steps for one money system (memoised pure functions).

    Arguments everywhere: ``bank`` (the buyer's bank), ``other`` (the
    opponent's bank), ``under`` (money under the pile), ``g`` (numerals in the
    pile), ``s`` (numerals in the opponent's stack).
    """

    def __init__(self, system: MoneySystem) -> None:
        self.system = system
        self.table = ActionTable(system)
        self._purchase: dict[int, tuple[int, ...]] = {}
        self._free: dict[int, tuple[int, ...]] = {}
        self._source: dict[tuple[int, ...], int] = {}
        self._changes: dict[tuple[int, int, int], tuple[int, ...]] = {}
        self._exchanges: dict[tuple[int, int, int], tuple[tuple[int, int, int], ...]] = {}
        self._ground: dict[tuple[int, int, int], list[int]] = {}
        self._opponent: dict[tuple[int, int, int], list[int]] = {}

    # -- single buys --------------------------------------------------------------
    def ground_buys(self, bank: int, under: int, g: int) -> list[int]:
        """MONEY-JO-11: pay C, take change M from under the pile and N = V - value(M)
        numerals, 1 <= N <= g."""
        sy = self.system
        value, ids, out = sy.value, self.table.ground, []
        subsets = sy.subsets(under)
        for d in range(sy.count):
            if (bank >> (4 * d)) & 0xF:
                full = sy.values[d]
                for m in subsets:  # set order: ascending value
                    v = value[m]
                    if v >= full:
                        break
                    if full - v <= g:
                        out.append(ids[(d, m)])
        return out

    def best_change_below(self, bank: int, limit: int) -> int:
        """The highest value of a subset of ``bank`` worth less than ``limit``."""
        value, best = self.system.value, 0
        for m in self.system.subsets(bank):
            v = value[m]
            if v >= limit:
                break
            best = v
        return best

    def opponent_buys(self, bank: int, other: int, s: int) -> list[int]:
        """MONEY-JO-12, MONEY-JO-19: pay C to the opponent; legal when some change
        from his bank leaves N = V - value(M) <= s."""
        sy = self.system
        out = []
        for d in range(sy.count):
            if (bank >> (4 * d)) & 0xF:
                full = sy.values[d]
                if full - self.best_change_below(other, full) <= s:
                    out.append(self.table.opponent[d])
        return out

    def changes(self, seller_bank: int, full: int, s: int) -> tuple[int, ...]:
        """MONEY-JO-12: the seller's legal change ids for a card of value ``full``."""
        key = (seller_bank, full, min(s, full))
        found = self._changes.get(key)
        if found is None:
            value, ids = self.system.value, self.table.change
            found = tuple(
                ids[m]
                for m in self.system.subsets(seller_bank)
                if value[m] < full and full - value[m] <= s
            )
            self._changes[key] = found
        return found

    def exchanges(
        self, bank: int, place_money: int, place: int
    ) -> tuple[tuple[int, int, int], ...]:
        """MONEY-JO-10, MONEY-JO-19: ``(id, G, R)`` for every exchange with one place,
        ascending ids."""
        key = (bank, place_money, place)
        found = self._exchanges.get(key)
        if found is None:
            found = self._find_exchanges(bank, place_money, place)
            if len(self._exchanges) >= _CACHE_LIMIT:
                self._exchanges.clear()
            self._exchanges[key] = found
        return found

    def _find_exchanges(self, bank: int, place_money: int, place: int) -> tuple:
        sy = self.system
        value, support, ids = sy.value, sy.support, self.table.exchange
        receivable: dict[int, list[int]] = {}
        for r in sy.subsets(place_money)[1:]:
            receivable.setdefault(value[r], []).append(r)
        out = []
        for g in sy.subsets(bank)[1:]:
            for r in receivable.get(value[g], ()):
                if not support[g] & support[r]:
                    out.append((ids[(place, g, r)], g, r))
        return tuple(out)

    # -- whole purchase decisions -----------------------------------------------
    def _buys(self, bank: int, other: int, under: int, g: int, s: int, source: int) -> list[int]:
        """Ground buys then opponent buys from ``source``, each part memoised."""
        top = self.system.max_value
        out: list[int] = []
        if source != OPPONENT:
            key = (bank, under, min(g, top))
            ground = self._ground.get(key)
            if ground is None:
                ground = self._ground[key] = self.ground_buys(bank, under, g)
                if len(self._ground) >= _CACHE_LIMIT:
                    self._ground.clear()
            out += ground
        if source != GROUND:
            key = (bank, other, min(s, top))
            opponent = self._opponent.get(key)
            if opponent is None:
                opponent = self._opponent[key] = self.opponent_buys(bank, other, s)
                if len(self._opponent) >= _CACHE_LIMIT:
                    self._opponent.clear()
            out += opponent
        return out

    def _exchange_ids(
        self, bank: int, other: int, under: int, g: int, s: int, source: int, compulsory: bool
    ) -> list[int]:
        out = []
        for place, money in ((OPPONENT, other), (GROUND, under)):
            for a, give, take in self.exchanges(bank, money, place):
                if compulsory:
                    # MONEY-JO-19: only if some legal buy can follow.
                    new_bank, new_money = bank - give + take, money - take + give
                    o2, u2 = (new_money, under) if place == OPPONENT else (other, new_money)
                    if not self._buys(new_bank, o2, u2, g, s, source):
                        continue
                out.append(a)
        return out

    def purchase(
        self,
        bank: int,
        other: int,
        under: int,
        g: int,
        s: int,
        source: int,
        compulsory: bool,
        exchanged: bool,
    ) -> tuple[int, ...]:
        """Legal purchase steps, ``turn`` excluded, ascending (ground buys, opponent
        buys, exchanges with the opponent, exchanges at the ground: table order).

        ``source`` is GROUND, OPPONENT or ANY (MONEY-EG-3); exchanges are listed
        unless one was made (LIMIT-2), filtered when the buy is compulsory.
        """
        top = self.system.max_value
        flags = source << 2 | int(compulsory) << 1 | int(exchanged)
        key = position_key(bank, other, under, min(g, top), min(s, top)) << 4 | flags
        found = self._purchase.get(key)
        if found is None:
            found = self._find_purchase(bank, other, under, g, s, source, compulsory, exchanged)
            if len(self._purchase) >= _CACHE_LIMIT:
                self._purchase.clear()
            self._purchase[key] = found
        return found

    def free_purchase(
        self, bank: int, other: int, under: int, g: int, s: int, exchanged: bool
    ) -> tuple[int, ...]:
        """MONEY-EG-2, MONEY-EG-3: ``turn``, then :meth:`purchase` from either source
        (not compulsory), as one memoised tuple."""
        top = self.system.max_value
        key = position_key(bank, other, under, min(g, top), min(s, top)) << 1 | int(exchanged)
        found = self._free.get(key)
        if found is None:
            found = (TURN, *self._find_purchase(bank, other, under, g, s, ANY, False, exchanged))
            if len(self._free) >= _CACHE_LIMIT:
                self._free.clear()
            self._free[key] = found
        return found

    def _find_purchase(
        self,
        bank: int,
        other: int,
        under: int,
        g: int,
        s: int,
        source: int,
        compulsory: bool,
        exchanged: bool,
    ) -> tuple[int, ...]:
        ids = self._buys(bank, other, under, g, s, source)
        if not exchanged:
            ids += self._exchange_ids(bank, other, under, g, s, source, compulsory)
        return tuple(ids)  # the parts come in table order: already ascending

    def jordan_source(self, bank: int, other: int, under: int, g: int, s: int) -> int:
        """MONEY-JO-9, MONEY-JO-14: GROUND, OPPONENT or STUCK for a compulsory purchase.

        The ground when it holds at least 5 numerals and some plan (with or
        without an exchange) buys there; otherwise the opponent if some plan
        buys there; otherwise the buyer is stuck.
        """
        top = max(self.system.max_value, GROUND_THRESHOLD)
        key = (bank, other, under, min(g, top), min(s, top))
        found = self._source.get(key)
        if found is None:
            found = STUCK
            if g >= GROUND_THRESHOLD and self.purchase(
                bank, other, under, g, s, GROUND, True, False
            ):
                found = GROUND
            elif self.purchase(bank, other, under, g, s, OPPONENT, True, False):
                found = OPPONENT
            if len(self._source) >= _CACHE_LIMIT:
                self._source.clear()
            self._source[key] = found
        return found

    def stuck_action(self, bank: int, g: int, s: int) -> int:
        """MONEY-JO-14: pay the lowest card to the source with more numerals (ground on a tie)."""
        sy = self.system
        d = next(d for d in range(sy.count - 1, -1, -1) if (bank >> (4 * d)) & 0xF)
        if g >= s:
            return self.table.ground[(d, 0)]
        return self.table.opponent[d]
