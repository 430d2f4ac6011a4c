"""The trick-taking core shared by the Manni and Maniglia families.

Two parts:

- :class:`SuitLayout`: how a pack's cards sit in a hand bitmask (``games.suits``,
  whose names are importable from here too). Card ``c`` is bit ``c``; suit ``s``
  holds the ``width`` bits from ``s * width`` (13 for the French pack, 10 for the
  Latin one), rank order within it.
- :class:`TrickState`: the part of a state both families share: dealing the
  next deck, the card-play step of ``apply_id`` and the end of a trick, the
  end of a deal, ``forfeit``, ``ranking``, ``record`` and the incremental
  public history (``games.public_history``). A family subclass keeps its own
  rules (what a player may play, what comes before play, scoring, observations)
  in the ``_`` hooks.

Phases: :data:`P_PLAY` and :data:`P_OVER` are the same numbers in every
family; a family numbers its other phases from :data:`FIRST_FAMILY_PHASE`.
:data:`P_DEALING` (below every other) is a state made with ``await_decks`` waiting
between deals for the next deal's deck (``deal_next``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

from games import rng
from games.cards import CARD_BITS, bits_of, parse_deck
from games.core import (
    DEALER_STEPS,
    Game,
    IllegalAction,
    RandomSource,
    State,
    competition_ranks,
)
from games.public_history import PublicHistory
from games.suits import FRENCH_LAYOUT, LATIN_LAYOUT, SUITS, SuitLayout, trick_keys

# Final: constants to mypyc (build_engines.py), which then reads them without a lookup.
P_PLAY: Final = 0
P_OVER: Final = 1
#: Between deals, waiting for the next deck (``await_decks``); nobody is to act.
P_DEALING: Final = -1
#: The first phase number a family may use for its phases before trick play.
FIRST_FAMILY_PHASE: Final = 2
#: Card numbers are below this (``CARD_BITS`` has a bit for each).
CARD_LIMIT: Final = len(CARD_BITS)
NO_TRUMP: Final = -1
#: ``FLOATS[n]``: ``float(n)``. A random choice among ``n`` is ``int(random() * FLOATS[n])``,
#: the number ``int(random() * n)`` gives, and compiled a product of two C doubles.
FLOATS: Final = tuple(float(n) for n in range(64))


#: The cards of each pack mask a game has used, ascending (``TrickState.deck_cards``).
_PACKS: dict[int, tuple[int, ...]] = {}


def _cards_of_pack(pack: int) -> tuple[int, ...]:
    cards = _PACKS.get(pack)
    if cards is None:
        cards = _PACKS[pack] = tuple(bits_of(pack))
    return cards


class TrickState(State):
    """A trick-taking game: deals of cards from a pack, played out one trick at a time.

    The family sets the class attributes (its pack, labels, players, play
    direction) and the hooks; everything here is the same for both families.
    """

    #: The cards of one deck (a mask) and each card's label and its index.
    PACK: ClassVar[int] = 0
    CARD_NAMES: ClassVar[tuple[str, ...]] = ()
    LABELS: ClassVar[tuple[str, ...]] = ()  # tuples: compiled, indexed without a lookup
    CARD_INDEX: ClassVar[dict[str, int]] = {}
    LAYOUT: ClassVar[SuitLayout]
    PLAYERS: ClassVar[int] = 3
    #: The seat step from one player to the next in a trick (the family's direction).
    PLAY_STEP: ClassVar[int] = 1
    #: The deal cap: the game ends after this many deals whatever the score.
    MAX_DEALS: ClassVar[int] = 100
    #: Made for each subclass from the above: the cards of one deck (of ``PACK``, the
    #: pack a game uses unless ``_pack_of`` says otherwise), ascending, and
    #: ``AFTER[seat]``, the seat that plays after ``seat`` in a trick.
    PACK_CARDS: ClassVar[tuple[int, ...]] = ()
    AFTER: ClassVar[tuple[int, ...]] = ()

    __slots__ = (
        "after",
        "deal",
        "deal_starts",
        "dealer",
        "deck_cards",
        "deck_wait",
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
        "legal_mask",
        "n",
        "pack_mask",
        "phase",
        "seed",
        "to_move",
        "trick",
        "trump",
        "view_cache",
        "win_card",
        "win_seat",
        "won",
    )
    # The slots' types (declared for mypyc, which compiles this module when it can;
    # ``game`` and ``seed`` again, so that a compiled state keeps them in its slots).
    game: Game
    seed: int
    after: tuple[int, ...]
    deal: int
    deal_starts: list[int]
    dealer: int
    deck_cards: tuple[int, ...]
    deck_wait: bool
    decks: list[list[int]]
    first_dealer: int
    forfeited: tuple[int, str] | None
    given_decks: list[list[int]]
    hands: list[int]
    history: list[int]
    keys: tuple[tuple[int, ...], ...]
    leader: int
    led: int
    legal_mask: int
    n: int
    pack_mask: int
    phase: int
    to_move: int
    trick: list[int]
    trump: int
    view_cache: dict[int | None, PublicHistory]
    win_card: int
    win_seat: int
    won: list[int]

    # -- construction -----------------------------------------------------
    @classmethod
    def new(cls, game: Game, seed: int, dealer: int | None, decks: Any) -> TrickState:
        self = cls.__new__(cls)
        self.game = game
        self.seed = seed
        self.n = n = cls.PLAYERS
        self.after = cls.AFTER
        self.pack_mask = pack = cls._pack_of(game)
        self.deck_cards = cls.PACK_CARDS if pack == cls.PACK else _cards_of_pack(pack)
        self.given_decks = [
            parse_deck(deck, cls.CARD_INDEX, pack, f"deck {i}")
            for i, deck in enumerate(decks or ())
        ]
        self.first_dealer = rng.draw(n, seed, "dealer") if dealer is None else dealer
        self.dealer = self.first_dealer
        self.deal = 0
        self.deck_wait = False
        self.decks = []
        self.history = []  # seat << 8 | action id, in order
        self.deal_starts = []  # the history index where each deal starts
        self.forfeited = None
        self.view_cache = {}  # per viewer (_view)
        self._init_family()
        self._init_game()
        self._start_deal()
        return self

    @classmethod
    def _pack_of(cls, game: Game) -> int:
        """Hook: the cards of one deck of ``game`` (a mask): ``PACK`` unless an option
        keeps fewer ranks (``manni.ranks``, ``maniglia.ranks``)."""
        return cls.PACK

    def _init_family(self) -> None:
        """Hook: per-game fields of the family."""

    def _init_game(self) -> None:
        """Hook: per-game fields of the variant."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        n, step = cls.PLAYERS, cls.PLAY_STEP
        cls.PACK_CARDS = tuple(bits_of(cls.PACK))
        cls.AFTER = tuple((seat + step) % n for seat in range(n))

    @classmethod
    def pack_cards(cls) -> tuple[int, ...]:
        """The cards of one deck of the variant's full pack, ascending (a game's own
        deck, which an option may make smaller, is ``deck_cards``)."""
        return cls.PACK_CARDS

    def _next_deck(self) -> list[int]:
        """The deck of the deal starting now: the given one, else a seeded shuffle (COMMON-3)."""
        index = self.deal - 1
        if index < len(self.given_decks):
            deck = self.given_decks[index]
        else:
            deck = rng.shuffled(self.deck_cards, self.seed, f"deck/{self.deal}")
        self.decks.append(deck)
        return deck

    def await_decks(self) -> None:
        """Every deal after the given decks waits for its deck (``State.await_decks``)."""
        self.deck_wait = True

    def awaiting_deck(self) -> bool:
        return self.phase == P_DEALING

    def deal_next(self, deck: Any) -> None:
        """Deal the next deal from ``deck`` (card labels), the state waiting for it."""
        if self.phase != P_DEALING:
            raise ValueError("the state is not waiting for a deck (awaiting_deck() is False)")
        what = f"deck {self.deal}"
        self.given_decks.append(parse_deck(deck, self.CARD_INDEX, self.pack_mask, what))
        self._start_deal()

    def _start_deal(self) -> None:
        if self.deck_wait and self.deal >= len(self.given_decks):
            self.phase = P_DEALING  # wait for deal_next
            self.to_move = -1
            return
        self.deal += 1
        self.deal_starts.append(len(self.history))
        self.won = [0] * self.n
        self.trick = []
        self.led = -1
        self.win_card = self.win_seat = -1
        self.trump = NO_TRUMP  # until this deal's trump is known (a forfeit may come first)
        self.legal_mask = -1  # the current player's legal cards once computed, else -1
        self._deal(self._next_deck())

    def _deal(self, deck: list[int]) -> None:
        """Hook: deal ``deck`` and set up the deal's first decision."""
        raise NotImplementedError

    def _enter_play(self, leader: int, trump: int, keys: tuple[tuple[int, ...], ...]) -> None:
        """Trick play begins: ``keys[led][c]`` is card ``c``'s strength (COMMON-5)."""
        self.phase = P_PLAY
        self.trump = trump
        self.keys = keys
        self.legal_mask = -1
        self.leader = self.to_move = leader

    # -- queries ------------------------------------------------------------
    def current_player(self) -> int | None:
        phase = self.phase
        return None if phase in (P_OVER, P_DEALING) else self.to_move

    def is_over(self) -> bool:
        return self.phase == P_OVER

    def deal_number(self) -> int:
        return self.deal

    def _playable(self, seat: int, hand: int) -> int:
        """Hook: the cards of ``hand`` that ``seat`` may play to the trick now (a mask)."""
        raise NotImplementedError

    def _legal_other(self) -> list[int]:
        """Hook: legal ids of a decision other than a card play."""
        raise NotImplementedError

    def _is_legal_other(self, action: int) -> bool:
        """Hook: ``action in self._legal_other()``, possibly without building the list."""
        return action in self._legal_other()

    # -- moves ----------------------------------------------------------------
    def apply_id(self, action: object) -> None:
        # ``object``: a bad id of any type is an IllegalAction (ACTION-7), also compiled.
        phase = self.phase
        if phase == P_PLAY:
            if type(action) is int and 0 <= action < CARD_LIMIT:
                seat = self.to_move
                hand = self.hands[seat]
                bit = CARD_BITS[action]
                legal = self.legal_mask
                if legal < 0:
                    legal = self._playable(seat, hand)
                if legal & bit:
                    self.legal_mask = -1
                    trick = self.trick
                    if trick:
                        # COMMON-5: the strongest card so far (trump, else led suit) wins.
                        keys = self.keys[self.led]
                        if keys[action] > keys[self.win_card]:
                            self.win_card = action
                            self.win_seat = seat
                    else:
                        self.led = self.LAYOUT.suits[action]
                        self.win_card = action
                        self.win_seat = seat
                    self.hands[seat] = hand ^ bit
                    self.history.append(seat << 8 | action)
                    trick.append(action)
                    if len(trick) == self.n:
                        self._finish_trick()
                    else:
                        self.to_move = self.after[seat]
                    return
        elif phase > P_OVER and type(action) is int and self._is_legal_other(action):
            seat = self.to_move
            self.history.append(seat << 8 | action)
            self._apply_other(seat, action)
            return
        self._reject_id(action)

    def _reject_id(self, action: object) -> None:
        labels = self.LABELS
        label = labels[action] if type(action) is int and 0 <= action < len(labels) else action
        self._reject(label)

    def _apply_other(self, seat: int, action: int) -> None:
        """Hook: apply the legal decision ``action`` of ``seat`` (not a card play)."""
        raise NotImplementedError

    def _finish_trick(self) -> None:
        """COMMON-5: the trick's winner takes it and leads the next; the last ends the deal."""
        winner = self.win_seat
        self.won[winner] += 1
        self._take_trick(winner)
        self.trick = []
        self.led = -1
        self.leader = self.to_move = winner
        if not self.hands[winner]:
            self._finish_deal()

    def _take_trick(self, winner: int) -> None:
        """Hook: what else ``winner`` gains from the trick just completed."""

    def _finish_deal(self) -> None:
        """Score the deal; the game ends, or the next deal starts with the next dealer."""
        if self._score_deal() or self.deal >= self.MAX_DEALS:
            self._end_game()
            return
        step = DEALER_STEPS[self.game.variant.dealer_rotation]  # COMMON-2
        self.dealer = (self.dealer + step) % self.n
        self._start_deal()

    def _score_deal(self) -> bool:
        """Hook: add the deal's scores; return True when the game is over."""
        raise NotImplementedError

    def _end_game(self) -> None:
        self.phase = P_OVER
        self.to_move = -1

    def forfeit(self, seat: object, reason: object = "illegal") -> None:
        """FORFEIT-2: the game stops at once; the unfinished deal is discarded."""
        seat = self._check_seat(seat)
        if self.phase == P_OVER:
            raise IllegalAction("the game is already over")
        self.forfeited = (seat, str(reason))
        self._end_game()

    # -- random playouts (the search hot loop) ---------------------------------
    def playout(self, rng: RandomSource, *, deal_only: bool = False) -> None:
        """``State.playout`` with the tricks of each deal played by the family's inlined loop.

        From a trick's lead ``_play_out_tricks`` plays the deal's remaining tricks;
        inside a trick, one ``legal_ids`` / ``apply_id`` step; before trick play,
        the family's ``_play_out_other``. Every choice is what ``State.playout``
        draws (``tests/games/test_playout.py``).
        """
        random = rng.random
        deal = self.deal
        while self.phase > P_OVER or self.phase == P_PLAY:
            if deal_only and self.deal != deal:
                break
            if self.phase == P_PLAY:
                if self.trick:
                    ids = self.legal_ids()
                    self.apply_id(ids[int(random() * FLOATS[len(ids)])])
                else:
                    self._play_out_tricks(random)
            else:
                self._play_out_other(random)

    def _play_out_tricks(self, random: Callable[[], float]) -> None:
        """Hook: play the deal's remaining tricks at random from a lead, and score it."""
        raise NotImplementedError

    def _play_out_other(self, random: Callable[[], float]) -> None:
        """Hook: random decisions before trick play (at least one), as ``playout`` draws them.

        This one: ``apply_id`` of ``legal_ids()[k]`` without checking again that the
        action is legal (``_legal_other`` is the legal list before trick play).
        """
        ids = self._legal_other()
        action = ids[int(random() * FLOATS[len(ids)])]
        seat = self.to_move
        self.history.append(seat << 8 | action)
        self._apply_other(seat, action)

    # -- results --------------------------------------------------------------
    def ranking(self) -> list[int]:
        if self.phase != P_OVER:
            raise ValueError("ranking() is only defined once the game is over")
        return self._ranking()

    def _ranking(self) -> list[int]:
        """COMMON-7 and FORFEIT-2 for players on their own: an offender is last alone."""
        scores = self.scores()
        if self.forfeited is None:
            return competition_ranks(scores)
        offender = self.forfeited[0]
        others = [s for s in range(self.n) if s != offender]
        ranks = competition_ranks([scores[s] for s in others])
        result = [self.n] * self.n
        for s, r in zip(others, ranks, strict=True):
            result[s] = r
        return result

    # -- views ----------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        names, labels = self.CARD_NAMES, self.LABELS
        return self._record_of(
            self.first_dealer,
            [[names[c] for c in deck] for deck in self.decks],
            [labels[e & 0xFF] for e in self.history],
            self.forfeited,
        )

    def observation(self, seat: object) -> dict[str, Any]:
        """What ``seat`` may see: own cards, all public facts and history (COMMON-6)."""
        seat = self._check_seat(seat)
        return self._observe(seat, self._history_view(seat))

    def shared_observation(self, seat: object) -> dict[str, Any]:
        """``observation(seat)`` whose history's deals are the state's own (``State``)."""
        seat = self._check_seat(seat)
        return self._observe(seat, self._public_history(seat)[:])

    def _observe(self, seat: int, history: list[dict[str, Any]]) -> dict[str, Any]:
        """Hook: the observation of ``seat`` around the public ``history`` given."""
        raise NotImplementedError

    def _public_history(self, viewer: int) -> list[dict[str, Any]]:
        """Hook: ``viewer``'s public history, one dict per deal, kept between calls (shared)."""
        raise NotImplementedError

    def _history_view(self, viewer: int) -> list[dict[str, Any]]:
        """Hook: a fresh copy of :meth:`_public_history` (nothing in it shared)."""
        raise NotImplementedError

    def _view(self, key: int | None = None) -> PublicHistory:
        """The :class:`PublicHistory` of this state's history for viewer ``key``."""
        cache = self.view_cache
        view = cache.get(key)
        if view is None or view.owner is not self.history:
            view = cache[key] = PublicHistory(self.history)
        return view


__all__ = [
    "CARD_LIMIT",
    "FIRST_FAMILY_PHASE",
    "FLOATS",
    "FRENCH_LAYOUT",
    "LATIN_LAYOUT",
    "NO_TRUMP",
    "P_DEALING",
    "P_OVER",
    "P_PLAY",
    "SUITS",
    "PublicHistory",
    "SuitLayout",
    "TrickState",
    "trick_keys",
]
