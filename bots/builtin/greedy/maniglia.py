"""Greedy strategy for Maniglia: maniglia-3/-4/-5 (auction) and maniglia-4-partners.

Bids follow an estimate of the points the hand takes in its best suit
(MANIGLIA-AUC-2, capped below the maximum, pass otherwise); trump is the
longest, strongest suit (MANIGLIA-AUC-4). Card play respects the side of
MANIGLIA-GEN-5: never fight a partner's winning card, load points onto a
trick the side surely wins, take opponents' tricks as cheaply as possible
and throw worthless cards otherwise. The engine's legal list already
enforces the duty to beat.
"""

from __future__ import annotations

from typing import Any

from bots.builtin.greedy.tricks import (
    RankTable,
    beats,
    is_master,
    played_this_deal,
    suit_lengths,
)

RANK_CHARS = "23456JNKA7"  # MANIGLIA-GEN-1, low to high
RANKS: RankTable = {r: i for i, r in enumerate(RANK_CHARS)}
POINTS = {"7": 5, "A": 4, "K": 3, "N": 2, "J": 1}  # MANIGLIA-GEN-2
SUITS = "DCSB"
PACK_40 = tuple(r + s for s in SUITS for r in RANK_CHARS)
PACK_36 = tuple(c for c in PACK_40 if c[0] != "2")  # maniglia-3 drops the 2s
#: Bids stay this far below the maximum (a maximum bid leaves no margin at all).
BID_MARGIN = 2
#: Points the other players are expected to drop on each trick the declarer wins.
DROPPED_PER_OPPONENT = 1.0


def act(obs: dict[str, Any], legal: list[str], options: dict[str, Any]) -> str:
    """The greedy choice for a Maniglia decision."""
    phase = obs["phase"]
    if phase == "play":
        return play(obs, legal)
    if phase == "auction":
        return bid(obs, legal)
    if phase == "trump":
        return "trump " + best_suit(obs["hand"])
    return legal[0]


def points(card: str) -> int:
    return POINTS.get(card[0], 0)


# -- auction ---------------------------------------------------------------------


def best_suit(hand: list[str]) -> str:
    """The longest suit, ties to the one with more points, then label order."""
    return max(SUITS, key=lambda s: sum(3 + points(c) for c in hand if c[1] == s))


def estimate_points(hand: list[str], trump: str, players: int) -> float:
    """Rough card points + tricks the declarer takes with ``trump`` (MANIGLIA-AUC-6)."""
    tricks, kept = 0.0, 0
    for suit in SUITS:
        ranks = sorted((RANKS[c[0]] for c in hand if c[1] == suit), reverse=True)
        top = _top_sequence(ranks)
        kept += sum(points(RANK_CHARS[r]) for r in ranks[:top])
        if suit == trump:
            tricks += max(top, 0.7 * len(ranks))
        else:
            tricks += top
    return kept + tricks * (1 + DROPPED_PER_OPPONENT * (players - 1))


def _top_sequence(ranks: list[int]) -> int:
    """How many of the suit's highest cards (7, A, K...) the hand holds unbroken."""
    count = 0
    for expected, rank in zip(range(len(RANK_CHARS) - 1, -1, -1), ranks, strict=False):
        if rank != expected:
            break
        count += 1
    return count


def bid(obs: dict[str, Any], legal: list[str]) -> str:
    """MANIGLIA-AUC-2: bid the minimum while it stays within the estimate, else pass."""
    hand, players = obs["hand"], obs["players"]
    limit = min(estimate_points(hand, best_suit(hand), players), obs["max_bid"] - BID_MARGIN)
    wanted = f"bid {obs['min_bid']}"
    if obs["min_bid"] <= limit and wanted in legal:
        return wanted
    return "pass" if "pass" in legal else legal[0]


# -- card play -----------------------------------------------------------------


def play(obs: dict[str, Any], legal: list[str]) -> str:
    cards = [label[5:] for label in legal]
    pack = PACK_36 if obs["variant"] == "maniglia-3" else PACK_40
    known = set(obs["hand"]).union(played_this_deal(obs["history"]))
    unseen = set(pack).difference(known)
    trump = obs["trump"]
    if not obs["trick"]:
        return "play " + lead(cards, trump, unseen, obs["seat"] == obs.get("declarer"))
    seat_winning, best = obs["winning"]
    last = len(obs["trick"]) == obs["players"] - 1
    led = obs["trick"][0][1][1]
    if seat_winning in side_of(obs):
        safe = last or (is_master(best, unseen, RANKS) and best[1] in (led, trump))
        return "play " + support(cards, trump, unseen, safe)
    return "play " + contest(cards, best, led, trump, unseen, last)


def side_of(obs: dict[str, Any]) -> list[int]:
    """The seats on this player's side (his team, or the coalition against the declarer)."""
    for team in obs.get("teams") or ():
        if obs["seat"] in team:
            return team
    return [obs["seat"]]


def cheap(card: str, trump: str | None) -> tuple[int, bool, int]:
    """Order for throwing a card away: fewest points, keep trumps, lowest rank."""
    return points(card), card[1] == trump, RANKS[card[0]]


def support(cards: list[str], trump: str | None, unseen: set[str], safe: bool) -> str:
    """A partner is winning: load points if the trick is safe, else play cheaply."""
    if not safe:
        return min(cards, key=lambda c: cheap(c, trump))
    # Keep cards that will win tricks of their own.
    spare = [c for c in cards if c[1] != trump and not is_master(c, unseen, RANKS)] or cards
    return max(spare, key=lambda c: (points(c), -RANKS[c[0]]))


def contest(
    cards: list[str], best: str, led: str, trump: str | None, unseen: set[str], last: bool
) -> str:
    """An opponent is winning: take the trick as cheaply as possible if sensible."""
    winners = [c for c in cards if beats(c, best, led, trump, RANKS)]
    if winners and not last:
        sure = [c for c in winners if is_master(c, unseen, RANKS) and c[1] in (led, trump)]
        if sure:
            winners = sure
        elif len(winners) < len(cards):
            return min((c for c in cards if c not in winners), key=lambda c: cheap(c, trump))
    if winners:
        return min(winners, key=lambda c: (c[1] == trump, RANKS[c[0]]))
    return min(cards, key=lambda c: cheap(c, trump))


def lead(cards: list[str], trump: str | None, unseen: set[str], declarer: bool) -> str:
    """Cash a sure side-suit winner, draw trumps when long in them, else lead low."""
    masters = [c for c in cards if is_master(c, unseen, RANKS)]
    side = [c for c in masters if c[1] != trump]
    if side:
        return max(side, key=lambda c: (points(c), RANKS[c[0]]))
    my_trumps = [c for c in cards if c[1] == trump]
    trumps_out = sum(1 for u in unseen if u[1] == trump)
    if trumps_out and my_trumps and (declarer or len(my_trumps) >= trumps_out):
        top = [c for c in my_trumps if c in masters]
        if top:
            return top[0]
    plain = [c for c in cards if c[1] != trump] or cards
    lengths = suit_lengths(plain)
    return min(plain, key=lambda c: (points(c), -lengths[c[1]], RANKS[c[0]]))
