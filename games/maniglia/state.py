"""The state machinery shared by the four Maniglia variants.

A :class:`ManigliaState` is a :class:`games.tricks.TrickState` (dealing, the
card-play step with the card W winning the trick so far, forfeit, ranking,
record) with the family's own rules: the legal cards (MANIGLIA-GEN-5, who must
beat W), the card points of each trick (MANIGLIA-GEN-6), the inlined random
playout of the tricks (the hot loop of every search), the deal log of the
public history and the observation. The partnership game (``partners.py``)
and the auction games (``auction.py``) add their pre-play phase and their
scoring through the ``_`` hooks.

Everything goes counter-clockwise (MANIGLIA-GEN-3): the player after seat X is
X - 1 (mod n), and the deal passes to the right.

Action ids (the fast path): ``0..39`` play a card (the Latin card number),
``40..43`` name trump ``D C S B``, ``44..96`` bid ``20..72``, ``97`` pass.
Legal lists are ordered by action id: cards by suit ``D C S B`` and rank
``2 3 4 5 6 J N K A 7``; bids ascending, then ``pass``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

from games.cards import LATIN_INDEX, LATIN_NAMES, LATIN_SUITS, pop_nth
from games.core import forfeit_view
from games.maniglia.rules import (
    ABOVE,
    POINTS,
    SUIT_CARDS,
    SUIT_MASKS,
    SUIT_OF,
    TRICK_KEYS,
    deal_hands,
)
from games.tricks import (
    FIRST_FAMILY_PHASE,
    FLOATS,
    LATIN_LAYOUT,
    P_DEALING,
    P_OVER,
    P_PLAY,
    TrickState,
)

PLAY: Final = 0
TRUMP: Final = 40
BID: Final = 44
PASS: Final = 97
MIN_BID: Final = 20  # MANIGLIA-AUC-2
TOP_BID: Final = 72  # the highest MAX of any variant
LABELS: Final[tuple[str, ...]] = (
    tuple(f"play {c}" for c in LATIN_NAMES)
    + tuple(f"trump {s}" for s in LATIN_SUITS)
    + tuple(f"bid {n}" for n in range(MIN_BID, TOP_BID + 1))
    + ("pass",)
)
LABEL_IDS = {label: i for i, label in enumerate(LABELS)}
#: ``PLAY_LABELS[s][m]``: the ``play`` labels of suit pattern ``m`` of suit ``s``.
PLAY_LABELS: Final = LATIN_LAYOUT.mapped(LABELS[PLAY : PLAY + 40])

MAX_DEALS: Final = 100  # LIMIT-4, thrown-in deals included

# Phases: trick play and the end are the core's (games.tricks), the rest the family's.
P_AUCTION: Final = FIRST_FAMILY_PHASE
P_TRUMP: Final = FIRST_FAMILY_PHASE + 1
#: ``PHASE_NAMES[P_DEALING]`` (-1, the last) is "dealing": between deals, waiting for a deck.
PHASE_NAMES: Final = ("play", "over", "auction", "trump", "dealing")

# Final: constants to mypyc (build_engines.py), which then reads them without a lookup.
_FULL: Final = LATIN_LAYOUT.full  # a whole suit's pattern
_SHIFTS: Final = LATIN_LAYOUT.shifts  # where each suit starts in a hand mask
_SHIFT_1: Final = _SHIFTS[1]
_SHIFT_2: Final = _SHIFTS[2]
_SHIFT_3: Final = _SHIFTS[3]

#: ``names(mask)``: the card labels of a mask, in legal-list order.
names: Final = LATIN_LAYOUT.names_of
_S0: Final = SUIT_CARDS[0]
_S1: Final = SUIT_CARDS[1]
_S2: Final = SUIT_CARDS[2]
_S3: Final = SUIT_CARDS[3]


def hand_cards(mask: int) -> list[int]:
    """The cards of a hand mask in legal-list order (D C S B, 2..7): ``LATIN_LAYOUT.cards_of``
    as a plain function, which compiled code calls directly."""
    return [
        *_S0[mask & _FULL],
        *_S1[mask >> _SHIFT_1 & _FULL],
        *_S2[mask >> _SHIFT_2 & _FULL],
        *_S3[mask >> _SHIFT_3],
    ]


class ManigliaState(TrickState):
    """Base state of the Maniglia family."""

    LABELS = LABELS
    LABEL_IDS = LABEL_IDS
    CARD_NAMES = LATIN_NAMES
    CARD_INDEX = LATIN_INDEX
    LAYOUT = LATIN_LAYOUT
    PLAYERS: ClassVar[int] = 4
    PLAY_STEP = -1  # MANIGLIA-GEN-3: play goes counter-clockwise, to the right
    MAX_DEALS = MAX_DEALS
    PACK: ClassVar[int] = (1 << 40) - 1

    __slots__ = ("deal_log", "points", "side", "strict")
    deal_log: list[dict[str, Any]]
    points: list[int]
    side: tuple[int, ...]
    strict: bool

    # -- construction -----------------------------------------------------
    def _init_family(self) -> None:
        self.strict = self.game.options["maniglia.overtake"] == "strict"
        self.deal_log = []  # public summary of each finished deal

    def _deal(self, deck: list[int]) -> None:
        self.hands = deal_hands(deck, self.dealer, self.n)  # MANIGLIA-GEN-4
        self.points = [0] * self.n
        self._begin_deal()

    def _begin_deal(self) -> None:
        """Hook: set up the deal's first decision (auction, or play with a turn-up)."""
        raise NotImplementedError

    def _start_play(self, trump: int, side: tuple[int, ...]) -> None:
        """Trump is fixed; ``side[seat]`` tells the two sides of MANIGLIA-GEN-5 apart."""
        self.side = side
        # MANIGLIA-4P-4, MANIGLIA-AUC-5: the dealer's right leads the first trick.
        TrickState._enter_play(self, (self.dealer - 1) % self.n, trump, TRICK_KEYS[trump])

    # -- queries ------------------------------------------------------------
    def _playable(self, seat: int, hand: int) -> int:
        """MANIGLIA-GEN-5 for ``seat`` now (inlined ``rules.playable``: the hot loop)."""
        led = self.led
        if led < 0:
            return hand
        win = self.win_card
        must_beat = self.strict or self.side[seat] != self.side[self.win_seat]
        follow = hand & SUIT_MASKS[led]
        if follow:
            if must_beat and SUIT_OF[win] == led:
                return follow & ABOVE[win] or follow
            return follow
        if not must_beat:
            return hand
        trump = self.trump
        trumps = hand & SUIT_MASKS[trump]
        if not trumps:
            return hand
        winners = trumps & ABOVE[win] if SUIT_OF[win] == trump else trumps
        if winners:
            return winners
        return trumps if self.strict else hand

    def _legal_cards(self, tables: list[list[tuple[Any, ...]]]) -> list[Any]:
        """The legal cards as ids (``SUIT_CARDS``) or labels (``PLAY_LABELS``), in order.

        Also keeps the legal mask for ``apply_id`` until the state changes.
        """
        seat = self.to_move
        hand = self.hands[seat]
        led = self.led
        if led >= 0:
            follow = hand & SUIT_MASKS[led]
            if follow:
                # MANIGLIA-GEN-5 step 2 (the common case): one suit, one table lookup.
                win = self.win_card
                if SUIT_OF[win] == led and (
                    self.strict or self.side[seat] != self.side[self.win_seat]
                ):
                    follow = follow & ABOVE[win] or follow
                self.legal_mask = follow
                return list(tables[led][follow >> _SHIFTS[led]])
            hand = self._playable(seat, hand)
        self.legal_mask = hand
        t0, t1, t2, t3 = tables
        return [
            *t0[hand & _FULL],
            *t1[hand >> _SHIFT_1 & _FULL],
            *t2[hand >> _SHIFT_2 & _FULL],
            *t3[hand >> _SHIFT_3],
        ]

    def legal_ids(self) -> list[int]:
        if self.phase == P_PLAY:
            return self._legal_cards(SUIT_CARDS)
        if self.phase == P_OVER or self.phase == P_DEALING:
            return []
        return self._legal_other()

    def legal_actions(self) -> list[str]:
        if self.phase == P_PLAY:  # the hot case, straight from label tables
            return self._legal_cards(PLAY_LABELS)
        if self.phase == P_OVER or self.phase == P_DEALING:
            return []
        return self._legal_other_labels()

    def _legal_other_labels(self) -> list[str]:
        """Hook: ``_legal_other`` as labels."""
        return [LABELS[a] for a in self._legal_other()]

    # -- random playouts (the search hot loop) ---------------------------------
    def _play_out_tricks(self, random: Callable[[], float]) -> None:
        """Play the deal's remaining tricks at random, from a trick's lead, and score it.

        The same choices, history and state as ``apply_id`` of ``legal_ids()[k]`` for
        each card (MANIGLIA-GEN-5 as in ``_playable``, COMMON-5, MANIGLIA-GEN-6).
        Hands are held here as four sorted suit lists, so following is one pop.
        A choice among ``n`` is ``int(random() * n)`` with ``n`` a float (``size``,
        ``FLOATS``): the same number, and compiled a product of two C doubles.
        """
        strict, side, won, points, trump = self.strict, self.side, self.won, self.points, self.trump
        history, after, floats, suit_cards = self.history, self.after, FLOATS, SUIT_CARDS
        count = self.hands[self.leader].bit_count()  # every hand has this many cards
        size = floats[count]
        # LATIN_LAYOUT.suit_lists, inlined.
        hands = [
            [list(suit_cards[s][h >> _SHIFTS[s] & _FULL]) for s in range(4)] for h in self.hands
        ]
        followers = self.n - 1
        seat, win, win_seat = self.leader, self.win_card, self.win_seat
        for _ in range(count):
            k = int(random() * size)  # the lead: card k of the hand (pop_nth, inlined)
            suits = hands[seat]
            for cards in suits:
                if k < len(cards):
                    break
                k -= len(cards)
            win = cards.pop(k)
            history.append(seat << 8 | win)
            win_seat = seat
            led = win_suit = SUIT_OF[win]
            total = POINTS[win]
            for _ in range(followers):
                seat = after[seat]
                suits = hands[seat]
                must = strict or side[seat] != side[win_seat]  # must he beat W?
                cards = suits[led]
                follows = bool(cards)  # step 2: follow suit
                if must and not follows:
                    cards = suits[trump]  # step 3: void, he plays a trump if he has one
                below = 0  # he plays one of cards[below:]
                if must and win_suit == (led if follows else trump):
                    for card in cards:  # the cards that beat W follow those below it
                        if card > win:
                            break
                        below += 1
                    if below == len(cards):  # none beats W: any card of the suit,
                        below = 0
                        if not (follows or strict):  # or of the hand (void, not strict)
                            cards = []
                if cards:
                    card = cards.pop(below + int(random() * floats[len(cards) - below]))
                else:  # void, and free to play anything (step 4)
                    card = pop_nth(suits, int(random() * size))
                suit = SUIT_OF[card]
                if (suit == win_suit and card > win) or (suit == trump != win_suit):
                    win, win_seat, win_suit = card, seat, suit
                history.append(seat << 8 | card)
                total += POINTS[card]
            # ``x[i] = x[i] + y``: compiled, a C addition (``x[i] += y`` is a generic one).
            won[win_seat] = won[win_seat] + 1
            points[win_seat] = points[win_seat] + total
            seat = win_seat
            size -= 1.0
        self.hands = [0] * self.n
        self.win_card, self.win_seat = win, win_seat
        self.led = -1
        self.leader = self.to_move = seat
        self._finish_deal()

    def _take_trick(self, winner: int) -> None:
        """MANIGLIA-GEN-6: the winner takes the trick's card points."""
        points = 0
        for card in self.trick:
            points += POINTS[card]
        self.points[winner] += points

    # -- views ----------------------------------------------------------------
    def _public_history(self, viewer: int | None = None) -> list[dict[str, Any]]:
        """The public history, one dict per deal, kept and extended in place (shared).

        Every action is public (MANIGLIA-GEN-7), so one view serves every seat. The ``[seat,
        label]`` pairs of each deal are kept in the view (``TrickState._view``) and
        extended with the actions applied since the last call; a finished deal's dict (head,
        ``actions``, ``result``) is made once, when the deal is logged, and never
        changes again. The current deal's dict is made afresh each call around
        its growing ``actions`` list. The cache belongs to this state's
        ``history`` list: a clone (whose history is a copy) builds its own on
        first use. The list returned is new; what it holds is the cache's:
        read-only.
        """
        view = self._view()
        actions, history = view.deals, self.history
        for index, begin, end in view.spans(self.deal_starts):
            if index == len(actions):
                actions.append([])  # the deal's [seat, label] pairs
            if begin < end:
                actions[index] += [[e >> 8, LABELS[e & 0xFF]] for e in history[begin:end]]
        final, log = view.final, self.deal_log
        while len(final) < len(log) and len(final) < len(actions):
            i = len(final)
            entry = {k: v for k, v in log[i].items() if k != "result"}
            entry["actions"] = actions[i]
            entry["result"] = _copy(log[i]["result"])
            final.append(entry)
        deals = final[:]
        for i in range(len(final), len(self.deal_starts)):
            entry = self._deal_head(i)
            entry["actions"] = actions[i]
            deals.append(entry)
        return deals

    def _history_view(self, viewer: int | None = None) -> list[dict[str, Any]]:
        """The whole public history, one entry per deal (every action is public).

        A fresh copy of :meth:`_public_history` (nothing in it is shared).
        """
        deals = self._public_history()
        for i, deal in enumerate(deals):
            fresh = {**deal, "actions": [pair.copy() for pair in deal["actions"]]}
            if "result" in deal:
                fresh["result"] = _copy(deal["result"])
            deals[i] = fresh
        return deals

    def _deal_head(self, index: int) -> dict[str, Any]:
        """Public facts known at the start of deal ``index`` (0-based)."""
        if index < len(self.deal_log):
            return {k: v for k, v in self.deal_log[index].items() if k != "result"}
        return {"deal": self.deal, "dealer": self.dealer, **self._current_head()}

    def _current_head(self) -> dict[str, Any]:
        """Hook: extra public facts of the current deal's start."""
        return {}

    def _log_deal(self, result: dict[str, Any]) -> None:
        self.deal_log.append(
            {"deal": self.deal, "dealer": self.dealer, **self._current_head(), "result": result}
        )

    def _observe(self, seat: int, history: list[dict[str, Any]]) -> dict[str, Any]:
        playing = self.phase == P_PLAY
        obs: dict[str, Any] = {
            "variant": self.game.id,
            "options": dict(self.game.options),
            "seat": seat,
            "players": self.n,
            "deal": self.deal,
            "max_deals": MAX_DEALS,
            "dealer": self.dealer,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player(),
            "hand": names(self.hands[seat]),
            "hand_sizes": [h.bit_count() for h in self.hands],
            "trump": LATIN_SUITS[self.trump] if self.trump >= 0 else None,
            "trick": [
                [(self.leader - i) % self.n, LATIN_NAMES[c]] for i, c in enumerate(self.trick)
            ]
            if playing
            else [],
            "leader": self.leader if playing else None,
            "winning": [self.win_seat, LATIN_NAMES[self.win_card]]
            if playing and self.trick
            else None,
            "tricks_won": list(self.won),
            "card_points": list(self.points),
            "scores": self.scores(),
            "forfeit": forfeit_view(self.forfeited),
            "history": history,
        }
        self._observe_variant(seat, obs)
        return obs

    def _observe_variant(self, seat: int, obs: dict[str, Any]) -> None:
        """Hook: add the variant's public facts."""


def _copy(value: Any) -> Any:
    """A copy of a JSON-like value, so observations never share mutable parts."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    return value
