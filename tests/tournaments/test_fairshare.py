"""Worker seconds shared by owner and by competition (``config.fairshare``): a tenant whose
work held the slots lately gives its turn to others' waiting work, and plays again when
nobody else's waits."""

from __future__ import annotations

import os
import signal
import time
import uuid

import pytest

from config import fairshare, slots
from tests.factories import enter_builtins, make_competition
from tests.workers import SERVICES, Worker, assert_recorded_exactly_once, finished, wait_for
from tournaments import services
from tournaments.worker import execution

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
]


@pytest.fixture(autouse=True)
def ledger():
    fairshare.reset()
    yield
    fairshare.reset()


def test_a_tenant_far_above_the_others_of_its_kind_is_over_its_share():
    now = time.time()
    fairshare.charge(["competition:1", "owner:7"], 400.0, now=now)
    fairshare.charge(["competition:2", "owner:8"], 5.0, now=now)
    fairshare.charge(["competition:3"], 8.0, now=now)
    assert fairshare.heavy(now=now, fresh=True) == {"competition:1", "owner:7"}
    assert fairshare.over_share(["competition:1", "owner:9"], now=now) == "competition:1"
    assert fairshare.over_share(["competition:2", "owner:8"], now=now) is None
    # Nobody else's work waits: play now, whatever was used.
    assert fairshare.should_yield(["competition:1"], yields=0, others_wait=False) is None
    assert fairshare.should_yield(["competition:1"], yields=0, others_wait=True, now=now)
    # Ageing: after MAX_YIELDS turns given, it plays regardless.
    assert (
        fairshare.should_yield(
            ["competition:1"], yields=fairshare.MAX_YIELDS, others_wait=True, now=now
        )
        is None
    )


def test_a_heavy_tenant_gives_its_turn_to_lighter_waiting_work_only():
    now = time.time()
    fairshare.charge(["competition:1"], 400.0, now=now)  # the organiser's round robin
    fairshare.charge(["competition:2"], 900.0, now=now)  # a flood's ladder
    fairshare.charge(["competition:3"], 5.0, now=now)
    fairshare.charge(["competition:4"], 5.0, now=now)
    fairshare.heavy(now=now, fresh=True)

    def gives(waiting):
        return fairshare.should_yield(
            ["competition:1"], yields=0, others_wait=True, waiting=waiting, now=now
        )

    # Behind it waits only the flood, which used more: it plays.
    assert gives({"competition:2", "owner:"}) is None
    # A competition that used little waits: it gives its turn.
    assert gives({"competition:2", "competition:3"}) == "competition:1"
    # A competition new to the ledger used nothing: lighter.
    assert gives({"competition:99"}) == "competition:1"
    # Its own waiting matches are not another's.
    assert gives({"competition:1"}) is None


def test_a_match_counts_the_turns_it_gave_whichever_message_brought_it():
    unit = f"match:{uuid.uuid4().hex[:6]}"
    assert fairshare.turns_given(unit) == 0 and not fairshare.turn_on_its_way(unit)
    assert fairshare.turn_given(unit) == 1
    # Its message sent for later is on its way: a list that brings it leaves it to that.
    assert fairshare.turn_on_its_way(unit)
    assert fairshare.turn_given(unit) == 2 and fairshare.turns_given(unit) == 2


def test_usage_halves_in_its_half_life_and_a_tenant_alone_is_never_over():
    half = fairshare.HALF_LIFE_S
    start = time.time() - half
    fairshare.charge(["competition:1"], 400.0, now=start)
    fairshare.charge(["competition:1"], 0.0001, now=start + half - 1)  # still active
    used = fairshare.usages(now=start + half)
    assert used["competition:1"] == pytest.approx(200.0, rel=0.01)
    # Alone of its kind: nobody else's share to keep.
    assert fairshare.heavy(now=start + half, fresh=True) == frozenset()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_competition_that_held_the_slot_gives_its_turn_to_another_organisers(tmp_path):
    hog = make_competition(entries=0, games=2, variant="money-jordan", duplicate=False)
    enter_builtins(hog, 2, "ismcts", prefix="hog-")
    club = make_competition(entries=0, games=1, variant="money-jordan", duplicate=False)
    enter_builtins(club, 4, "random", prefix="club-")
    # The recent past: the hog's matches held the fleet ten minutes, others a few seconds.
    fairshare.charge([fairshare.competition(hog.pk)], 600.0)
    fairshare.charge([fairshare.competition(club.pk)], 1.0)
    fairshare.charge(["competition:999999"], 2.0)

    tag = uuid.uuid4().hex[:8]
    queues = (f"test-fs-{tag}",)
    worker = Worker(
        tmp_path,
        os.environ["REDIS_URL"],
        queues,
        CARDROOM_TASK_LOG_LEVEL="INFO",
        CARDROOM_MATCH_LEASE_S="1800",
    )
    services.competition_start(competition=hog, send=worker.send)  # the hog's first
    services.competition_start(competition=club, send=worker.send)
    worker.start(concurrency=1)
    try:
        wait_for(lambda: finished(club), 120, "the club's competition")
        wait_for(lambda: finished(hog), 240, "the hog's competition, once nobody waits")
    finally:
        worker.kill(signal.SIGKILL)
    club_last = max(club.matches.values_list("finished_at", flat=True))
    hog_first = min(hog.matches.values_list("finished_at", flat=True))
    assert club_last < hog_first, "the hog's matches were played before the club's"
    assert "gives its turn" in worker.log.read_text()
    assert_recorded_exactly_once(club)
    assert_recorded_exactly_once(hog)


