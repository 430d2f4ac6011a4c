"""Reads on bots: a user's bots, the version that plays, a version's report."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Exists, Max, OuterRef, Prefetch, Q, QuerySet
from django.db.models.fields.json import KeyTransform

from bots import similarity
from bots.models import Bot, BotVersion, VersionVariantPass


def bots_for_user(*, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Bot]:
    """The bots ``user`` owns, by name, each annotated with ``latest_number`` (its newest
    version's number, or None) and ``ready_count`` (how many versions are ready).

    Nothing for an anonymous user.
    """
    if not user.is_authenticated:
        return Bot.objects.none()
    return (
        Bot.objects.filter(owner=user)
        .annotate(
            latest_number=Max("versions__number"),
            ready_count=Count("versions", filter=Q(versions__status=BotVersion.Status.READY)),
        )
        .order_by("name", "id")
    )


def passed_variant(variant: str) -> Q:
    """A filter of versions: those that play ``variant``, the built-in ones and those
    that passed its validation (a ``VersionVariantPass``)."""
    passes = VersionVariantPass.objects.filter(version_id=OuterRef("pk"), variant=variant)
    return Q(runtime=BotVersion.Runtime.BUILTIN) | Q(Exists(passes))


def version_passed(*, version: BotVersion, variant: str) -> bool:
    """Whether ``version`` may play ``variant``: built-in, or it passed its validation."""
    if version.runtime == BotVersion.Runtime.BUILTIN:
        return True
    return version.passes.filter(variant=variant).exists()


def version_will_play(*, version: BotVersion, variant: str) -> bool:
    """Whether ``version`` passed ``variant``, or is still to be validated in it (pending
    or validating, and it declares that variant or every one)."""
    if version_passed(version=version, variant=variant):
        return True
    waiting = (BotVersion.Status.PENDING, BotVersion.Status.VALIDATING)
    return version.status in waiting and (not version.variants or variant in version.variants)


def bot_will_play(*, bot: Bot, variant: str) -> bool:
    """Whether ``bot`` plays ``variant`` or will once validated: a built-in, or one of
    its versions that is not rejected passed it or is still to be validated in it."""
    if bot.builtin:
        return True
    versions = bot.versions.exclude(status=BotVersion.Status.REJECTED)
    return any(version_will_play(version=v, variant=variant) for v in versions)


def bots_playing(bots: QuerySet[Bot], variant: str) -> QuerySet[Bot]:
    """Those of ``bots`` that play ``variant`` or will once validated (:func:`bot_will_play`):
    what an entry form offers for a competition of that variant."""
    ids = [
        bot.pk
        for bot in bots.prefetch_related("versions")
        if bot_will_play(bot=bot, variant=variant)
    ]
    return bots.filter(pk__in=ids)


def version_for_play(
    *, bot: Bot, pinned: BotVersion | int | None = None, variant: str | None = None
) -> BotVersion | None:
    """The version of ``bot`` to play: its newest ready one, or the ``pinned`` one
    (a version or its number; None: the one its owner pinned, ``Bot.pinned_version``) if
    that is ready; None when there is nothing ready to play. With ``variant``, only a
    version that passed that variant's validation.

    Raises ``ValueError`` when ``pinned`` is a version of another bot.
    """
    ready = BotVersion.objects.filter(bot=bot, status=BotVersion.Status.READY)
    if variant is not None:
        ready = ready.filter(passed_variant(variant))
    if pinned is None and bot.pinned_version_id is not None:
        return ready.filter(pk=bot.pinned_version_id).first()
    if pinned is None:
        return ready.order_by("-number").first()
    if isinstance(pinned, BotVersion):
        if pinned.bot_id != bot.pk:
            raise ValueError(f"pinned version {pinned} is not a version of {bot}")
        pinned = pinned.number
    return ready.filter(number=pinned).first()


#: What :func:`play_outlook` finds: a version plays now, one waits for its validation,
#: or no version of the bot can play the variant.
PLAYS, WAITS, CANNOT_PLAY = "plays", "waits", "cannot-play"


@dataclass(frozen=True)
class PlayOutlook:
    """Whether a bot plays a variant, and with which version (:func:`play_outlook`).

    ``state`` is :data:`PLAYS` (``version`` plays now; None for a built-in bot),
    :data:`WAITS` (``version`` is being validated in the variant and plays once it
    passes) or :data:`CANNOT_PLAY` (no version can: ``words`` says why and what to do).
    ``words`` is a sentence for a person, without its capital or full stop."""

    state: str
    version: BotVersion | None
    words: str


def _playable(version: BotVersion, variant: str) -> bool:
    """Ready, and built in or passed ``variant`` (reads prefetched passes)."""
    if version.status != BotVersion.Status.READY:
        return False
    builtin = version.runtime == BotVersion.Runtime.BUILTIN
    return builtin or any(p.variant == variant for p in version.passes.all())


def _validating_in(version: BotVersion, variant: str) -> bool:
    """Whether ``version`` is on its way to play ``variant``: waiting for or in its first
    validation and declaring it (or every variant), or ready and queued to be validated
    in it as well."""
    waiting = (BotVersion.Status.PENDING, BotVersion.Status.VALIDATING)
    if version.status in waiting:
        return not version.variants or variant in version.variants
    if version.status != BotVersion.Status.READY:
        return False
    if hasattr(version, "queue_entry"):  # read alone (outlook_prefetch)
        queued = version.queue_entry
    else:
        queued = (version.validation_report or {}).get("queue")
    return isinstance(queued, dict) and variant in (queued.get("variants") or ())


def outlook_prefetch(path: str) -> Prefetch:
    """Prefetch the versions of the bots at ``path`` (such as ``"bot"`` of an entry) as
    :func:`play_outlook` reads them: with their passes and the queue entry of their report,
    without the report itself (it keeps stderr tails) or the source sketch."""
    versions = (
        BotVersion.objects.defer("validation_report", "source_sketch")
        .annotate(queue_entry=KeyTransform("queue", "validation_report"))
        .prefetch_related("passes")
    )
    return Prefetch(f"{path}__versions", queryset=versions)


def _why_not(version: BotVersion, variant: str) -> str:
    """Why ``version`` cannot play ``variant``, in words."""
    if version.status == BotVersion.Status.REJECTED:
        return f"v{version.number} failed its validation (rejected)"
    if version.status == BotVersion.Status.READY:
        return f"v{version.number} has not passed validation in {variant}"
    return f"v{version.number} does not declare {variant}"


def play_outlook(*, bot: Bot, variant: str, pinned: BotVersion | None = None) -> PlayOutlook:
    """Whether ``bot`` plays ``variant`` now, will once a validation passes, or cannot.

    The version that plays is the one :func:`version_for_play` picks (``pinned``, an
    entry's own pin, first; then the owner's pin, ``Bot.pinned_version``; else the newest
    ready version that passed ``variant``). Reads ``bot.versions`` with their passes
    (:func:`outlook_prefetch` reads them for many bots at once). ``words`` start with a verb
    ("plays v3 (pinned by its owner)", "waits for the validation of v1 in ..."), except
    for :data:`CANNOT_PLAY`, where they are the reason alone."""
    if bot.builtin:
        return PlayOutlook(PLAYS, None, f"plays as the built-in {bot.builtin}")
    versions = sorted(bot.versions.all(), key=lambda v: -v.number)
    owner_pin = next((v for v in versions if v.pk == bot.pinned_version_id), None)
    chosen = pinned or owner_pin
    if chosen is not None:
        whose = "pinned for this entry" if pinned is not None else "pinned by its owner"
        candidates = [chosen]
    else:
        whose = f"its newest ready version that passed {variant}"
        candidates = versions
    playing = next((v for v in candidates if _playable(v, variant)), None)
    if playing is not None:
        return PlayOutlook(PLAYS, playing, f"plays v{playing.number} ({whose})")
    waiting = next((v for v in candidates if _validating_in(v, variant)), None)
    if waiting is not None:
        n = waiting.number
        return PlayOutlook(
            WAITS,
            waiting,
            f"waits for the validation of v{n} in {variant}: it starts playing once v{n} passes",
        )
    return PlayOutlook(CANNOT_PLAY, None, _cannot_play_words(bot, variant, versions, pinned))


def _cannot_play_words(
    bot: Bot, variant: str, versions: list[BotVersion], pinned: BotVersion | None
) -> str:
    if pinned is not None:
        return f"v{pinned.number} is pinned for this entry, and {_why_not(pinned, variant)}"
    owner_pin = next((v for v in versions if v.pk == bot.pinned_version_id), None)
    if owner_pin is not None:
        return (
            f"its owner pinned v{owner_pin.number}, and {_why_not(owner_pin, variant)}: "
            "pin another version, or none"
        )
    if not versions:
        return "it has no version: upload one"
    rejected = [v for v in versions if v.status == BotVersion.Status.REJECTED]
    if len(rejected) == len(versions):
        named = ", ".join(f"v{v.number}" for v in reversed(rejected))
        return (
            f"its versions failed their validation ({named} rejected; a rejected version "
            "plays no variant): upload one that passes"
        )
    return (
        f"no version of it passed validation in {variant}: declare {variant} and upload "
        f"a version, or ask for one to be validated in {variant}"
    )


def variants_playable(*, version: BotVersion) -> list[str]:
    """The variants ``version`` plays: those it passed once it is ready, none before, and
    none once rejected (whatever it passed before another variant failed)."""
    if version.status != BotVersion.Status.READY:
        return []
    return variants_passed(version=version)


def bot_version_report(*, version: BotVersion) -> dict[str, Any]:
    """What is known of a version, read afresh: identity, status and its validation report.

    ``upload`` summarizes the upload's checks; ``validation`` is what the
    validation match found (None until it has run).
    """
    version = BotVersion.objects.select_related("bot").get(pk=version.pk)
    report = dict(version.validation_report or {})
    upload = report.pop("upload", None)
    return {
        "bot": str(version.bot),
        "bot_id": version.bot_id,
        "number": version.number,
        "status": version.status,
        "runtime": version.runtime,
        "entry_point": version.entry_point,
        "size": version.size,
        "sha256": version.sha256,
        "created_at": version.created_at.isoformat(),
        "upload": upload,
        "validation": report or None,
        "variants": list(version.variants),
        "passed": variants_passed(version=version),
        "plays": variants_playable(version=version),
    }


def variants_passed(*, version: BotVersion) -> list[str]:
    """The variants ``version`` may play, in id order (every one for a built-in)."""
    if version.runtime == BotVersion.Runtime.BUILTIN:
        import games

        return list(games.variants())
    return sorted(p.variant for p in version.passes.all())


def uploads_shared_across_accounts() -> QuerySet[BotVersion]:
    """Uploads whose bytes (SHA-256) another account also uploaded: staff look at them
    for one person behind several accounts (docs/fair-play.md). Built-ins are left out."""
    other = BotVersion.objects.filter(sha256=OuterRef("sha256"), bot__owner__isnull=False).exclude(
        bot__owner=OuterRef("bot__owner")
    )
    return BotVersion.objects.filter(Exists(other), bot__owner__isnull=False)


def near_identical_uploads(
    *, threshold: float = similarity.NEAR_IDENTICAL
) -> list[tuple[BotVersion, BotVersion, float]]:
    """Pairs of uploads of different accounts whose contents are near-identical
    (``bots.similarity``: estimated Jaccard of the token shingles of every text file of
    the upload, or of the entry point alone for older uploads, >= ``threshold``), most
    alike first. Candidates are the pairs that share many sketch hashes (an inverted
    index), so the cost follows the look-alikes, not the square of the uploads."""
    versions = {
        v.pk: v
        for v in BotVersion.objects.filter(bot__owner__isnull=False)
        .exclude(source_sketch=[])
        .select_related("bot__owner")
    }
    holders: dict[int, list[int]] = {}
    for pk, version in versions.items():
        for h in version.source_sketch:
            holders.setdefault(h, []).append(pk)
    shared: Counter[tuple[int, int]] = Counter()
    for pks in holders.values():
        if len(pks) <= 200:  # a hash in everyone's sketch (boilerplate) proves nothing
            for a, b in itertools.combinations(sorted(pks), 2):
                shared[(a, b)] += 1
    out = []
    need = threshold * similarity.SKETCH / 2
    for (a, b), count in shared.items():
        va, vb = versions[a], versions[b]
        if count < need or va.bot.owner_id == vb.bot.owner_id:
            continue
        score = similarity.similarity(va.source_sketch, vb.source_sketch)
        if score >= threshold:
            out.append((va, vb, score))
    return sorted(out, key=lambda row: (-row[2], row[0].pk, row[1].pk))
