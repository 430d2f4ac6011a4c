"""Claims with a lease (``config.leases``): one rule, whether a claim is written with
the ORM or as the matches' raw statement, on the real database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from config import leases
from tests.factories import make_competition
from tournaments import services
from tournaments.models import Match
from tournaments.worker import execution

pytestmark = pytest.mark.django_db

Status = Match.Status


def claimable_by_sql(match: Match, now) -> bool:
    condition, params = leases.claimable_sql(Match, waiting=execution.CLAIMABLE, now=now)
    table = connection.ops.quote_name(Match._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {table} WHERE id = %s AND {condition}", [match.pk, *params])
        return cursor.fetchone() is not None


@pytest.mark.parametrize(
    ("status", "lease_s", "claimable"),
    [
        (Status.PENDING, None, True),
        (Status.QUEUED, 60, True),  # a queued match's lease is its requeue deadline
        (Status.RUNNING, -1, True),  # its worker is gone
        (Status.RUNNING, 60, False),
        (Status.RUNNING, None, False),
        (Status.DONE, -1, False),
        (Status.FAILED, None, False),
    ],
)
def test_the_raw_claim_takes_the_rows_the_rule_says_are_claimable(status, lease_s, claimable):
    comp = make_competition(entries=2, variant="money-jordan", games=2, duplicate=False)
    match = services.competition_start(competition=comp, send=None)[0]
    now = timezone.now()
    lease_until = None if lease_s is None else now + timedelta(seconds=lease_s)
    Match.objects.filter(pk=match.pk).update(status=status, lease_until=lease_until)
    rule = leases.claimable(Match, waiting=execution.CLAIMABLE, now=now)

    assert Match.objects.filter(rule, pk=match.pk).exists() is claimable
    assert claimable_by_sql(match, now) is claimable
    claimed = execution.match_claim(match_id=match.pk, claimed_by="w", lease_s=30)
    assert (claimed is not None) is claimable
    if claimed is not None:
        assert claimed.status == Status.RUNNING
        assert timedelta(seconds=29) < claimed.lease_until - now < timedelta(seconds=31)
