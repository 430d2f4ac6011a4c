"""Claims with a lease, for the matches and version tests: the one rule every kind of
work a worker claims follows lives in ``config.leases`` (under ``bots`` too, whose
validations follow it); its names are here as well."""

from config.leases import (
    WATCH_S,
    ClaimLost,
    Watch,
    claim,
    claimable,
    claimable_sql,
    claimed,
    expire_the_dead,
    expired,
    held,
    held_by,
    lease_until,
    released,
    watch,
)

__all__ = [
    "WATCH_S",
    "ClaimLost",
    "Watch",
    "claim",
    "claimable",
    "claimable_sql",
    "claimed",
    "expire_the_dead",
    "expired",
    "held",
    "held_by",
    "lease_until",
    "released",
    "watch",
]
