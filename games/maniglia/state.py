"""The state machinery shared by the four Maniglia variants.

A :class:`ManigliaState` holds one game: the current deal's hands as bitmasks,
the trick in progress with the card W winning it so far, running scores and
the action history. The partnership game (``partners.py``) and the auction
games (``auction.py``) add their pre-play phase and their scoring through the
``_`` hooks. Trick play (MANIGLIA-GEN-5, -6) lives here because it is the hot
loop of every playout.

Everything goes counter-clockwise (MANIGLIA-GEN-3): the player after seat X is
X - 1 (mod n), and the deal passes to the right.

Action ids (the fast path): ``0..39`` play a card (the Latin card number),
``40..43`` name trump ``D C S B``, ``44..96`` bid ``20..72``, ``97`` pass.
Legal lists are ordered by action id: cards by suit ``D C S B`` and rank
``2 3 4 5 6 J N K A 7``; bids ascending, then ``pass``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Any, ClassVar

from games import rng
from games.cards import LATIN_INDEX, LATIN_NAMES, LATIN_SUITS, parse_deck, pop_nth
from games.core import (
    Game,
    IllegalAction,
    RandomSource,
    State,
    competition_ranks,
    forfeit_view,
)
from games.maniglia.rules import ABOVE, POINTS, SUIT_CARDS, SUIT_MASKS, SUIT_OF, deal_hands

PLAY, TRUMP, BID, PASS = 0, 40, 44, 97
MIN_BID, TOP_BID = 20, 72  # MANIGLIA-AUC-2 (TOP_BID: the highest MAX of any variant)
LABELS: tuple[str, ...] = (
    tuple(f"play {c}" for c in LATIN_NAMES)
    + tuple(f"trump {s}" for s in LATIN_SUITS)
    + tuple(f"bid {n}" for n in range(MIN_BID, TOP_BID + 1))
    + ("pass",)
)
LABEL_IDS = {label: i for i, label in enumerate(LABELS)}
#: ``PLAY_LABELS[s][m]``: the ``play`` labels of suit pattern ``m`` of suit ``s``.
PLAY_LABELS = [[tuple(LABELS[c] for c in cards) for cards in suit] for suit in SUIT_CARDS]

MAX_DEALS = 100  # LIMIT-4, thrown-in deals included

# Phases.
P_AUCTION, P_TRUMP, P_PLAY, P_OVER = range(4)
PHASE_NAMES = ("auction", "trump", "play", "over")

_S0, _S1, _S2, _S3 = SUIT_CARDS
_M = 0x3FF
#: ``_AFTER[n][seat]``: the next seat counter-clockwise at a table of n (MANIGLIA-GEN-3).
_AFTER = {n: tuple((seat - 1) % n for seat in range(n)) for n in (3, 4, 5)}


def hand_cards(mask: int) -> list[int]:
    """Cards of a hand mask in legal-list order (suit D C S B, rank 2..7)."""
    return [*_S0[mask & _M], *_S1[(mask >> 10) & _M], *_S2[(mask >> 20) & _M], *_S3[mask >> 30]]


def names(mask: int) -> list[str]:
    return [LATIN_NAMES[c] for c in hand_cards(mask)]


class PublicHistory:
    """The public history of one state (``ManigliaState._public_history``)."""

    __slots__ = ("actions", "final", "owner", "seen")

    def __init__(self, owner: list[int]) -> None:
        self.owner = owner  # the state's history list this view follows
        self.actions: list[list[list[Any]]] = []  # per deal, its [seat, label] pairs
        self.final: list[dict[str, Any]] = []  # the dicts of the logged deals
        self.seen = 0  # history entries already in ``actions``


class ManigliaState(State):
    """Base state of the Maniglia family."""

    LABELS = LABELS
    LABEL_IDS = LABEL_IDS
    PLAYERS: ClassVar[int] = 4
    PACK: ClassVar[int] = (1 << 40) - 1
    PACK_CARDS: ClassVar[tuple[int, ...]] = tuple(range(40))  # bits_of(PACK)

    __slots__ = (
        "deal",
        "deal_log",
        "deal_starts",
        "dealer",
        "decks",
        "first_dealer",
        "forfeited",
        "game",
        "given_decks",
        "hands",
        "history",
        "leader",
        "led",
        "legal_mask",
        "n",
        "phase",
        "points",
        "seed",
        "side",
        "strict",
        "to_move",
        "trick",
        "trump",
        "view_cache",
        "win_card",
        "win_seat",
        "won",
    )

    # -- construction -----------------------------------------------------
    @classmethod
    def new(cls, game: Game, seed: int, dealer: int | None, decks: Any) -> ManigliaState:
        self = cls.__new__(cls)
        self.game = game
        self.seed = seed
        self.n = n = cls.PLAYERS
        self.given_decks = [
            parse_deck(deck, LATIN_INDEX, cls.PACK, f"deck {i}")
            for i, deck in enumerate(decks or ())
        ]
        self.first_dealer = rng.draw(n, seed, "dealer") if dealer is None else dealer
        self.dealer = self.first_dealer
        self.strict = game.options["maniglia.overtake"] == "strict"
        self.deal = 0
        self.decks: list[list[int]] = []
        self.history: list[int] = []
        self.deal_starts: list[int] = []
        self.deal_log: list[dict[str, Any]] = []  # public summary of each finished deal
        self.forfeited: tuple[int, str] | None = None
        self.view_cache: PublicHistory | None = None  # see _public_history
        self._init_game()
        self._start_deal()
        return self

    def _init_game(self) -> None:
        """Hook: per-game fields of the variant."""

    def _next_deck(self) -> list[int]:
        index = self.deal - 1
        if index < len(self.given_decks):
            deck = self.given_decks[index]
        else:
            deck = rng.shuffled(self.PACK_CARDS, self.seed, f"deck/{self.deal}")
        self.decks.append(deck)
        return deck

    def _start_deal(self) -> None:
        n = self.n
        self.deal += 1
        self.deal_starts.append(len(self.history))
        self.hands = deal_hands(self._next_deck(), self.dealer, n)  # MANIGLIA-GEN-4
        self.points = [0] * n
        self.won = [0] * n
        self.trick: list[int] = []
        self.led = -1
        self.win_card = self.win_seat = -1
        self.trump = -1
        self.legal_mask = -1  # the current player's legal cards once computed, else -1
        self._begin_deal()

    def _begin_deal(self) -> None:
        """Hook: set up the deal's first decision (auction, or play with a turn-up)."""
        raise NotImplementedError

    def _start_play(self, trump: int, side: tuple[int, ...]) -> None:
        """Trump is fixed; ``side[seat]`` tells the two sides of MANIGLIA-GEN-5 apart."""
        self.phase = P_PLAY
        self.trump = trump
        self.side = side
        # MANIGLIA-4P-4, MANIGLIA-AUC-5: the dealer's right leads the first trick.
        self.leader = self.to_move = (self.dealer - 1) % self.n

    # -- queries ------------------------------------------------------------
    def current_player(self) -> int | None:
        return None if self.phase == P_OVER else self.to_move

    def is_over(self) -> bool:
        return self.phase == P_OVER

    def _playable(self, seat: int, hand: int) -> int:
        """MANIGLIA-GEN-5 for ``seat`` now (inlined ``rules.playable``: the hot loop)."""
        led = self.led
        if led < 0:
            return hand
        win = self.win_card
        must_beat = self.strict or self.side[seat] != self.side[self.win_seat]
        follow = hand & SUIT_MASKS[led]
        if follow:
            if must_beat and win // 10 == led:
                return follow & ABOVE[win] or follow
            return follow
        if not must_beat:
            return hand
        trump = self.trump
        trumps = hand & SUIT_MASKS[trump]
        if not trumps:
            return hand
        winners = trumps & ABOVE[win] if win // 10 == trump else trumps
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
                if win // 10 == led and (
                    self.strict or self.side[seat] != self.side[self.win_seat]
                ):
                    follow = follow & ABOVE[win] or follow
                self.legal_mask = follow
                return list(tables[led][follow >> (10 * led)])
            hand = self._playable(seat, hand)
        self.legal_mask = hand
        t0, t1, t2, t3 = tables
        return [*t0[hand & _M], *t1[(hand >> 10) & _M], *t2[(hand >> 20) & _M], *t3[hand >> 30]]

    def legal_ids(self) -> list[int]:
        if self.phase == P_PLAY:
            return self._legal_cards(SUIT_CARDS)
        if self.phase == P_OVER:
            return []
        return self._legal_other()

    def legal_actions(self) -> list[str]:
        if self.phase == P_PLAY:  # the hot case, straight from label tables
            return self._legal_cards(PLAY_LABELS)
        if self.phase == P_OVER:
            return []
        return self._legal_other_labels()

    def _legal_other_labels(self) -> list[str]:
        """Hook: ``_legal_other`` as labels."""
        return [LABELS[a] for a in self._legal_other()]

    def _legal_other(self) -> list[int]:
        """Hook: legal ids of a decision other than a card play."""
        raise NotImplementedError

    def _is_legal_other(self, action: int) -> bool:
        """Hook: ``action in self._legal_other()``, possibly without building the list."""
        return action in self._legal_other()

    # -- moves ----------------------------------------------------------------
    def apply_id(self, action: int) -> None:
        phase = self.phase
        if phase == P_PLAY:
            if type(action) is int and 0 <= action < 40:
                seat = self.to_move
                hands = self.hands
                hand = hands[seat]
                bit = 1 << action
                trick = self.trick
                legal = self.legal_mask
                if legal < 0:
                    legal = self._playable(seat, hand)
                if legal & bit:
                    self.legal_mask = -1
                    if trick:
                        # COMMON-5: a higher card of W's suit, or a trump over a non-trump,
                        # takes over.
                        win = self.win_card
                        suit = action // 10
                        if (suit == win // 10 and action > win) or (
                            suit == self.trump and win // 10 != suit
                        ):
                            self.win_card = action
                            self.win_seat = seat
                    else:
                        self.led = action // 10
                        self.win_card = action
                        self.win_seat = seat
                    hands[seat] = hand ^ bit
                    self.history.append(seat << 8 | action)
                    trick.append(action)
                    if len(trick) == self.n:
                        self._finish_trick()
                    else:
                        self.to_move = (seat - 1) % self.n
                    return
        elif phase != P_OVER and type(action) is int and self._is_legal_other(action):
            seat = self.to_move
            self.history.append(seat << 8 | action)
            self._apply_other(seat, action)
            return
        self._reject_id(action)

    def _reject_id(self, action: object) -> None:
        label = LABELS[action] if type(action) is int and 0 <= action < len(LABELS) else action
        self._reject(label)

    def _apply_other(self, seat: int, action: int) -> None:
        raise NotImplementedError

    # -- random playouts (the search hot loop) ---------------------------------
    def deal_number(self) -> int:
        return self.deal

    def playout(self, rng: RandomSource, *, deal_only: bool = False) -> None:
        """``State.playout`` with the tricks of each deal played by one inlined loop."""
        random = rng.random
        deal = self.deal
        while self.phase != P_OVER and not (deal_only and self.deal != deal):
            if self.phase == P_PLAY:
                if self.trick:
                    ids = self.legal_ids()
                    self.apply_id(ids[int(random() * len(ids))])
                else:
                    self._play_out_tricks(random)
            else:
                self._play_out_other(random)

    def _play_out_other(self, random: Callable[[], float]) -> None:
        """Hook: one random decision before card play, as ``playout`` draws it."""
        ids = self.legal_ids()
        self.apply_id(ids[int(random() * len(ids))])

    def _play_out_tricks(self, random: Callable[[], float]) -> None:
        """Play the deal's remaining tricks at random, from a trick's lead, and score it.

        The same choices, history and state as ``apply_id`` of ``legal_ids()[k]`` for
        each card (MANIGLIA-GEN-5 as in ``_playable``, COMMON-5, MANIGLIA-GEN-6).
        Hands are held here as four sorted suit lists, so following is one pop.
        """
        strict, side, won, points, trump = self.strict, self.side, self.won, self.points, self.trump
        append = self.history.append
        size = self.hands[self.leader].bit_count()  # every hand has this many cards
        hands = [[list(SUIT_CARDS[s][h >> 10 * s & _M]) for s in range(4)] for h in self.hands]
        after = _AFTER[self.n]
        followers = range(self.n - 1)
        seat = self.leader
        while size:
            k = int(random() * size)  # the lead: card k of the hand (pop_nth, inlined)
            for cards in hands[seat]:
                if k < len(cards):
                    break
                k -= len(cards)
            win = cards.pop(k)
            append(seat << 8 | win)
            win_seat = seat
            led = win_suit = SUIT_OF[win]
            total = POINTS[win]
            for _ in followers:
                seat = after[seat]
                suits = hands[seat]
                cards = suits[led]
                if cards:  # follow suit, beating W of the led suit if he must (step 2)
                    if win_suit == led and (strict or side[seat] != side[win_seat]):
                        above = bisect_right(cards, win)  # the cards that beat W
                        if above < len(cards):
                            card = cards.pop(above + int(random() * (len(cards) - above)))
                        else:
                            card = cards.pop(int(random() * len(cards)))
                    else:
                        card = cards.pop(int(random() * len(cards)))
                    if win_suit == led and card > win:
                        win, win_seat = card, seat
                elif (strict or side[seat] != side[win_seat]) and (cards := suits[trump]):
                    # Void, must beat W and holds trumps (step 3): a trump that wins.
                    if win_suit == trump:
                        above = bisect_right(cards, win)
                        if above < len(cards):
                            card = cards.pop(above + int(random() * (len(cards) - above)))
                        elif strict:
                            card = cards.pop(int(random() * len(cards)))  # any trump
                        else:
                            card = pop_nth(suits, int(random() * size))  # any card
                    else:
                        card = cards.pop(int(random() * len(cards)))
                    suit = SUIT_OF[card]
                    if (suit == win_suit and card > win) or (suit == trump != win_suit):
                        win, win_seat, win_suit = card, seat, suit
                else:  # void, and free to play anything (step 4)
                    card = pop_nth(suits, int(random() * size))
                    suit = SUIT_OF[card]
                    if (suit == win_suit and card > win) or (suit == trump != win_suit):
                        win, win_seat, win_suit = card, seat, suit
                append(seat << 8 | card)
                total += POINTS[card]
            won[win_seat] += 1
            points[win_seat] += total
            seat = win_seat
            size -= 1
        self.hands = [0] * self.n
        self.win_card, self.win_seat = win, win_seat
        self.led = -1
        self.leader = self.to_move = seat
        self._finish_deal()

    def _finish_trick(self) -> None:
        """MANIGLIA-GEN-6: the winner takes the trick's card points and leads next."""
        winner = self.win_seat
        self.won[winner] += 1
        points = 0
        for card in self.trick:
            points += POINTS[card]
        self.points[winner] += points
        self.trick = []
        self.led = -1
        self.leader = self.to_move = winner
        if not self.hands[winner]:
            self._finish_deal()

    def _finish_deal(self) -> None:
        over = self._score_deal()
        if over or self.deal >= MAX_DEALS:  # LIMIT-4
            self._end_game()
            return
        self.dealer = (self.dealer - 1) % self.n  # MANIGLIA-GEN-3: the deal passes right
        self._start_deal()

    def _end_game(self) -> None:
        self.phase = P_OVER
        self.to_move = -1

    def _score_deal(self) -> bool:
        """Hook: add the deal's scores and log it; return True when the game is over."""
        raise NotImplementedError

    def forfeit(self, seat: int, reason: str = "illegal") -> None:
        """FORFEIT-2: the game stops at once; the unfinished deal is discarded."""
        self._check_seat(seat)
        if self.phase == P_OVER:
            raise IllegalAction("the game is already over")
        self.forfeited = (seat, str(reason))
        self._end_game()

    # -- results --------------------------------------------------------------
    def scores(self) -> list[int]:
        raise NotImplementedError

    def ranking(self) -> list[int]:
        if self.phase != P_OVER:
            raise ValueError("ranking() is only defined once the game is over")
        return self._ranking()

    def _ranking(self) -> list[int]:
        """FORFEIT-2 and COMMON-7 for players on their own; partners override."""
        scores = self.scores()
        if self.forfeited is None:
            return competition_ranks(scores)
        offender = self.forfeited[0]
        others = [s for s in range(self.n) if s != offender]
        ranks = competition_ranks([scores[s] for s in others])
        result = [self.n] * self.n  # the offender is last alone
        for s, r in zip(others, ranks, strict=True):
            result[s] = r
        return result

    # -- views ----------------------------------------------------------------
    def _public_history(self) -> list[dict[str, Any]]:
        """The public history, one dict per deal, kept and extended in place (shared).

        Every action is public, so one view serves every seat. The ``[seat,
        label]`` pairs of each deal are kept in ``view_cache`` and extended with
        the actions applied since the last call; a finished deal's dict (head,
        ``actions``, ``result``) is made once, when the deal is logged, and never
        changes again. The current deal's dict is made afresh each call around
        its growing ``actions`` list. The cache belongs to this state's
        ``history`` list: a clone (whose history is a copy) builds its own on
        first use. The list returned is new; what it holds is the cache's:
        read-only.
        """
        history = self.history
        view = self.view_cache
        if view is None or view.owner is not history:
            view = self.view_cache = PublicHistory(history)
        actions, starts = view.actions, self.deal_starts
        length = len(history)
        if view.seen < length or len(actions) < len(starts):
            seen, index = view.seen, len(actions) - 1
            while True:
                if index >= 0:
                    end = starts[index + 1] if index + 1 < len(starts) else length
                    if seen < end:
                        actions[index] += [[e >> 8, LABELS[e & 0xFF]] for e in history[seen:end]]
                        seen = end
                index += 1
                if index == len(starts):
                    break
                actions.append([])
            view.seen = seen
        final, log = view.final, self.deal_log
        while len(final) < len(log) and len(final) < len(actions):
            i = len(final)
            entry = {k: v for k, v in log[i].items() if k != "result"}
            entry["actions"] = actions[i]
            entry["result"] = _copy(log[i]["result"])
            final.append(entry)
        deals = final[:]
        for i in range(len(final), len(starts)):
            entry = self._deal_head(i)
            entry["actions"] = actions[i]
            deals.append(entry)
        return deals

    def _history_view(self) -> list[dict[str, Any]]:
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
        head = {"deal": self.deal, "dealer": self.dealer, **self._current_head()}
        self.deal_log.append({**head, "result": result})

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: own cards, all public facts and history (MANIGLIA-GEN-7)."""
        self._check_seat(seat)
        return self._observe(seat, self._history_view())

    def shared_observation(self, seat: int) -> dict[str, Any]:
        """``observation(seat)`` whose history's deals are the state's own (``State``)."""
        self._check_seat(seat)
        return self._observe(seat, self._public_history())

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

    def record(self) -> dict[str, Any]:
        return self._record_of(
            self.first_dealer,
            [[LATIN_NAMES[c] for c in deck] for deck in self.decks],
            [LABELS[e & 0xFF] for e in self.history],
            self.forfeited,
        )


def _copy(value: Any) -> Any:
    """A copy of a JSON-like value, so observations never share mutable parts."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    return value
