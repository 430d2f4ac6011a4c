"""The state machinery shared by the three Manni variants.

A :class:`ManniState` holds one game: the current deal's hands as bitmasks,
the trick in progress, running scores and the action history. The variants
add their pre-play phase (Manni choice, exchanges, announcements) and their
scoring by overriding the ``_`` hooks. Trick play (MANNI-BASIC-6, HORN-7,
LAUG-9) lives here because it is the hot loop of every playout.

Action ids (the fast path): ``0..51`` play a card, ``52..103`` discard a
card, then ``draw``, ``keep``, ``take``, six ``announce``, five ``great`` and
``pass``. Legal lists are ordered by action id: cards by suit ``S H D C`` and
rank ``2..A``, discards before ``draw``, ``pass`` last.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from games import rng
from games.cards import FRENCH_INDEX, FRENCH_NAMES, bits_of, parse_deck, pop_nth
from games.core import (
    Game,
    IllegalAction,
    RandomSource,
    State,
    competition_ranks,
    forfeit_view,
)
from games.manni.rules import LAUG_CONTRACTS, NO_TRUMP, SUIT_CARDS, SUIT_MASKS, TRICK_KEYS

PLAY, DISCARD, DRAW, KEEP, TAKE, ANNOUNCE, GREAT, PASS = 0, 52, 104, 105, 106, 107, 113, 118
LABELS: tuple[str, ...] = (
    tuple(f"play {c}" for c in FRENCH_NAMES)
    + tuple(f"discard {c}" for c in FRENCH_NAMES)
    + ("draw", "keep", "take")
    + tuple(f"announce {c}" for c in LAUG_CONTRACTS)
    + tuple(f"great {c}" for c in LAUG_CONTRACTS[1:])
    + ("pass",)
)
LABEL_IDS = {label: i for i, label in enumerate(LABELS)}

# Phases.
P_CHOICE, P_EXCHANGE, P_ANNOUNCE, P_GREAT, P_PLAY, P_OVER = range(6)
PHASE_NAMES = ("manni", "exchange", "announce", "great", "play", "over")

_S0, _S1, _S2, _S3 = SUIT_CARDS
_M = 0x1FFF
_SUIT = tuple(c // 13 for c in range(52))
_NEXT = (1, 2, 0)  # the seat after each seat, clockwise (COMMON-2)
#: ``PLAY_LABELS[s][m]``: the ``play`` labels of suit pattern ``m`` of suit ``s``.
PLAY_LABELS = [[tuple(LABELS[c] for c in cards) for cards in suit] for suit in SUIT_CARDS]
_L0, _L1, _L2, _L3 = PLAY_LABELS


def hand_cards(mask: int) -> list[int]:
    """Cards of a hand mask in legal-list order (suit S H D C, rank 2..A)."""
    return [*_S0[mask & _M], *_S1[(mask >> 13) & _M], *_S2[(mask >> 26) & _M], *_S3[mask >> 39]]


_D0, _D1, _D2, _D3 = ([tuple(DISCARD + c for c in cards) for cards in suit] for suit in SUIT_CARDS)


def discard_ids(mask: int) -> list[int]:
    """``discard`` action ids for the cards of ``mask``, in legal-list order."""
    return [*_D0[mask & _M], *_D1[(mask >> 13) & _M], *_D2[(mask >> 26) & _M], *_D3[mask >> 39]]


_N0, _N1, _N2, _N3 = (
    [tuple(FRENCH_NAMES[c] for c in cards) for cards in suit] for suit in SUIT_CARDS
)


def names(mask: int) -> list[str]:
    """Card labels of a mask, in legal-list order."""
    return [*_N0[mask & _M], *_N1[(mask >> 13) & _M], *_N2[(mask >> 26) & _M], *_N3[mask >> 39]]


class PublicHistory:
    """One viewer's public history of one state (``ManniState._public_history``)."""

    __slots__ = ("deals", "owner", "seen")

    def __init__(self, owner: list[int]) -> None:
        self.owner = owner  # the state's history list this view follows
        self.deals: list[dict[str, Any]] = []
        self.seen = 0  # history entries already in ``deals``


