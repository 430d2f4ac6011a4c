"""The state machinery shared by the three Manni variants.

A :class:`ManniState` is a :class:`games.tricks.TrickState` (dealing, the
card-play step, forfeit, ranking, record) with the family's own rules: the
legal cards (MANNI-BASIC-6, HORN-7, LAUG-9: follow suit), the inlined random
playout of the tricks (the hot loop of every search), running totals, the
face-down discards of the public history and the observation. The variants
add their pre-play phase (Manni choice, exchanges, announcements) and their
scoring by overriding the ``_`` hooks.

Action ids (the fast path): ``0..51`` play a card, ``52..103`` discard a
card, then ``draw``, ``keep``, ``take``, six ``announce``, five ``great`` and
``pass``. Legal lists are ordered by action id: cards by suit ``S H D C`` and
rank ``2..A``, discards before ``draw``, ``pass`` last.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

from games.cards import FRENCH_INDEX, FRENCH_NAMES, pop_nth
from games.core import forfeit_view
from games.manni.rules import LAUG_CONTRACTS, NO_TRUMP, SUIT_CARDS, SUIT_MASKS, TRICK_KEYS
from games.tricks import (
    FIRST_FAMILY_PHASE,
    FLOATS,
    FRENCH_LAYOUT,
    P_DEALING,
    P_OVER,
    P_PLAY,
    TrickState,
)

PLAY: Final = 0
DISCARD: Final = 52
DRAW: Final = 104
KEEP: Final = 105
TAKE: Final = 106
ANNOUNCE: Final = 107
GREAT: Final = 113
PASS: Final = 118
LABELS: Final[tuple[str, ...]] = (
    tuple(f"play {c}" for c in FRENCH_NAMES)
    + tuple(f"discard {c}" for c in FRENCH_NAMES)
    + ("draw", "keep", "take")
    + tuple(f"announce {c}" for c in LAUG_CONTRACTS)
    + tuple(f"great {c}" for c in LAUG_CONTRACTS[1:])
    + ("pass",)
)
LABEL_IDS = {label: i for i, label in enumerate(LABELS)}

# Phases: trick play and the end are the core's (games.tricks), the rest the family's.
P_CHOICE: Final = FIRST_FAMILY_PHASE
P_EXCHANGE: Final = FIRST_FAMILY_PHASE + 1
P_ANNOUNCE: Final = FIRST_FAMILY_PHASE + 2
P_GREAT: Final = FIRST_FAMILY_PHASE + 3
#: ``PHASE_NAMES[P_DEALING]`` (-1, the last) is "dealing": between deals, waiting for a deck.
PHASE_NAMES: Final = ("play", "over", "manni", "exchange", "announce", "great", "dealing")
#: The phases before trick play.
BEFORE_PLAY: Final = (P_CHOICE, P_EXCHANGE, P_ANNOUNCE, P_GREAT)

# Final: constants to mypyc (build_engines.py), which then reads them without a lookup.
_FULL: Final = FRENCH_LAYOUT.full  # a whole suit's pattern
_SHIFTS: Final = FRENCH_LAYOUT.shifts  # where each suit starts in a hand mask
_SUIT: Final = FRENCH_LAYOUT.suits
_SHIFT_1: Final = _SHIFTS[1]
_SHIFT_2: Final = _SHIFTS[2]
_SHIFT_3: Final = _SHIFTS[3]
_NEXT: Final = (1, 2, 0)  # the seat after each seat, clockwise (COMMON-2)
#: ``PLAY_LABELS[s][m]``: the ``play`` labels of suit pattern ``m`` of suit ``s``.
PLAY_LABELS: Final = FRENCH_LAYOUT.mapped(LABELS[PLAY : PLAY + 52])

#: ``play_labels(mask)``: the ``play`` labels of the cards of a mask, in legal-list order.
play_labels: Final = FRENCH_LAYOUT.lister(PLAY_LABELS)
#: ``discard_ids(mask)``: ``discard`` action ids of the cards of a mask, in legal-list order.
discard_ids: Final = FRENCH_LAYOUT.lister(FRENCH_LAYOUT.mapped(range(DISCARD, DRAW)))
#: ``names(mask)``: the card labels of a mask, in legal-list order.
names: Final = FRENCH_LAYOUT.names_of
_S0: Final = SUIT_CARDS[0]
_S1: Final = SUIT_CARDS[1]
_S2: Final = SUIT_CARDS[2]
_S3: Final = SUIT_CARDS[3]


def hand_cards(mask: int) -> list[int]:
    """The cards of a hand mask in legal-list order (S H D C, 2..A): ``FRENCH_LAYOUT.cards_of``
    as a plain function, which compiled code calls directly."""
    return [
        *_S0[mask & _FULL],
        *_S1[mask >> _SHIFT_1 & _FULL],
        *_S2[mask >> _SHIFT_2 & _FULL],
        *_S3[mask >> _SHIFT_3],
    ]


class ManniState(TrickState):
    """Base state of the Manni family (three players, clockwise)."""

    LABELS = LABELS
    LABEL_IDS = LABEL_IDS
    CARD_NAMES = FRENCH_NAMES
    CARD_INDEX = FRENCH_INDEX
    LAYOUT = FRENCH_LAYOUT
    PACK: ClassVar[int] = 0
    PLAYERS = 3
    PLAY_STEP = 1  # COMMON-1: play goes clockwise, to the left
    MAX_DEALS = 100  # LIMIT-3 (laugavatnsmanni ends sooner, LIMIT-5)
    TRICKS: ClassVar[int] = 12

    __slots__ = ("ace_low", "out", "totals")

    # -- construction -----------------------------------------------------
    def _init_family(self) -> None:
        self.totals = [0, 0, 0]

    def _deal(self, deck: list[int]) -> None:
        self.hands = [0, 0, 0]
        self.out = [0, 0, 0]
        self._deal_cards(deck)

    def _deal_cards(self, deck: list[int]) -> None:
        raise NotImplementedError

    def _start_play(self, leader: int, trump: int, ace_low: bool = False) -> None:
        self.ace_low = ace_low
        TrickState._enter_play(self, leader, trump, TRICK_KEYS[(trump, ace_low)])

    # -- queries ------------------------------------------------------------
    def legal_ids(self) -> list[int]:
        if self.phase == P_PLAY:
            hand = self.hands[self.to_move]
            if self.trick:
                led = self.led
                follow = hand & SUIT_MASKS[led]
                if follow:
                    self.legal_mask = follow
                    return list(SUIT_CARDS[led][follow >> _SHIFTS[led]])
            self.legal_mask = hand
            return hand_cards(hand)
        if self.phase == P_OVER or self.phase == P_DEALING:
            return []
        return self._legal_other()

    def legal_actions(self) -> list[str]:
        if self.phase == P_PLAY:  # the hot case, straight from label tables
            hand = self.hands[self.to_move]
            if self.trick:
                led = self.led
                follow = hand & SUIT_MASKS[led]
                if follow:
                    self.legal_mask = follow
                    return list(PLAY_LABELS[led][follow >> _SHIFTS[led]])
            self.legal_mask = hand
            return play_labels(hand)
        return [LABELS[a] for a in self.legal_ids()]

    def _playable(self, seat: int, hand: int) -> int:
        """MANNI-BASIC-6, HORN-7, LAUG-9: follow suit if you can, else any card."""
        led = self.led
        if led < 0:
            return hand
        return hand & SUIT_MASKS[led] or hand

    # -- random playouts (the search hot loop) ---------------------------------
    def _play_out_other(self, random: Callable[[], float]) -> None:
        phase = self.phase
        if phase == P_EXCHANGE:
            self._play_out_exchange(random)
        elif phase == P_CHOICE:
            self._play_out_choice(random)
        else:
            TrickState._play_out_other(self, random)

    def _play_out_choice(self, random: Callable[[], float]) -> None:
        """Hook: random Manni choices (at least one), as ``playout`` draws them."""
        TrickState._play_out_other(self, random)

    def _play_out_exchange(self, random: Callable[[], float]) -> None:
        """Hook: random exchange decisions (at least one), as ``playout`` draws them."""
        TrickState._play_out_other(self, random)

    def _play_out_tricks(self, random: Callable[[], float]) -> None:
        """Play the deal's remaining tricks at random, from a trick's lead, and score it.

        The same choices, history and state as ``apply_id`` of ``legal_ids()[k]`` for
        each card (MANNI-BASIC-6, HORN-7, LAUG-9: follow suit if you can; COMMON-5).
        Hands are held here as four sorted suit lists, so following is one pop.
        A choice among ``n`` is ``int(random() * n)`` with ``n`` a float (``size``,
        ``FLOATS``): the same number, and compiled a product of two C doubles.
        """
        won, keys_of, history, floats, suit_cards = (
            self.won,
            self.keys,
            self.history,
            FLOATS,
            SUIT_CARDS,
        )
        count = self.hands[self.leader].bit_count()  # every hand has this many cards
        size = floats[count]
        # FRENCH_LAYOUT.suit_lists, inlined.
        hands = [
            [list(suit_cards[s][h >> _SHIFTS[s] & _FULL]) for s in range(4)] for h in self.hands
        ]
        seat = self.leader
        for _ in range(count):
            k = int(random() * size)  # the lead: card k of the hand (pop_nth, inlined)
            for cards in hands[seat]:
                if k < len(cards):
                    break
                k -= len(cards)
            c0 = cards.pop(k)
            history.append(seat << 8 | c0)
            led = _SUIT[c0]
            s1 = _NEXT[seat]
            cards = hands[s1][led]
            if cards:
                c1 = cards.pop(int(random() * floats[len(cards)]))
            else:
                c1 = pop_nth(hands[s1], int(random() * size))
            history.append(s1 << 8 | c1)
            s2 = _NEXT[s1]
            cards = hands[s2][led]
            if cards:
                c2 = cards.pop(int(random() * floats[len(cards)]))
            else:
                c2 = pop_nth(hands[s2], int(random() * size))
            history.append(s2 << 8 | c2)
            keys = keys_of[led]
            k0, k1, k2 = keys[c0], keys[c1], keys[c2]
            seat = (seat if k0 > k2 else s2) if k0 > k1 else (s1 if k1 > k2 else s2)
            won[seat] = won[seat] + 1  # compiled, a C addition (``+=`` is a generic one)
            size -= 1.0
        self.hands = [0, 0, 0]
        self.led = -1
        self.win_seat = seat
        self.leader = self.to_move = seat
        self._finish_deal()

    def _discard_legal(self, action: object, allowed: bool) -> bool:
        """An exchange step: ``discard`` of a held card while ``allowed``, or ``draw``."""
        if action == DRAW:
            return True
        return (
            allowed
            and type(action) is int
            and DISCARD <= action < DRAW
            and bool(self.hands[self.to_move] >> (action - DISCARD) & 1)
        )

    # -- results --------------------------------------------------------------
    def scores(self) -> list[int]:
        return list(self.totals)

    # -- views ----------------------------------------------------------------
    def _public_label(self, entry: int, viewer: int) -> str:
        seat, action = entry >> 8, entry & 0xFF
        if DISCARD <= action < DRAW and seat != viewer:
            return "discard"  # COMMON-6: discards are face down
        return LABELS[action]

    def _public_history(self, viewer: int) -> list[dict[str, Any]]:
        """``viewer``'s public history, one dict per deal, kept and extended in place.

        Each deal is ``{"deal", "seats", "actions"}``: who acted and what ``viewer``
        sees of it. The list is kept per viewer (``TrickState._view``) and brought up
        to date with the actions applied since the last call, so a decision costs the
        new actions only: the dicts of finished deals never change again, and the
        current deal's two lists only grow by appending. The cache belongs to
        this state's ``history`` list; a clone (whose history is a copy) builds its
        own on first use. Callers get it shared: read-only.
        """
        view = self._view(viewer)
        deals, history, label = view.deals, self.history, self._public_label
        for index, begin, end in view.spans(self.deal_starts):
            if index == len(deals):
                deals.append({"deal": index + 1, "seats": [], "actions": []})
            if begin < end:
                entries = history[begin:end]
                deal = deals[index]
                deal["seats"] += [e >> 8 for e in entries]
                deal["actions"] += [label(e, viewer) for e in entries]
        return deals

    def _history_view(self, viewer: int) -> list[dict[str, Any]]:
        """The public history, one entry per deal: who acted (``seats``) and what (``actions``).

        A fresh copy of :meth:`_public_history` (nothing in it is shared).
        """
        return [
            {"deal": d["deal"], "seats": d["seats"].copy(), "actions": d["actions"].copy()}
            for d in self._public_history(viewer)
        ]

    def _observe(self, seat: int, history: list[dict[str, Any]]) -> dict[str, Any]:
        obs: dict[str, Any] = {
            "variant": self.game.id,
            "seat": seat,
            "players": 3,
            "deal": self.deal,
            "dealer": self.dealer,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player(),
            "hand": names(self.hands[seat]),
            "hand_sizes": [h.bit_count() for h in self.hands],
            "out_of_play": names(self.out[seat]),
            "trump": None
            if self.phase in BEFORE_PLAY or self.trump == NO_TRUMP
            else "SHDC"[self.trump],
            "trick": [[(self.leader + i) % 3, FRENCH_NAMES[c]] for i, c in enumerate(self.trick)],
            "leader": self.leader if self.phase == P_PLAY else None,
            "tricks_won": list(self.won),
            "scores": self.scores(),
            "forfeit": forfeit_view(self.forfeited),
            "history": history,
        }
        self._observe_variant(seat, obs)
        return obs

    def _observe_variant(self, seat: int, obs: dict[str, Any]) -> None:
        """Hook: add the variant's public facts."""
