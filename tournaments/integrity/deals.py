"""Secret deals: where a competition's match seeds come from, and how anyone checks them.

Every deal of a match follows from the match's seed (``bots.referee.match.game_seed``),
so whoever knows a match seed before the match is played knows every hand in it.
A competition therefore draws its match seeds from a random 256-bit secret:

- the secret is generated when the competition is created (unless the organiser
  chose a seed, see below) and kept out of every API response, bot message,
  event and log while the competition runs;
- its commitment, the SHA-256 of the secret's bytes, is published from the start;
- once the competition has ended the secret itself is published, and anyone can
  check that it matches the commitment and recompute every match seed, and so
  every deck of every stored game, with :func:`match_seed_from_secret`.

An organiser who wants a run that can be repeated exactly may choose a seed
instead; the match seeds then follow from public values (the competition id,
round and table) and that seed, so whoever knows the seed knows every deal.

Built-in bots are seeded from the match seed too (:func:`player_seed`, defined with the
seating of every match in ``bots.referee.seating``), so their moves cannot be predicted
while the secret is hidden. Pure: no Django.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any

import games
from bots.referee.match import game_seed
from bots.referee.seating import player_seed as player_seed  # part of the checkable deals

SECRET_BYTES = 32
#: Match seeds keep 56 bits, so they fit a signed 64-bit database column.
SEED_BYTES = 7
_HEX_SECRET = re.compile(r"[0-9a-f]{64}")

#: What an organiser who chooses a seed is told.
SEEDED_WARNING = (
    "This competition's deals follow from its chosen seed and public values: whoever "
    "knows the seed can compute every hand of every match, before it is played. Leave "
    "the seed out to have the deals drawn from a secret that is published at the end."
)


def new_secret() -> str:
    """A fresh competition secret: 256 random bits as 64 lowercase hex digits."""
    return secrets.token_hex(SECRET_BYTES)


def check_secret(secret: str) -> bytes:
    """The secret's bytes; ``ValueError`` unless it is 64 lowercase hex digits."""
    if not isinstance(secret, str) or not _HEX_SECRET.fullmatch(secret):
        raise ValueError("a deal secret is 64 lowercase hexadecimal digits")
    return bytes.fromhex(secret)


def commitment(secret: str) -> str:
    """SHA-256 of the secret's 32 bytes, in hex: published while the secret is hidden."""
    return hashlib.sha256(check_secret(secret)).hexdigest()


def match_seed_from_secret(
    secret: str, *, competition_id: int, round_number: int, table: int
) -> int:
    """The seed of one match: HMAC-SHA256 keyed by the secret, first 56 bits."""
    message = f"cardroom-match:{competition_id}:{round_number}:{table}".encode()
    digest = hmac.new(check_secret(secret), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:SEED_BYTES], "big")


def match_seed_from_seed(seed: int, *, competition_id: int, round_number: int, table: int) -> int:
    """The seed of one match of a competition whose organiser chose ``seed`` (predictable)."""
    text = f"cardroom:{competition_id}:{seed}:{round_number}:{table}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:SEED_BYTES], "big")


def playoff_seed(match_seed: int, playoff_set: int) -> int:
    """The match seed of the ``playoff_set``-th (1-based) play-off set of a level knockout
    match: its deals are fresh (none is a deal of the match), and as secret as the match's."""
    digest = hashlib.sha256(f"cardroom-playoff:{match_seed}:{playoff_set}".encode()).digest()
    return int.from_bytes(digest[:SEED_BYTES], "big")


def check_game(record: dict[str, Any], *, match_seed: int, deal: int) -> str | None:
    """Why a stored game record does not follow from its match seed, or ``None`` if it does.

    The game's seed must be the referee's seed of deal ``deal`` of the match, and
    replaying its actions on decks drawn from that seed alone (no stored deck) must
    deal exactly the stored decks.
    """
    expected = game_seed(match_seed, deal)
    if record.get("seed") != expected:
        return f"game seed {record.get('seed')} is not deal {deal}'s seed {expected}"
    try:
        rebuilt = games.replay({**record, "decks": []}).record()
    except (ValueError, games.IllegalAction) as exc:
        return f"the record does not replay from its seed: {exc}"
    if rebuilt["decks"] != record["decks"]:
        return "the stored decks are not the ones the seed deals"
    return None