@pytest.mark.django_db
def test_a_match_is_charged_to_its_competition_and_its_bots_owners(django_user_model):
    from bots.models import Bot
    from tests.factories import builtin_version

    comp = make_competition(entries=0, games=1, variant="money-jordan", duplicate=False)
    ada = django_user_model.objects.create_user("ada", password="pw-123456789")
    mine = Bot.objects.create(owner=ada, name="mine", builtin="random")
    builtin_version(mine, 1, "random")
    services.entry_create(competition=comp, bot=mine)
    enter_builtins(comp, 1, "random")
    services.competition_start(competition=comp, send=None)
    match = comp.matches.get()
    assert sorted(filter(None, execution.tenants_of([match.pk])[match.pk])) == sorted(
        [f"competition:{comp.pk}", f"owner:{ada.pk}"]
    )
    execution.match_execute(match_id=match.pk, claimed_by="test", send=None)
    used = fairshare.usages()
    assert used[f"competition:{comp.pk}"] > 0 and used[f"owner:{ada.pk}"] > 0


def test_an_owner_holding_a_users_slot_while_another_owner_waits_may_not_take_a_second():
    from config import liveness

    holder = f"elsewhere-{uuid.uuid4().hex[:6]}/1"
    liveness.beat(holder)  # another live worker process plays for owner:1
    import redis as redis_lib
    from django.conf import settings

    client = redis_lib.Redis.from_url(settings.REDIS_URL)
    key = settings.CARDROOM_QUEUE_PREFIX + slots.SLOTS_KEY
    client.hset(key, holder, "owner:1")
    try:
        assert not fairshare.take_slot("owner:1", most=fairshare.owner_slots())
        assert fairshare.take_slot("owner:1", most=None)  # nobody else waits: no most
        fairshare.release_slot()
        assert fairshare.take_slot("owner:2", most=fairshare.owner_slots())
        fairshare.release_slot()
        liveness.stop_beating(holder)  # that process died: its slot is dropped
        assert fairshare.take_slot("owner:1", most=fairshare.owner_slots())
        fairshare.release_slot()
        assert client.hget(key, holder) is None
    finally:
        client.delete(key)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_one_owners_challenges_leave_a_users_slot_to_anothers_quick_game(tmp_path, settings):
    from django.contrib.auth import get_user_model

    from bots.models import Bot
    from tests.factories import builtin_version
    from tournaments.services import challenges

    def author(name: str) -> tuple:
        user = get_user_model().objects.create_user(name, password="pw-123456789")
        bot = Bot.objects.create(owner=user, name=f"{name}-bot", builtin="ismcts")
        builtin_version(bot, 1, "ismcts")
        return user, bot

    tag = uuid.uuid4().hex[:8]
    queue = f"test-users-{tag}"
    settings.CARDROOM_CHALLENGE_QUEUE = queue
    settings.CARDROOM_TASK_GAMES = 1  # one message a match, as long matches have
    (ada, slow), (bob, quick) = author("ada"), author("bob")
    Bot.objects.filter(pk=quick.pk).update(builtin="random")
    quick.versions.update(entry_point="builtin:random")
    # Ada's two long challenges first (one match each), then Bob's quick game.
    asked = [
        challenges.challenge_create(
            bot=slow, by=ada, opponents=["builtin:ismcts"], variant="money-jordan", games=4
        )
        for _ in range(2)
    ]
    game = challenges.challenge_create(
        bot=quick, by=bob, opponents=["builtin:random"], variant="money-jordan", games=1
    )
    worker = Worker(
        tmp_path,
        os.environ["REDIS_URL"],
        (queue,),
        CARDROOM_CHALLENGE_QUEUE=queue,
        CARDROOM_TASK_GAMES="1",
        CARDROOM_TASK_LOG_LEVEL="INFO",
        CARDROOM_MATCH_LEASE_S="1800",  # matches of several seconds keep their claim
    )
    worker.start(concurrency=2)  # the users' lane: two slots
    try:
        wait_for(
            lambda: game.competition.matches.filter(status="done").exists(), 120, "the quick game"
        )
        quick_done = game.competition.matches.get().finished_at
        wait_for(
            lambda: all(c.competition.matches.filter(status="done").count() == 1 for c in asked),
            300,
            "Ada's challenges",
        )
    finally:
        worker.kill(signal.SIGKILL)
    slow_done = [c.competition.matches.get().finished_at for c in asked]
    # Ada held one slot; her second challenge gave its turn to Bob's game, which did not
    # wait for either of hers to end.
    assert quick_done < min(slow_done), (quick_done, slow_done)
    assert "holds a slot" in worker.log.read_text()