class ManniState(State):
    """Base state of the Manni family (three players, clockwise)."""

    LABELS = LABELS
    LABEL_IDS = LABEL_IDS
    PACK: ClassVar[int] = 0
    TRICKS: ClassVar[int] = 12

    __slots__ = (
        "ace_low",
        "deal",
        "deal_starts",
        "dealer",
        "decks",
        "first_dealer",
        "forfeited",
        "game",
        "given_decks",
        "hands",
        "history",
        "keys",
        "leader",
        "led",
        "out",
        "phase",
        "seed",
        "to_move",
        "totals",
        "trick",
        "trump",
        "view_cache",
        "won",
    )

    # -- construction -----------------------------------------------------
    @classmethod
    def new(cls, game: Game, seed: int, dealer: int | None, decks: Any) -> ManniState:
        self = cls.__new__(cls)
        self.game = game
        self.seed = seed
        given = []
        for i, deck in enumerate(decks or ()):
            given.append(parse_deck(deck, FRENCH_INDEX, cls.PACK, f"deck {i}"))
        self.given_decks = given
        self.first_dealer = rng.draw(3, seed, "dealer") if dealer is None else dealer
        self.dealer = self.first_dealer
        self.deal = 0
        self.decks: list[list[int]] = []
        self.history: list[int] = []
        self.deal_starts: list[int] = []
        self.totals = [0, 0, 0]
        self.forfeited: tuple[int, str] | None = None
        self.view_cache: dict[int, PublicHistory] = {}  # per viewer (_public_history)
        self._init_game()
        self._start_deal()
        return self

    def _init_game(self) -> None:
        """Hook: per-game fields of the variant."""

    @classmethod
    def pack_cards(cls) -> tuple[int, ...]:
        """The cards of one deck, ascending (computed once per class)."""
        cached = cls.__dict__.get("_pack_cards")
        if cached is None:
            cached = tuple(bits_of(cls.PACK))
            cls._pack_cards = cached
        return cached

    def _next_deck(self) -> list[int]:
        index = self.deal - 1
        if index < len(self.given_decks):
            deck = self.given_decks[index]
        else:
            deck = rng.shuffled(self.pack_cards(), self.seed, f"deck/{self.deal}")
        self.decks.append(deck)
        return deck

    def _start_deal(self) -> None:
        self.deal += 1
        self.deal_starts.append(len(self.history))
        self.hands = [0, 0, 0]
        self.out = [0, 0, 0]
        self.won = [0, 0, 0]
        self.trick: list[int] = []
        self.led = -1
        self.trump = NO_TRUMP  # until this deal's trump is known (a forfeit may come first)
        self._deal_cards(self._next_deck())

    def _deal_cards(self, deck: list[int]) -> None:
        raise NotImplementedError

    def _start_play(self, leader: int, trump: int, ace_low: bool = False) -> None:
        self.phase = P_PLAY
        self.trump = trump
        self.ace_low = ace_low
        self.keys = TRICK_KEYS[(trump, ace_low)]
        self.leader = self.to_move = leader

    # -- queries ------------------------------------------------------------
    def current_player(self) -> int | None:
        return None if self.phase == P_OVER else self.to_move

    def is_over(self) -> bool:
        return self.phase == P_OVER

    def legal_ids(self) -> list[int]:
        if self.phase == P_PLAY:
            hand = self.hands[self.to_move]
            if self.trick:
                led = self.led
                follow = hand & SUIT_MASKS[led]
                if follow:
                    return list(SUIT_CARDS[led][follow >> (13 * led)])
            return hand_cards(hand)
        if self.phase == P_OVER:
            return []
        return self._legal_other()

    def legal_actions(self) -> list[str]:
        if self.phase == P_PLAY:  # the hot case, straight from label tables
            hand = self.hands[self.to_move]
            if self.trick:
                led = self.led
                follow = hand & SUIT_MASKS[led]
                if follow:
                    return list(PLAY_LABELS[led][follow >> (13 * led)])
            return [
                *_L0[hand & _M],
                *_L1[(hand >> 13) & _M],
                *_L2[(hand >> 26) & _M],
                *_L3[hand >> 39],
            ]
        return [LABELS[a] for a in self.legal_ids()]

    def _legal_other(self) -> list[int]:
        raise NotImplementedError

    # -- moves ----------------------------------------------------------------
    def apply_id(self, action: int) -> None:
        if self.phase == P_PLAY and type(action) is int and 0 <= action < 52:
            seat = self.to_move
            hand = self.hands[seat]
            bit = 1 << action
            if hand & bit:
                trick = self.trick
                if not trick:
                    self.led = action // 13
                elif not bit & SUIT_MASKS[self.led] and hand & SUIT_MASKS[self.led]:
                    self._reject_id(action)  # MANNI-BASIC-6: must follow suit
                self.hands[seat] = hand ^ bit
                self.history.append(seat << 8 | action)
                trick.append(action)
                if len(trick) == 3:
                    self._finish_trick()
                else:
                    self.to_move = (seat + 1) % 3
                return
        elif self.phase not in (P_PLAY, P_OVER) and self._is_legal_other(action):
            seat = self.to_move
            self.history.append(seat << 8 | action)
            self._apply_other(seat, action)
            return
        self._reject_id(action)

    def _reject_id(self, action: object) -> None:
        label = LABELS[action] if type(action) is int and 0 <= action < len(LABELS) else action
        self._reject(label)

    # -- random playouts (the search hot loop) ---------------------------------
    def deal_number(self) -> int:
        return self.deal

    def playout(self, rng: RandomSource, *, deal_only: bool = False) -> None:
        """``State.playout`` with the tricks of each deal played by one inlined loop."""
        random = rng.random
        deal = self.deal
        while self.phase != P_OVER and not (deal_only and self.deal != deal):
            phase = self.phase
            if phase == P_PLAY and not self.trick:
                self._play_out_tricks(random)
            elif phase == P_EXCHANGE:
                self._play_out_exchange(random)
            elif phase == P_CHOICE:
                self._play_out_choice(random)
            else:
                ids = self.legal_ids()
                self.apply_id(ids[int(random() * len(ids))])

    def _play_out_choice(self, random: Callable[[], float]) -> None:
        """Hook: random Manni choices (at least one), as ``playout`` draws them."""
        ids = self.legal_ids()
        self.apply_id(ids[int(random() * len(ids))])

    def _play_out_exchange(self, random: Callable[[], float]) -> None:
        """Hook: random exchange decisions (at least one), as ``playout`` draws them."""
        ids = self.legal_ids()
        self.apply_id(ids[int(random() * len(ids))])

    def _play_out_tricks(self, random: Callable[[], float]) -> None:
        """Play the deal's remaining tricks at random, from a trick's lead, and score it.

        The same choices, history and state as ``apply_id`` of ``legal_ids()[k]`` for
        each card (MANNI-BASIC-6, HORN-7, LAUG-9: follow suit if you can; COMMON-5).
        Hands are held here as four sorted suit lists, so following is one pop.
        """
        won, keys_of = self.won, self.keys
        append = self.history.append
        size = self.hands[self.leader].bit_count()  # every hand has this many cards
        hands = [[list(SUIT_CARDS[s][h >> 13 * s & _M]) for s in range(4)] for h in self.hands]
        seat = self.leader
        while size:
            k = int(random() * size)  # the lead: card k of the hand (pop_nth, inlined)
            for cards in hands[seat]:
                if k < len(cards):
                    break
                k -= len(cards)
            c0 = cards.pop(k)
            append(seat << 8 | c0)
            led = _SUIT[c0]
            s1 = _NEXT[seat]
            cards = hands[s1][led]
            if cards:
                c1 = cards.pop(int(random() * len(cards)))
            else:
                c1 = pop_nth(hands[s1], int(random() * size))
            append(s1 << 8 | c1)
            s2 = _NEXT[s1]
            cards = hands[s2][led]
            if cards:
                c2 = cards.pop(int(random() * len(cards)))
            else:
                c2 = pop_nth(hands[s2], int(random() * size))
            append(s2 << 8 | c2)
            keys = keys_of[led]
            k0, k1, k2 = keys[c0], keys[c1], keys[c2]
            seat = (seat if k0 > k2 else s2) if k0 > k1 else (s1 if k1 > k2 else s2)
            won[seat] += 1
            size -= 1
        self.hands = [0, 0, 0]
        self.led = led
        self.leader = self.to_move = seat
        self._finish_deal()

    def _is_legal_other(self, action: object) -> bool:
        """Hook: whether ``action`` is legal outside trick play (variants may do it faster)."""
        return action in self._legal_other()

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

    def _apply_other(self, seat: int, action: int) -> None:
        raise NotImplementedError

    def _finish_trick(self) -> None:
        """COMMON-5: the highest trump, else the highest card of the led suit wins."""
        keys = self.keys[self.led]
        c0, c1, c2 = self.trick
        k0, k1, k2 = keys[c0], keys[c1], keys[c2]
        offset = (0 if k0 > k2 else 2) if k0 > k1 else (1 if k1 > k2 else 2)
        winner = (self.leader + offset) % 3
        self.won[winner] += 1
        self.trick = []
        self.leader = self.to_move = winner
        if not self.hands[winner]:
            self._finish_deal()

    def _finish_deal(self) -> None:
        if self._score_deal():
            self.phase = P_OVER
            return
        self.dealer = (self.dealer + 1) % 3  # COMMON-2: the deal passes to the left
        self._start_deal()

    def _score_deal(self) -> bool:
        """Hook: add the deal's scores; return True when the game is over."""
        raise NotImplementedError

    def forfeit(self, seat: int, reason: str = "illegal") -> None:
        """FORFEIT-2: ``seat`` is ranked last alone; the unfinished deal is discarded."""
        self._check_seat(seat)
        if self.phase == P_OVER:
            raise IllegalAction("the game is already over")
        self.forfeited = (seat, str(reason))
        self.phase = P_OVER

    # -- results --------------------------------------------------------------
    def scores(self) -> list[int]:
        return list(self.totals)

    def ranking(self) -> list[int]:
        if self.phase != P_OVER:
            raise ValueError("ranking() is only defined once the game is over")
        scores = self.scores()
        if self.forfeited is None:
            return competition_ranks(scores)
        offender = self.forfeited[0]
        others = [s for s in range(3) if s != offender]
        ranks = competition_ranks([scores[s] for s in others])
        result = [3, 3, 3]
        for s, r in zip(others, ranks, strict=True):
            result[s] = r
        return result

    # -- views ----------------------------------------------------------------
    def _public_label(self, entry: int, viewer: int) -> str:
        seat, action = entry >> 8, entry & 0xFF
        if DISCARD <= action < DRAW and seat != viewer:
            return "discard"  # COMMON-6: discards are face down
        return LABELS[action]

    def _public_history(self, viewer: int) -> list[dict[str, Any]]:
        """``viewer``'s public history, one dict per deal, kept and extended in place.

        Each deal is ``{"deal", "seats", "actions"}``: who acted and what ``viewer``
        sees of it. The list is kept per viewer in ``view_cache`` and brought up to
        date with the actions applied since the last call, so a decision costs the
        new actions only: the dicts of finished deals never change again, and the
        current deal's two lists only grow by appending. The cache belongs to
        this state's ``history`` list; a clone (whose history is a copy) builds its
        own on first use. Callers get it shared: read-only.
        """
        history = self.history
        view = self.view_cache.get(viewer)
        if view is None or view.owner is not history:
            view = self.view_cache[viewer] = PublicHistory(history)
        deals, starts = view.deals, self.deal_starts
        length = len(history)
        if view.seen == length and len(deals) == len(starts):
            return deals
        seen, index, label = view.seen, len(deals) - 1, self._public_label
        while True:
            if index >= 0:
                end = starts[index + 1] if index + 1 < len(starts) else length
                if seen < end:
                    deal = deals[index]
                    entries = history[seen:end]
                    deal["seats"] += [e >> 8 for e in entries]
                    deal["actions"] += [label(e, viewer) for e in entries]
                    seen = end
            index += 1
            if index == len(starts):
                break
            deals.append({"deal": index + 1, "seats": [], "actions": []})
        view.seen = seen
        return deals

    def _history_view(self, viewer: int) -> list[dict[str, Any]]:
        """The public history, one entry per deal: who acted (``seats``) and what (``actions``).

        A fresh copy of :meth:`_public_history` (nothing in it is shared).
        """
        return [
            {"deal": d["deal"], "seats": d["seats"].copy(), "actions": d["actions"].copy()}
            for d in self._public_history(viewer)
        ]

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: own cards, all public facts and history (COMMON-6)."""
        self._check_seat(seat)
        return self._observe(seat, self._history_view(seat))

    def shared_observation(self, seat: int) -> dict[str, Any]:
        """``observation(seat)`` whose history's deals are the state's own (``State``)."""
        self._check_seat(seat)
        return self._observe(seat, self._public_history(seat)[:])

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
            "trump": None if self.phase < P_PLAY or self.trump == NO_TRUMP else "SHDC"[self.trump],
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

    def record(self) -> dict[str, Any]:
        return self._record_of(
            self.first_dealer,
            [[FRENCH_NAMES[c] for c in deck] for deck in self.decks],
            [LABELS[e & 0xFF] for e in self.history],
            self.forfeited,
        )
