"""Hidden-card oracle for manni-basic, manni-hornafjordur and laugavatnsmanni.

Rebuilds hands from the decks by the deal patterns of MANNI-BASIC-4, HORN-5
and LAUG-3 (a small manni-basic deck, ``manni.ranks``, of N ranks gives N cards each
in packets of 4 when they fit, else 3, and an N-card Manni), and follows takes,
draws and plays from the action labels.
"""

from __future__ import annotations

import re

TOKEN = re.compile(r"\b[2-9TJQKA][SHDC]\b")
MAX_DECKS = 100

CASES = [
    ("manni-basic", {}),
    ("manni-basic", {"manni.tie": "play-on"}),
    ("manni-basic", {"manni.ranks": 3}),
    ("manni-basic", {"manni.ranks": 6, "manni.tie": "play-on"}),
    ("manni-basic", {"manni.ranks": 9}),
    ("manni-hornafjordur", {}),
    ("manni-hornafjordur", {"horn.cut_table": "alt"}),
    ("laugavatnsmanni", {}),
    ("laugavatnsmanni", {"laug.nullo_ace_low": True}),
    ("laugavatnsmanni", {"laug.exchange": "skat"}),
    ("laugavatnsmanni", {"laug.first_lead": "dealer-left"}),
    ("laugavatnsmanni", {"laug.stop_at": 6}),
]

_ALL = [r + s for s in "SHDC" for r in "23456789TJQKA"]


def pack(variant_id: str, options: dict) -> list[str]:
    if variant_id == "manni-basic":
        kept = "23456789TJQKA"[13 - options.get("manni.ranks", 12) :]  # the highest ranks
        return [c for c in _ALL if c[0] in kept]
    return list(_ALL)


class Oracle:
    def __init__(self, variant_id: str, options: dict, dealer: int, decks: list[list[str]]):
        self.variant = variant_id
        self.ranks = options.get("manni.ranks", 12)
        self.skat = options.get("laug.exchange") == "skat"
        self.decks = decks
        self.dealer = dealer
        self.deal = 0
        self.known: list[set[str]] = [set(), set(), set()]
        self.public: set[str] = set()
        self._start_deal()

    def _start_deal(self) -> None:
        deck = self.decks[self.deal]
        self.deal += 1
        self.plays = 0
        self.pending = 0  # cards discarded and not yet drawn back
        left = (self.dealer + 1) % 3
        if self.variant == "manni-basic":
            hand = self.ranks  # a quarter of the deck each, the Manni the last quarter
            size = 4 if hand % 4 == 0 else 3
            for p in range(3 * hand // size):
                self.known[(left + p) % 3].update(deck[size * p : size * p + size])
            self.stock = deck[3 * hand :]
            self.tricks = hand
        elif self.variant == "manni-hornafjordur":
            stock = []
            for cyc in range(4):
                b = 13 * cyc
                stock += deck[b : b + 4]
                for i in range(3):
                    self.known[(left + i) % 3].update(deck[b + 4 + 3 * i : b + 7 + 3 * i])
            self.stock = stock[::-1]
            self.public.add(deck[51])  # the contract card is shown to all
            self.tricks = 12
        else:
            for p in range(12):
                self.known[(left + p) % 3].update(deck[4 * p : 4 * p + 4])
            self.stock = deck[48:52][::-1]
            self.tricks = 16
            self.step = ""

    def advance(self, seat: int, label: str) -> None:
        if label == "take":
            self.known[seat].update(self.stock)
        elif label.startswith(("announce ", "great ")) or label == "pass":
            declarer = self._auction(seat, label)
            if declarer is not None and self.skat:
                self.known[declarer].update(self.stock)  # LAUG-8 skat: Manni joins his hand
        elif label.startswith("discard "):
            self.pending += 1
        elif label == "draw":
            self.known[seat].update(self.stock[: self.pending])
            self.stock = self.stock[self.pending :]
            self.pending = 0
        elif label.startswith("play "):
            self.public.add(label[5:])
            self.plays += 1
            if self.plays == 3 * self.tricks and self.deal < len(self.decks):
                self.dealer = (self.dealer + 1) % 3
                self._start_deal()

    def _auction(self, seat: int, label: str) -> int | None:
        """LAUG-7 re-derived from the labels: the declarer once he is known."""
        a, d = (self.dealer + 1) % 3, self.dealer
        b = (a + 1) % 3
        call = label != "pass"
        if label.startswith("announce "):
            if label == "announce nullo":
                return a
            self.step = "B"
            return None
        nxt = {
            ("B", True): "AB",
            ("B", False): "D1",
            ("AB", True): a,
            ("AB", False): "DB",
            ("DB", True): d,
            ("DB", False): b,
            ("D1", True): "AD",
            ("D1", False): a,
            ("AD", True): a,
            ("AD", False): d,
        }[(self.step, call)]
        if isinstance(nxt, str):
            self.step = nxt
            return None
        return nxt

    def visible(self, seat: int) -> set[str]:
        return self.known[seat] | self.public
