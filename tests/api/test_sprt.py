"""Version tests through the API: start one, follow it, refusals that name the problem."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from bots.models import Bot
from tests.factories import builtin_version
from tournaments.models import VersionTest
from tournaments.worker import tasks
from tournaments.worker import version_test_slices as version_tests

pytestmark = pytest.mark.django_db


@pytest.fixture
def learner(alice) -> Bot:
    bot = Bot.objects.create(owner=alice, name="learner")
    builtin_version(bot, 1, "random")
    builtin_version(bot, 2, "greedy")
    return bot


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    """The version tests whose task was sent (after commit); nothing is sent for real."""
    ids: list[int] = []
    monkeypatch.setattr(
        tasks.version_test_run, "apply_async", lambda args, queue: ids.append(args[0])
    )
    return ids


def test_the_owner_starts_a_test_and_follows_it_to_its_decision(
    as_alice, learner, sent, django_capture_on_commit_callbacks
):
    body = {"new": 2, "old": 1, "variant": "manni-basic", "elo0": 0, "elo1": 50}
    with django_capture_on_commit_callbacks(execute=True):
        response = as_alice.post(f"/api/bots/{learner.pk}/sprt/", body, format="json")

    assert response.status_code == 201, response.content
    started = response.json()
    assert started["status"] == "pending" and started["decision"] == "" and started["trials"] == 0
    assert (started["new"], started["old"], started["upper"]) == (
        2,
        1,
        pytest.approx(2.944, abs=1e-3),
    )
    assert sent == [started["id"]]

    while version_tests.version_test_play(test_id=started["id"], send=None) != "done":
        pass

    done = as_alice.get(f"/api/bots/{learner.pk}/sprt/{started['id']}/").json()
    assert done["status"] == "done" and done["decision"] == "H1"
    assert done["llr"] >= done["upper"] and done["games"] == 3 * done["trials"]
    assert done["score"] > 0.6
    listed = as_alice.get(f"/api/bots/{learner.pk}/sprt/").json()["results"]
    assert [t["id"] for t in listed] == [started["id"]]


def test_others_neither_start_nor_see_a_bots_tests(as_alice, as_bob, anon, learner, sent):
    body = {"new": 2, "old": 1, "variant": "manni-basic"}
    assert as_bob.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").status_code == 404
    assert anon.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").status_code == 401
    test = as_alice.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").json()

    assert as_bob.get(f"/api/bots/{learner.pk}/sprt/{test['id']}/").status_code == 404
    assert anon.get(f"/api/bots/{2**63}/sprt/").status_code == 404


def test_a_private_bots_tests_answer_as_a_missing_bots_do(as_alice, as_bob, anon, learner):
    missing = Bot.objects.order_by("-pk").first().pk + 1000

    for client in (as_bob, anon):
        private = client.get(f"/api/bots/{learner.pk}/sprt/")
        absent = client.get(f"/api/bots/{missing}/sprt/")
        assert (private.status_code, private.json()) == (absent.status_code, absent.json())
        assert private.status_code == 404
    assert as_alice.get(f"/api/bots/{learner.pk}/sprt/").status_code == 200


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"old": 2}, "old", "v2 cannot be tested against itself"),
        ({"new": 7}, "new", "has no version 7"),
        ({"variant": "chess"}, "variant", "unknown variant"),
        ({"elo0": 10, "elo1": 5}, "elo1", "elo0 < elo1"),
        ({"beta": 1}, "beta", "from 0.001 to 0.5"),
        ({"alpha": 1e-300, "beta": 1e-300}, "alpha", "alpha must be from 0.001 to 0.5"),
        ({"elo0": 0, "elo1": 0.01}, "elo1", "at least 1 above elo0"),
        ({"elo0": -1e9}, "elo0", "from -1000 to 1000"),
        ({"max_games": 0}, "max_games", "greater than or equal to 1"),
        ({"max_games": 20_001}, "max_games", "less than or equal to 20000"),
        ({"new": "x"}, "new", "valid integer"),
    ],
)
def test_a_bad_request_is_a_400_naming_the_field(as_alice, learner, sent, change, field, words):
    body = {"new": 2, "old": 1, "variant": "manni-basic", **change}

    response = as_alice.post(f"/api/bots/{learner.pk}/sprt/", body, format="json")

    assert response.status_code == 400
    assert words in " ".join(response.json()[field])
    assert not VersionTest.objects.exists() and sent == []


def test_the_owner_cancels_a_test_and_no_more_of_it_is_played(as_alice, learner, sent):
    body = {"new": 2, "old": 1, "variant": "manni-basic", "elo0": 0, "elo1": 5}
    test = as_alice.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").json()

    cancelled = as_alice.post(f"/api/bots/{learner.pk}/sprt/{test['id']}/cancel/")
    again = as_alice.post(f"/api/bots/{learner.pk}/sprt/{test['id']}/cancel/")

    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert again.status_code == 400 and "already over" in " ".join(again.json()["status"])
    assert version_tests.version_test_play(test_id=test["id"], send=None) == "skipped"
    assert VersionTest.objects.get(pk=test["id"]).trials == 0


def test_a_running_test_stops_after_the_deal_it_plays_when_cancelled(
    as_alice, learner, sent, monkeypatch
):
    body = {"new": 2, "old": 1, "variant": "manni-basic", "elo0": 0, "elo1": 5}
    test = as_alice.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").json()
    real = version_tests.deal_scores

    def cancelled_after_one_deal(*args, **kwargs):
        scores = real(*args, **kwargs)
        yield next(scores)
        as_alice.post(f"/api/bots/{learner.pk}/sprt/{test['id']}/cancel/")
        yield from scores

    monkeypatch.setattr(version_tests, "deal_scores", cancelled_after_one_deal)

    outcome = version_tests.version_test_play(test_id=test["id"], slice_s=3600, send=None)

    stored = VersionTest.objects.get(pk=test["id"])
    assert outcome == "cancelled" and stored.status == "cancelled"
    assert stored.trials == 1 and stored.lease_until is None


def test_others_cannot_cancel_and_staff_can_in_the_admin(as_alice, as_bob, learner, sent, staff):
    body = {"new": 2, "old": 1, "variant": "manni-basic"}
    test = as_alice.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").json()
    assert as_bob.post(f"/api/bots/{learner.pk}/sprt/{test['id']}/cancel/").status_code == 404

    staff.user_permissions.add(Permission.objects.get(codename="change_versiontest"))
    admin = Client()
    admin.force_login(staff)
    answer = admin.post(
        "/admin/tournaments/versiontest/",
        {"action": "cancel_tests", "_selected_action": [test["id"]]},
    )

    assert answer.status_code == 302
    assert VersionTest.objects.get(pk=test["id"]).status == "cancelled"


def test_left_out_the_newest_ready_version_is_tested_against_the_one_before_it(
    as_alice, learner, sent
):
    builtin_version(learner, 3, "greedy")
    builtin_version(learner, 4, "greedy", status="validating")  # not ready: not the newest

    newest = as_alice.post(
        f"/api/bots/{learner.pk}/sprt/", {"variant": "manni-basic"}, format="json"
    )
    before_two = as_alice.post(
        f"/api/bots/{learner.pk}/sprt/", {"new": 2, "variant": "manni-basic"}, format="json"
    )

    assert newest.status_code == 201, newest.content
    assert (newest.json()["new"], newest.json()["old"]) == (3, 2)
    assert (before_two.json()["new"], before_two.json()["old"]) == (2, 1)


def test_a_version_with_nothing_older_to_meet_is_refused_saying_so(as_alice, alice, sent):
    alone = Bot.objects.create(owner=alice, name="alone")
    builtin_version(alone, 1, "random")

    response = as_alice.post(
        f"/api/bots/{alone.pk}/sprt/", {"variant": "manni-basic"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["old"] == [
        "alice/alone has no ready version older than v1 to test it against: a version "
        "test needs two ready versions"
    ]
    assert not VersionTest.objects.exists()
