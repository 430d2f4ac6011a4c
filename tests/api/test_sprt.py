"""Version tests through the API: start one, follow it, refusals that name the problem."""

from __future__ import annotations

import pytest

from bots.models import Bot
from tests.tournaments.test_version_tests import version
from tournaments import tasks, version_tests
from tournaments.models import VersionTest

pytestmark = pytest.mark.django_db


@pytest.fixture
def learner(alice) -> Bot:
    bot = Bot.objects.create(owner=alice, name="learner")
    version(bot, 1, "random")
    version(bot, 2, "greedy")
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
    assert as_bob.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").status_code == 403
    assert anon.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").status_code == 401
    test = as_alice.post(f"/api/bots/{learner.pk}/sprt/", body, format="json").json()

    assert as_bob.get(f"/api/bots/{learner.pk}/sprt/").json()["results"] == []
    assert as_bob.get(f"/api/bots/{learner.pk}/sprt/{test['id']}/").status_code == 404
    assert anon.get(f"/api/bots/{2**63}/sprt/").status_code == 404


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"old": 2}, "old", "same version"),
        ({"new": 7}, "new", "has no version 7"),
        ({"variant": "chess"}, "variant", "unknown variant"),
        ({"elo0": 10, "elo1": 5}, "elo1", "elo0 < elo1"),
        ({"beta": 1}, "alpha", "alpha + beta < 1"),
        ({"max_games": 0}, "max_games", "greater than or equal to 1"),
        ({"new": "x"}, "new", "valid integer"),
    ],
)
def test_a_bad_request_is_a_400_naming_the_field(as_alice, learner, sent, change, field, words):
    body = {"new": 2, "old": 1, "variant": "manni-basic", **change}

    response = as_alice.post(f"/api/bots/{learner.pk}/sprt/", body, format="json")

    assert response.status_code == 400
    assert words in " ".join(response.json()[field])
    assert not VersionTest.objects.exists() and sent == []
