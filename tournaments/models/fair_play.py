"""Fair play's records: accounts linked as one person, and entries that may not share a
table.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tournaments.models.competitions import Competition, Entry


class OwnerLink(models.Model):
    """Two accounts the staff judge to be one person: their bots never share a table
    (``tournaments.pairing.may_not_share_table``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "other"], name="ownerlink_unique_pair"),
            models.CheckConstraint(
                condition=~models.Q(user=models.F("other")), name="ownerlink_two"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} = {self.other}"


class TableExclusion(models.Model):
    """A pair of entries kept from sharing a table: by an organiser (collusion report),
    or by the collusion watch in a public ladder (``by_watch``, with what it saw in
    ``note``, which the organiser's page shows)."""

    competition = models.ForeignKey(
        Competition, on_delete=models.CASCADE, related_name="table_exclusions"
    )
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    by_watch = models.BooleanField(default=False)
    note = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entry", "other"], name="tableexclusion_unique_pair"),
        ]
