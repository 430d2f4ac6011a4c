"""The fixed-length observation vector of a seat (docs/training.md), one layout per family.

Every vector is built from ``state.shared_observation(seat)`` and nothing else, so a
seat's vector holds exactly what that seat may see (the conformance leak oracle checks
it). Seats are *relative*: block ``k`` of a per-seat field is the seat ``k`` places to
the observer's left (``(seat + k) % players``), so block 0 is always the observer.
Every entry lies in ``[-1, 1]``: flags are 0 or 1, counts are divided by a bound,
scores are squashed with ``tanh(score / scale)``.

``Encoder(game).layout`` lists the fields as ``(name, start, length)``.

In the trick games ``encode`` is incremental: it keeps each seat's last vector and,
while the same state plays cards within a deal, changes only what the cards played
since changed (the card's bits, the trick, the hand sizes, the seat to act, the
tricks won) from the engine's state, instead of building the observation again.
Any other action, a new deal or another state rebuilds the vector from
``shared_observation``; both give the same vector (``tests/games/envs``).
"""

from __future__ import annotations

import math
from array import array
from typing import Any

import numpy as np

from games.cards import FRENCH_INDEX, FRENCH_SUITS, LATIN_INDEX, LATIN_SUITS
from games.core import Game, State

MANNI_PHASES = ("play", "over", "manni", "exchange", "announce", "great")
MANIGLIA_PHASES = ("play", "over", "auction", "trump")
MONEY_PHASES = ("turn", "purchase", "change", "capture", "over")
MANNI_CONTRACTS = ("nullo", "grand", "spades", "hearts", "diamonds", "clubs")
MONEY_CARDS = {**FRENCH_INDEX, "X1": 52, "X2": 53}
MONEY_DENOMINATIONS = ("J", "Q", "K", "X")
#: ``games.tricks.P_PLAY``: card play, the phase the incremental path follows (not
#: imported: the engines must not be able to reach this module through a cycle).
P_PLAY = 0


