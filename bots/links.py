"""Accounts that look like one person, linked from what they leave behind.

Sign-up costs little, so one person may hold several accounts and seat them at one
table of a public ladder, where two bots that play for each other beat the third
(docs/fair-play.md). Two signals link accounts automatically (:class:`AccountLink`,
with its evidence in words):

- **The sign-up address.** Each account made by sign-up keeps a keyed hash of the
  client it came from (:class:`~bots.models.AccountSignup`, :func:`address_hash`: an
  HMAC under a key derived from ``SECRET_KEY`` of the address, or of an IPv6 address's
  /64 network); never the address. An account made from the client another account
  signed up from within :data:`SIGNUP_LINK_DAYS` is linked to it
  (:func:`signup_record`).
- **The uploads.** An upload whose bytes, or whose archive contents
  (``bots.similarity``: every text file, normalised), are near-identical to an upload
  of another account links the two (:func:`links_from_upload`), unless both are near
  an example the platform ships (two beginners starting from it are not one person).
- **The think times.** Two bots of two accounts in a public ladder whose think times
  share a pattern no game explains (a timing beacon copies find each other by:
  ``tournaments.ratings.think_times``) link the two, from the ladder's batches
  (``tournaments.services.collusion.think_time_links``).

A link keeps the two accounts' bots from sharing a table in public ladders
(``tournaments.pairing``) until staff dismiss it in the admin; a dismissed link is
not made again. Staff who agree link the accounts everywhere (an owner link).
"""

from __future__ import annotations

import functools
import time
from datetime import timedelta
from pathlib import Path

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import salted_hmac

from bots import similarity
from bots.models import AccountLink, AccountSignup, BotVersion, bot_display_name
from config import proxies

Reason = AccountLink.Reason
#: Accounts signed up from one client at most this many days apart are linked.
SIGNUP_LINK_DAYS = 30
#: The examples the platform ships: a look-alike of one of them links nobody.
EXAMPLES = Path(__file__).resolve().parent / "examples"
_SALT = "cardroom.links.signup-address"


def address_hash(address: str) -> str:
    """The keyed hash kept of a sign-up ``address``: of its client (an IPv4 address, an
    IPv6 /64: ``config.proxies.client_block``), so that one LAN's addresses match."""
    return salted_hmac(_SALT, proxies.client_block(address), algorithm="sha256").hexdigest()


def account_link(*, user_id: int, other_id: int, reason: str, evidence: str) -> AccountLink | None:
    """Link two accounts for ``reason`` with ``evidence``: the new link, or None when they
    are one account or already linked for that reason (dismissed or not: the first
    evidence is kept)."""
    if user_id == other_id:
        return None
    low, high = sorted((user_id, other_id))
    try:
        with transaction.atomic():
            link, created = AccountLink.objects.get_or_create(
                user_id=low, other_id=high, reason=reason, defaults={"evidence": evidence}
            )
    except IntegrityError:  # the same pair linked at the same moment by another request
        return None
    return link if created else None


def signup_record(*, user, address: str) -> list[AccountLink]:
    """Keep the hash of the client ``user`` signed up from, and link ``user`` with the
    accounts that signed up from it within :data:`SIGNUP_LINK_DAYS`; the new links."""
    digest = address_hash(address)
    now = timezone.now()
    AccountSignup.objects.create(user=user, address_hash=digest)
    earlier = (
        AccountSignup.objects.filter(
            address_hash=digest, created_at__gte=now - timedelta(days=SIGNUP_LINK_DAYS)
        )
        .exclude(user_id=user.pk)
        .select_related("user")
    )
    made = []
    for signup in earlier:
        evidence = (
            f"{user.username} signed up from the client (address, or IPv6 /64; hash "
            f"{digest[:12]}) that {signup.user.username} signed up from on "
            f"{signup.created_at:%Y-%m-%d %H:%M} UTC"
        )
        link = account_link(
            user_id=user.pk,
            other_id=signup.user_id,
            reason=Reason.SIGNUP_ADDRESS,
            evidence=evidence,
        )
        if link is not None:
            made.append(link)
    return made


@functools.cache
def _example_sketches() -> tuple[list[int], ...]:
    """The sketch of every example bot of :data:`EXAMPLES` (each directory's text files)."""
    folders = sorted(p for p in EXAMPLES.iterdir() if p.is_dir())
    return tuple(similarity.archive_sketch(similarity.tree_sources(f)) for f in folders)


def _near_an_example(sketch: list[int]) -> bool:
    return any(
        similarity.similarity(sketch, example) >= similarity.NEAR_IDENTICAL
        for example in _example_sketches()
    )


def links_from_upload(*, version: BotVersion) -> list[AccountLink]:
    """Link the owner of ``version`` with each other account that uploaded the same bytes
    or near-identical archive contents (``bots.similarity.NEAR_IDENTICAL``), the most
    alike of their uploads named as the evidence; the new links.

    Every upload of another account with a sketch is compared, one query: the cost grows
    with the uploads kept (pruning keeps them few)."""
    owner = version.bot.owner_id
    if owner is None or not version.source_sketch or _near_an_example(version.source_sketch):
        return []
    rows = (
        BotVersion.objects.filter(bot__owner__isnull=False)
        .exclude(bot__owner_id=owner)
        .exclude(source_sketch=[])
        .values_list(
            "bot__owner_id",
            "bot__owner__username",
            "bot__name",
            "number",
            "sha256",
            "source_sketch",
        )
    )
    best: dict[int, tuple[float, str]] = {}
    for other, username, name, number, sha256, sketch in rows.iterator():
        score = (
            1.0
            if sha256 == version.sha256
            else similarity.similarity(version.source_sketch, sketch)
        )
        if score >= similarity.NEAR_IDENTICAL and score > best.get(other, (0.0, ""))[0]:
            how = (
                "same bytes" if sha256 == version.sha256 else f"archive contents {score:.0%} alike"
            )
            best[other] = (score, f"{bot_display_name(name, username)} v{number}: {how}")
    mine = f"{version.bot} v{version.number}"
    made = []
    for other, (_, theirs) in best.items():
        link = account_link(
            user_id=owner,
            other_id=other,
            reason=Reason.SIMILAR_UPLOADS,
            evidence=f"{mine} and {theirs} (bots.similarity)",
        )
        if link is not None:
            made.append(link)
    return made


#: Seconds a process keeps the groups :func:`linked_owner` read.
GROUPS_FRESH_S = 30.0
_groups: dict[int, tuple[float, int]] = {}  # user id -> (read at, the group's id)


def linked_owner(user_id: int | None) -> int | None:
    """The account ``user_id`` counts as for worker seconds and slots
    (``config.fairshare``): the smallest id of the accounts linked with it automatically
    (links not dismissed, followed through), itself if none; read at most every
    :data:`GROUPS_FRESH_S` per process. The competitions' lane adds staff's owner links
    (``tournaments.worker.tenants``)."""
    if user_id is None:
        return None
    now = time.monotonic()
    found = _groups.get(user_id)
    if found is not None and now - found[0] <= GROUPS_FRESH_S:
        return found[1]
    group, pending = {user_id}, {user_id}
    while pending:  # breadth first through the links, to the whole group
        near = Q(user_id__in=pending) | Q(other_id__in=pending)
        pairs = AccountLink.objects.filter(near, dismissed=False).values_list("user_id", "other_id")
        pending = {o for pair in pairs for o in pair} - group
        group |= pending
    _groups[user_id] = (now, min(group))
    return min(group)


def linked_owners_forget() -> None:
    """Read the groups again at the next look (tests)."""
    _groups.clear()
