"""Worker processes (host and pid of a lease) are named to staff only: the live socket's
snapshot and ``queue.status``, the dashboard page and the API show others a label (and
the operators' panel, with its labels, is for a competition's organisers and staff)."""

from __future__ import annotations

import json

import pytest
import pytest_asyncio
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connections
from django.test import Client
from rest_framework.test import APIClient

from config.asgi import application
from tests.dashboard.conftest import IN_MEMORY_LAYER, session_cookie
from tests.factories import make_competition
from tournaments.live import events
from tournaments.models import Match
from tournaments.worker import execution

pytestmark = [pytest.mark.django_db(transaction=True)]

CLAIM = "host-secret-7/31337/task-1"
PROCESS = "host-secret-7/31337"


@pytest.fixture(autouse=True)
def _one_process(settings):
    settings.CHANNEL_LAYERS = IN_MEMORY_LAYER


@pytest_asyncio.fixture(autouse=True)
async def _close_worker_connections():
    yield
    await database_sync_to_async(connections.close_all)()


@pytest.fixture
def organiser(django_user_model):
    return django_user_model.objects.create_user("olga", password="pw-123456")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("stan", password="pw-123456", is_staff=True)


def claimed_competition(organiser):
    """A public competition with one match held by a worker process."""
    competition = make_competition(organiser, start=True, entries=3)
    match = competition.matches.first()
    execution.match_claim(match_id=match.pk, claimed_by=CLAIM)
    return competition, match


async def open_socket(competition_id: int, user=None) -> WebsocketCommunicator:
    def build():
        headers = [(b"origin", b"http://localhost")]
        if user is not None:
            cookie = f"{settings.SESSION_COOKIE_NAME}={session_cookie(user)}"
            headers.append((b"cookie", cookie.encode()))
        return WebsocketCommunicator(application, f"/ws/competitions/{competition_id}/", headers)

    comm = await database_sync_to_async(build)()
    connected, _ = await comm.connect()
    assert connected
    return comm


async def next_queue_status(comm: WebsocketCommunicator) -> tuple[dict, str]:
    """The next ``queue.status`` event and the raw text of its frame."""
    while True:
        output = await comm.receive_output(timeout=3)
        text = output["text"]
        frame = json.loads(text)
        for item in frame if isinstance(frame, list) else [frame]:
            if item["type"] == "queue.status":
                return item, text


@pytest.mark.asyncio
async def test_an_anonymous_socket_sees_labels_and_a_staff_socket_sees_processes(organiser, staff):
    competition = await database_sync_to_async(make_competition)(organiser, start=True, entries=3)
    match = await database_sync_to_async(competition.matches.first)()
    anonymous = await open_socket(competition.pk)
    by_staff = await open_socket(competition.pk, staff)
    await anonymous.receive_output(timeout=3)  # the snapshots, before the claim
    await by_staff.receive_output(timeout=3)

    await database_sync_to_async(execution.match_claim)(match_id=match.pk, claimed_by=CLAIM)
    status, text = await next_queue_status(anonymous)
    staff_status, _ = await next_queue_status(by_staff)

    assert "host-secret-7" not in text and "31337" not in text
    assert staff_status["queue"]["workers"][0]["worker"] == PROCESS
    assert status["queue"]["workers"] == [
        {**staff_status["queue"]["workers"][0], "worker": events.worker_label(PROCESS)}
    ]
    assert status["queue"]["workers"][0]["match"] == match.pk

    late_anonymous = await open_socket(competition.pk)
    late_organiser = await open_socket(competition.pk, organiser)
    late_staff = await open_socket(competition.pk, staff)
    public = await late_anonymous.receive_output(timeout=3)
    labelled = await late_organiser.receive_output(timeout=3)
    named = await late_staff.receive_output(timeout=3)

    # A visitor's snapshot has no operators' panel; its organiser's names labels.
    assert "host-secret-7" not in public["text"] and "31337" not in public["text"]
    assert json.loads(public["text"])["queue"]["workers"] == []
    assert "host-secret-7" not in labelled["text"]
    assert f'"worker":"{events.worker_label(PROCESS)}"' in labelled["text"]
    assert f'"worker":"{PROCESS}"' in named["text"]
    for comm in (anonymous, by_staff, late_anonymous, late_organiser, late_staff):
        await comm.disconnect()


def test_the_label_is_stable_opaque_and_per_process():
    label = events.worker_label(PROCESS)

    assert label == events.worker_label(PROCESS) and label.startswith("worker-")
    assert "31337" not in label and label != events.worker_label("host-secret-7/31338")


def test_the_dashboard_page_names_processes_to_staff_only(organiser, staff):
    competition, _ = claimed_competition(organiser)
    url = f"/dashboard/competitions/{competition.pk}/"
    as_staff = Client()
    as_staff.force_login(staff)
    as_organiser = Client()
    as_organiser.force_login(organiser)

    anonymous_page = Client().get(url).content.decode()
    organiser_page = as_organiser.get(url).content.decode()
    staff_page = as_staff.get(url).content.decode()

    assert "host-secret-7" not in anonymous_page and "31337" not in anonymous_page
    assert events.worker_label(PROCESS) not in anonymous_page  # no operators' panel
    assert "host-secret-7" not in organiser_page  # organisers are not staff
    assert events.worker_label(PROCESS) in organiser_page
    assert PROCESS in staff_page


def test_the_api_names_no_worker_process(organiser):
    competition, match = claimed_competition(organiser)
    assert Match.objects.get(pk=match.pk).claimed_by == CLAIM
    client = APIClient()

    bodies = [
        client.get(f"/api/matches/?competition={competition.pk}").content,
        client.get(f"/api/matches/{match.pk}/").content,
        client.get(f"/api/competitions/{competition.pk}/").content,
        client.get(f"/api/competitions/{competition.pk}/progress/").content,
    ]

    assert all(b"host-secret-7" not in body and b"31337" not in body for body in bodies)