class Encoder:
    """Maps a state and a seat to the family's observation vector (``float32``)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.family = game.variant.family
        self.players = n = game.num_players
        if self.family == "manni":
            self.cards, self.suits, self.phases = FRENCH_INDEX, FRENCH_SUITS, MANNI_PHASES
        elif self.family == "maniglia":
            self.cards, self.suits, self.phases = LATIN_INDEX, LATIN_SUITS, MANIGLIA_PHASES
        elif self.family == "money":
            self.cards, self.suits, self.phases = MONEY_CARDS, "", MONEY_PHASES
        else:  # a family added later needs its layout here
            raise ValueError(f"no observation layout for family {self.family!r}")
        c = len(self.cards)
        fields: list[tuple[str, int]]
        if self.family == "money":
            fields = [
                ("pile", c),  # every card in the pile (public)
                ("pile_top", c),  # the top card of the pile
                ("pile_size", 1),  # / 54
                ("banks", n * len(MONEY_DENOMINATIONS)),  # money cards per seat / 8
                ("stack_sizes", n),  # / 54
                ("scores", n),  # tanh(score / 100)
                ("plays", 1),  # plays / max_plays
                ("phase", len(self.phases)),
                ("current", n),
                ("dealer", n),
            ]
        else:
            fields = [
                ("hand", c),  # own hand
                ("public", c),  # cards out of play that this seat knows, turned card
                ("trick", n * c),  # the current trick, by seat
                ("played", n * c),  # history summary: cards played this deal, by seat
                ("trump", len(self.suits) + 1),  # the trump suit, or none (last)
                ("contract", len(MANNI_CONTRACTS) + 1),  # Manni: the contract; Maniglia: bid
                ("declarer", n + 1),  # the declarer / taker, or none (last)
                ("leader", n + 1),  # the leader of the current trick, or none (last)
                ("dealer", n),
                ("current", n),  # the seat to act
                ("hand_sizes", n),  # / cards
                ("tricks_won", n),  # / 20
                ("points", n),  # Maniglia card points / 120 (zero in Manni)
                ("scores", n),  # tanh(score / scale)
                ("phase", len(self.phases)),
            ]
        self.layout: list[tuple[str, int, int]] = []
        start = 0
        for name, length in fields:
            self.layout.append((name, start, length))
            start += length
        self.size = start
        self.offsets = {name: s for name, s, _ in self.layout}
        self._cache: tuple[Any, Any, int, list[tuple[int, int]]] = (None, None, 0, [])
        self._zeros = bytes(4 * self.size)
        self.score_scale = 10.0 if self.family == "manni" else 100.0
        self.card_count = c
        #: Per seat, for the incremental path: [state, deal, history length, vector,
        #: the trick's bits in it] (``_keep``, ``_advance``).
        self._seats: dict[int, list[Any]] = {}
        #: Manni and Maniglia states (``games.tricks.TrickState``): card play is incremental.
        self.incremental = self.family != "money"

    def encode(self, state: State, seat: int) -> np.ndarray:
        if self.incremental:
            kept = self._advance(state, seat)
            if kept is not None:
                return np.frombuffer(kept, dtype=np.float32).copy()
            out = array("f", self._zeros)
            self._tricks(state, state.shared_observation(seat), seat, out)
            self._keep(state, seat, out)
            return np.frombuffer(out, dtype=np.float32)
        return self._encode(state, state.shared_observation(seat), seat)

    # -- the incremental path (trick games, card play) ---------------------------
    def _keep(self, state: Any, seat: int, out: array) -> None:
        """Remember ``out`` as ``seat``'s vector, if the state is in card play (else forget).

        Kept: the state, its deal, how much of its history the vector holds, the vector,
        the trick's bits in it, the relative seat to act, the tricks won so far.
        """
        if getattr(state, "phase", None) != P_PLAY or state.forfeited is not None:
            self._seats.pop(seat, None)
            return
        trick = self._trick_bits(state, seat)
        current = (state.to_move - seat) % self.players
        copy = array("f", out)
        self._seats[seat] = [
            state,
            state.deal,
            len(state.history),
            copy,
            trick,
            current,
            sum(state.won),
        ]

    def _trick_bits(self, state: Any, seat: int) -> list[int]:
        base, c, n, after = self.offsets["trick"], self.card_count, self.players, state.after
        bits, player = [], state.leader
        for card in state.trick:
            bits.append(base + ((player - seat) % n) * c + card)
            player = after[player]
        return bits

    def _advance(self, state: Any, seat: int) -> array | None:
        """``seat``'s kept vector brought up to date, or None when it must be rebuilt."""
        kept = self._seats.get(seat)
        if kept is None:
            return None
        old, deal, seen, out, trick, current, won_total = kept
        history = state.history
        if (
            old is not state
            or state.deal != deal
            or state.phase != P_PLAY
            or state.forfeited is not None
            or len(history) < seen
        ):
            return None
        if len(history) == seen:
            return out
        cards, n, off = self.card_count, self.players, self.offsets
        played, hand, sizes = off["played"], off["hand"], off["hand_sizes"]
        hands = state.hands
        for entry in history[seen:]:
            card, player = entry & 0xFF, entry >> 8
            if card >= cards:  # not a card play: rebuild
                return None
            rel = (player - seat) % n
            out[played + rel * cards + card] = 1.0
            if rel == 0:
                out[hand + card] = 0.0
            out[sizes + rel] = hands[player].bit_count() / cards
        for i in trick:
            out[i] = 0.0
        trick[:] = bits = self._trick_bits(state, seat)
        for i in bits:
            out[i] = 1.0
        at = off["current"]
        out[at + current] = 0.0
        kept[5] = current = (state.to_move - seat) % n
        out[at + current] = 1.0
        tricks = state.won
        total = sum(tricks)
        if total != won_total:  # a trick was taken: the tricks, the leader, the points
            kept[6] = total
            won, leader = off["tricks_won"], off["leader"]
            for k in range(n):
                out[won + k] = tricks[(seat + k) % n] / 20.0
                out[leader + k] = 0.0
            out[leader + (state.leader - seat) % n] = 1.0
            if self.family == "maniglia":
                at = off["points"]
                for k, p in enumerate(state.points[seat:] + state.points[:seat]):
                    out[at + k] = max(-1.0, min(p / 120.0, 1.0))
        kept[2] = len(history)
        return out

    def encode_observation(self, observation: dict[str, Any], seat: int) -> np.ndarray:
        """The same vector from ``observation(seat)`` as a bot receives it (PROTOCOL.md
        ``act``, the history whole): what a trained policy sees in a match is what it
        saw in training. ``seat`` is the bot's own (the ``hello``'s)."""
        return self._encode(observation, observation, seat)

    def _encode(self, key: Any, obs: dict[str, Any], seat: int) -> np.ndarray:
        # Filled as a Python float array (item writes are cheap), handed out as numpy.
        out = array("f", self._zeros)
        if self.family == "money":
            self._money(obs, seat, out)
        else:
            self._tricks(key, obs, seat, out)
        return np.frombuffer(out, dtype=np.float32)

    # -- helpers ------------------------------------------------------------
    def _rel(self, seat: int, other: Any) -> int | None:
        if other is None or isinstance(other, bool) or not isinstance(other, int):
            return None
        return (other - seat) % self.players

    def _seat_onehot(self, out: Any, name: str, seat: int, other: Any) -> None:
        rel = self._rel(seat, other)
        if rel is None:
            if name in ("declarer", "leader"):
                out[self.offsets[name] + self.players] = 1.0
            return
        out[self.offsets[name] + rel] = 1.0

    def _per_seat(self, out: Any, name: str, seat: int, values: Any, f: Any) -> None:
        if not values:
            return
        base = self.offsets[name]
        n = self.players
        for s, v in enumerate(values):
            out[base + (s - seat) % n] = f(v)

    def _played(self, state: Any, deal: dict[str, Any]) -> list[tuple[int, int]]:
        """``(seat, card)`` of every card played in ``deal``, parsed once per action.

        Engines only ever add actions to a state, so for the same state object and the
        same deal only the actions added since the last call are parsed (the cache
        holds the state itself, so its id cannot be reused by another).
        """
        actions = deal.get("actions") or []
        seats = deal.get("seats")
        key = (deal.get("deal"), deal.get("dealer"))
        cached_state, cached_key, parsed, pairs = self._cache
        if cached_state is not state or cached_key != key or parsed > len(actions):
            parsed, pairs = 0, []
        cards = self.cards
        for i in range(parsed, len(actions)):
            action = actions[i]
            if seats is not None:
                s, label = seats[i], action
            else:
                s, label = action[0], action[1]
            if label.startswith("play "):
                pairs.append((s, cards[label[5:]]))
        self._cache = (state, key, len(actions), pairs)
        return pairs

    def _tricks(self, state: Any, obs: dict[str, Any], seat: int, out: Any) -> None:
        cards, n, c = self.cards, self.players, len(self.cards)
        off = self.offsets
        base = off["hand"]
        ones = [base + cards[card] for card in obs.get("hand") or ()]
        base = off["public"]
        ones += [base + cards[card] for card in obs.get("out_of_play") or ()]
        for key in ("turned_card", "contract_card"):
            card = obs.get(key)
            if isinstance(card, str) and card in cards:
                ones.append(base + cards[card])
        base = off["trick"]
        ones += [base + ((s - seat) % n) * c + cards[card] for s, card in obs.get("trick") or ()]
        history = obs.get("history") or ()
        if history:
            base = off["played"]
            ones += [
                base + ((s - seat) % n) * c + card for s, card in self._played(state, history[-1])
            ]
        trump = obs.get("trump")
        suits = self.suits
        if isinstance(trump, str) and trump in suits:
            ones.append(off["trump"] + suits.index(trump))
        else:
            ones.append(off["trump"] + len(suits))
        contract = obs.get("contract")
        base = off["contract"]
        if isinstance(contract, str) and contract in MANNI_CONTRACTS:
            ones.append(base + MANNI_CONTRACTS.index(contract))
        elif isinstance(contract, int) and not isinstance(contract, bool):
            out[base] = min(contract / 120.0, 1.0)  # Maniglia: the contract bid
        high_bid = obs.get("high_bid")
        if isinstance(high_bid, int) and not isinstance(high_bid, bool):
            out[base + 1] = min(high_bid / 120.0, 1.0)
        if self.family == "manni" and obs.get("great"):
            ones.append(base + len(MANNI_CONTRACTS))
        declarer = obs.get("declarer", obs.get("manni_taker"))
        for name, other in (
            ("declarer", declarer),
            ("leader", obs.get("leader")),
            ("dealer", obs.get("dealer")),
            ("current", obs.get("current_player")),
        ):
            if isinstance(other, int) and not isinstance(other, bool):
                ones.append(off[name] + (other - seat) % n)
            elif name in ("declarer", "leader"):
                ones.append(off[name] + n)
        phase = obs.get("phase")
        if phase in self.phases:
            ones.append(off["phase"] + self.phases.index(phase))
        for i in ones:
            out[i] = 1.0
        scale = self.score_scale
        for name, key, f in (
            ("hand_sizes", "hand_sizes", lambda v: v / c),
            ("tricks_won", "tricks_won", lambda v: v / 20.0),
            ("points", "card_points", lambda v: max(-1.0, min(v / 120.0, 1.0))),
            ("scores", "scores", lambda v: math.tanh(v / scale)),
        ):
            values = obs.get(key)
            if values:
                base = off[name]
                for k, v in enumerate(values[seat:] + values[:seat]):
                    out[base + k] = f(v)

    def _money(self, obs: dict[str, Any], seat: int, out: Any) -> None:
        cards, off, n = self.cards, self.offsets, self.players
        pile = obs.get("pile") or ()
        for card in pile:
            out[off["pile"] + cards[card]] = 1.0
        if pile:
            out[off["pile_top"] + cards[pile[-1]]] = 1.0
        out[off["pile_size"]] = min(len(pile) / 54.0, 1.0)
        denominations = len(MONEY_DENOMINATIONS)
        for s, bank in enumerate(obs.get("banks") or ()):
            base = off["banks"] + ((s - seat) % n) * denominations
            if bank and bank != "none":
                for letter in bank.split("+"):
                    if letter in MONEY_DENOMINATIONS:
                        i = base + MONEY_DENOMINATIONS.index(letter)
                        out[i] = min(out[i] + 1.0 / 8.0, 1.0)
        self._per_seat(out, "stack_sizes", seat, obs.get("stack_sizes"), lambda v: v / 54.0)
        self._per_seat(out, "scores", seat, obs.get("scores"), lambda v: math.tanh(v / 100.0))
        max_plays = obs.get("max_plays") or 1
        out[off["plays"]] = min((obs.get("plays") or 0) / max_plays, 1.0)
        phase = obs.get("phase")
        if phase in self.phases:
            out[off["phase"] + self.phases.index(phase)] = 1.0
        self._seat_onehot(out, "current", seat, obs.get("current_player"))
        self._seat_onehot(out, "dealer", seat, obs.get("dealer"))


def action_labels(game: Game) -> tuple[str, ...]:
    """The label of every action id of ``game`` (``labels[i]`` for id ``i``): how a bot,
    which receives labels, finds the ids a policy scores."""
    state = game.new_game(0)
    labels = type(state).LABELS
    if not labels:  # Money: a table per ruleset
        labels = state.rules.table.labels  # type: ignore[attr-defined]
    return tuple(labels)