def test_a_match_whose_owner_is_at_a_table_of_another_slot_may_not_take_one_of_the_lane():
    from config import liveness

    holder = f"elsewhere-{uuid.uuid4().hex[:6]}/1"
    liveness.beat(holder)  # another live process plays a table of owners 1 and 3
    import redis as redis_lib
    from django.conf import settings

    client = redis_lib.Redis.from_url(settings.REDIS_URL)
    lane = fairshare.COMPETITIONS_LANE
    key = settings.CARDROOM_QUEUE_PREFIX + slots._SLOTS_KEYS[lane]
    client.hset(key, holder, "owner:1 owner:3")
    try:
        most = fairshare.owner_slots(lane)
        assert not fairshare.take_slot(["owner:5", "owner:3"], most=most, lane=lane)
        assert fairshare.take_slot(["owner:5", None, "owner:6"], most=most, lane=lane)
        assert client.hget(key, liveness.process_name()) == b"owner:5 owner:6"
        fairshare.release_slot()
        assert client.hget(key, liveness.process_name()) is None
        # The users' lane counts its own slots: owner 3 holds none there.
        assert fairshare.take_slot("owner:3", most=fairshare.owner_slots())
        fairshare.release_slot()
    finally:
        liveness.stop_beating(holder)
        client.delete(key)


def test_a_match_that_started_while_nothing_waited_still_holds_its_owners_slot(monkeypatch):
    """A unit that started uncapped (nothing else waited, so no check took its slot)
    counts its slot all the same: the next match of the same owner, started once another
    organiser's round waits, finds it and gives its turn, until the first one ends."""
    from config import liveness

    lane = fairshare.COMPETITIONS_LANE
    here = liveness.process_name()
    liveness.beat(here)

    def elsewhere() -> str | None:
        """The check of another worker process (this one's slot state kept aside)."""
        held = slots._slot_held
        monkeypatch.setattr(liveness, "process_name", lambda: "elsewhere/2")
        try:
            return fairshare.competition_unit_gives_turn(
                ["competition:3", "owner:7"], yields=0, others_wait=True
            )
        finally:
            fairshare.release_slot()
            monkeypatch.setattr(liveness, "process_name", lambda: here)
            slots._slot_held = held

    try:
        fairshare.begin(["competition:1", "owner:7", None], lane=lane)
        # A moment later another organiser's round waits: owner 7's next match waits too.
        assert elsewhere() == "owner:7 holds a slot"
        fairshare.end()  # the first match ended: its slot is free again
        assert elsewhere() is None
    finally:
        liveness.stop_beating(here)


def test_the_users_lanes_last_free_slot_is_kept_for_a_light_owner():
    """Two heavy owners (each used minutes of slots lately) and a newcomer: with two
    slots in the lane, one heavy owner's unit holding one, the other heavy owner's waits
    and the newcomer's upload takes the last; a third slot lets both heavy owners play."""
    import redis as redis_lib
    from django.conf import settings

    from config import liveness

    client = redis_lib.Redis.from_url(settings.REDIS_URL)
    prefix = settings.CARDROOM_QUEUE_PREFIX
    slots_key = prefix + slots.SLOTS_KEY
    members = prefix + slots.MEMBERS_PREFIX + slots.USERS_LANE
    here, other, third = liveness.process_name(), f"m-{uuid.uuid4().hex[:6]}/1", "m-third/3"
    for process in (here, other):
        liveness.beat(process)
    fairshare.charge(["owner:1", "owner:2"], 200.0)  # both heavy: over LIGHT_S lately
    fairshare.charge(["owner:3"], 5.0)  # an upload or two: light
    client.delete(slots_key, members)  # no slot nor member of another test's workers
    try:
        slots.join_lane(slots.USERS_LANE)  # this process, and another: two slots
        client.hset(members, other, "1")
        client.hset(slots_key, other, "owner:1")  # owner 1's long unit holds one of them

        assert not fairshare.take_slot("owner:2", most=1, reserve=True)
        why = fairshare.users_unit_gives_turn("owner:2", ["owner:2"], yields=0, others_wait=True)
        assert why == "owner:2 is heavy: the last free slot is kept for a light owner", why
        assert fairshare.take_slot("owner:3", most=1, reserve=True)  # the newcomer's upload
        assert slots.refused() == ""
        fairshare.release_slot()
        client.hset(slots_key, other, "owner:3")  # the newcomer's unit holds the other
        why = fairshare.users_unit_gives_turn("owner:3", ["owner:3"], yields=0, others_wait=True)
        assert why == "owner:3 holds a slot", why
        client.hset(slots_key, other, "owner:1")
        fairshare.release_slot()
        # Without the reserve (a unit past its ageing), or with a third slot, it plays.
        assert fairshare.take_slot("owner:2", most=1, reserve=False)
        fairshare.release_slot()
        liveness.beat(third)
        client.hset(members, third, "1")
        assert fairshare.take_slot("owner:2", most=1, reserve=True)
        fairshare.release_slot()
        # A member that stopped beating is no slot any more: two again.
        liveness.stop_beating(third)
        assert not fairshare.take_slot("owner:2", most=1, reserve=True)
        assert client.hget(members, third) is None
        # A lane of one slot keeps none back.
        liveness.stop_beating(other)
        assert fairshare.take_slot("owner:2", most=1, reserve=True)
        fairshare.release_slot()
    finally:
        for process in (here, other, third):
            liveness.stop_beating(process)
        client.delete(slots_key, members)


