"""The "Workers and queue" panel of a competition page is the operators': staff and the
competition's organisers see it, visitors and other users do not (nor its workers)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import logged_in, make_competition, make_user, play_one, snapshot_of
from tournaments.worker import execution

pytestmark = pytest.mark.django_db

PANEL = "Workers and queue"


@pytest.fixture
def busy(organiser):
    """A round robin with a match held by a worker."""
    competition = make_competition(organiser, entries=8, start=True)
    done = play_one(competition)
    running = competition.matches.exclude(pk=done.pk).get()
    execution.match_claim(match_id=running.pk, claimed_by="host-c/99/task-1")
    return competition, running


def test_staff_and_the_organisers_see_the_workers_panel(busy, organiser):
    competition, running = busy
    helper = make_user("helen")
    competition.organisers.add(helper)
    url = f"/dashboard/competitions/{competition.pk}/"

    for user in (organiser, helper, make_user("root", is_staff=True)):
        page = logged_in(user).get(url).content.decode()
        assert PANEL in page and 'id="workers"' in page and 'id="queue-counts"' in page
        assert [w["match"] for w in snapshot_of(page)["queue"]["workers"]] == [running.pk]


def test_visitors_and_plain_users_never_see_it(busy):
    competition, _ = busy
    url = f"/dashboard/competitions/{competition.pk}/"

    for client in (Client(), logged_in(make_user("otto"))):
        page = client.get(url).content.decode()
        assert page.count(PANEL) == 0 and 'id="workers"' not in page and 'id="queue"' not in page
        snapshot = snapshot_of(page)
        assert snapshot["queue"]["workers"] == []  # nor who holds what, in the data
        assert snapshot["queue"]["running"] == 1  # the counts stay: the header reads them
