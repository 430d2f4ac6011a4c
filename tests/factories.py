"""Shared test factories."""

from __future__ import annotations

from collections.abc import Iterable

import games
from bots.models import BotVersion, VersionVariantPass


def passed(versions: BotVersion | Iterable[BotVersion], *variants: str) -> None:
    """Record that ``versions`` passed validation in ``variants`` (every variant if none),
    as a validation would: what a version made ready by hand needs to play."""
    if isinstance(versions, BotVersion):
        versions = [versions]
    VersionVariantPass.objects.bulk_create(
        [
            VersionVariantPass(version=version, variant=variant)
            for version in versions
            for variant in variants or games.variants()
        ],
        ignore_conflicts=True,
    )