@pytest.mark.django_db
def test_two_linked_accounts_are_one_owner_of_worker_seconds(django_user_model):
    from bots.models import AccountLink, Bot
    from tests.factories import builtin_version
    from tournaments.worker import tenants

    tenants.forget()
    comp = make_competition(entries=0, games=1, variant="money-jordan", duplicate=False)
    ada, ada2, bob = (
        django_user_model.objects.create_user(name, password="pw-123456789")
        for name in ("ada", "ada2", "bob")
    )
    AccountLink.objects.create(
        user=ada, other=ada2, reason=AccountLink.Reason.SIMILAR_UPLOADS, evidence="test"
    )
    for user in (ada, ada2, bob):
        bot = Bot.objects.create(owner=user, name=f"{user.username}-bot", builtin="random")
        builtin_version(bot, 1, "random")
        services.entry_create(competition=comp, bot=bot)
    assert tenants.owner_tenants([ada2.pk, bob.pk, None]) == [
        f"owner:{ada.pk}", f"owner:{bob.pk}", None
    ]  # fmt: skip
    # A dismissed link keeps nothing together (once the process reads the groups again).
    AccountLink.objects.update(dismissed=True)
    tenants.forget()
    assert tenants.owner_tenants([ada2.pk]) == [f"owner:{ada2.pk}"]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_one_owners_long_matches_leave_a_competitions_slot_to_another_organisers_round(
    tmp_path,
):
    from django.contrib.auth import get_user_model

    from bots.models import Bot
    from tests.factories import builtin_version

    ada = get_user_model().objects.create_user("ada", password="pw-123456789")
    # Ada's bot plays two long matches in two ladders' worth of competitions.
    slow = []
    for i in range(2):
        comp = make_competition(entries=0, games=4, variant="money-jordan", duplicate=False)
        bot = Bot.objects.create(owner=ada, name=f"ada-{i}", builtin="ismcts")
        builtin_version(bot, 1, "ismcts")
        services.entry_create(competition=comp, bot=bot)
        enter_builtins(comp, 1, "ismcts", prefix=f"house-{i}-")
        slow.append(comp)
    club = make_competition(entries=0, games=1, variant="money-jordan", duplicate=False)
    enter_builtins(club, 2, "random", prefix="club-")
    tag = uuid.uuid4().hex[:8]
    queues = (f"test-fs-{tag}",)
    worker = Worker(
        tmp_path,
        os.environ["REDIS_URL"],
        queues,
        CARDROOM_TASK_GAMES="1",
        CARDROOM_TASK_LOG_LEVEL="INFO",
        CARDROOM_MATCH_LEASE_S="1800",
    )
    for comp in [*slow, club]:  # Ada's two first, then the club's
        services.competition_start(competition=comp, send=worker.send)
    worker.start(concurrency=2)  # the competitions' lane: two slots
    try:
        wait_for(lambda: finished(club), 120, "the club's competition")
        club_done = club.matches.get().finished_at
        wait_for(lambda: all(finished(c) for c in slow), 300, "Ada's matches")
    finally:
        worker.kill(signal.SIGKILL)
    slow_done = [c.matches.get().finished_at for c in slow]
    # Ada's bots held one slot; her second match gave its turn to the club's, which did
    # not wait for either of hers to end.
    assert club_done < min(slow_done), (club_done, slow_done)
    assert "holds a slot" in worker.log.read_text()
    for comp in [*slow, club]:
        assert_recorded_exactly_once(comp)
