"""Accounts linked automatically as one person (``bots.links``): uploads that share a
helper module's logic link their accounts, and a public ladder never seats the two
accounts' bots at one table until staff dismiss the link."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from bots import links
from bots.models import AccountLink, Bot
from bots.services import bot_create, bot_version_upload
from tests.factories import logged_in, lookalike_uploads, make_user
from tournaments import services
from tournaments.models import Competition, Match

pytestmark = pytest.mark.django_db

EXAMPLE = Path(links.__file__).resolve().parent / "examples" / "python" / "bot.py"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def ann_and_bob():
    """Two accounts of one person: each uploads the same helper module's logic (renamed,
    reflowed) behind an entry point of its own; and cat, who uploads something else."""
    ann, bob, cat = (make_user(name) for name in ("ann", "bob", "cat"))
    mine, theirs = lookalike_uploads()
    bot_version_upload(bot=bot_create(owner=ann, name="sly"), filename="sly.zip", content=mine)
    bot_version_upload(bot=bot_create(owner=bob, name="fox"), filename="fox.zip", content=theirs)
    bot_version_upload(
        bot=bot_create(owner=cat, name="own"), filename="own.py", content=EXAMPLE.read_bytes()
    )
    return ann, bob, cat


def test_uploads_sharing_a_helper_modules_logic_link_their_accounts_with_the_evidence(
    ann_and_bob,
):
    ann, bob, cat = ann_and_bob

    (link,) = AccountLink.objects.all()

    assert {link.user, link.other} == {ann, bob}
    assert link.reason == AccountLink.Reason.SIMILAR_UPLOADS and not link.dismissed
    assert "bob/fox v1" in link.evidence and "ann/sly v1" in link.evidence
    assert "alike" in link.evidence
    staff = make_user("stan", is_staff=True, is_superuser=True)
    page = logged_in(staff).get("/admin/bots/accountlink/").content.decode()
    assert "ann/sly v1" in page and "near-identical uploads" in page


def test_the_shipped_example_uploaded_by_two_accounts_links_nobody(ann_and_bob):
    _, _, cat = ann_and_bob
    dan = make_user("dan")

    bot_version_upload(
        bot=bot_create(owner=dan, name="mine"), filename="bot.py", content=EXAMPLE.read_bytes()
    )

    linked = AccountLink.objects.filter(user__in=[cat, dan], other__in=[cat, dan])
    assert not linked.exists()  # two beginners starting from the example are two people


def _public_ladder(ann, bob) -> tuple[Competition, int, int]:
    """A public manni-basic ladder (three seats): a bot of ann, one of bob, four house
    bots; returns it and the two accounts' entry ids."""
    ladder = services.competition_create(
        created_by=None,
        name="Open Manni ladder",
        kind="ladder",
        variant="manni-basic",
        format="ladder",
        games_per_match=3,
        seed=11,
    )
    mine = Bot.objects.create(owner=ann, name="sly-table", builtin="random")
    theirs = Bot.objects.create(owner=bob, name="fox-table", builtin="random")
    entries = [services.entry_create(competition=ladder, bot=b) for b in (mine, theirs)]
    for i in range(4):
        bot = Bot.objects.create(name=f"house-{i}", builtin="random")
        services.entry_create(competition=ladder, bot=bot)
    services.competition_start(competition=ladder, send=None)
    return ladder, entries[0].pk, entries[1].pk


def _play(ladder: Competition, matches: int) -> list[tuple[int, ...]]:
    """Play and record ``matches`` matches in order (each batch pairs the next); the
    tables they seated."""
    tables = []
    for _ in range(matches):
        match = (
            ladder.matches.filter(status__in=[Match.Status.PENDING, Match.Status.QUEUED])
            .order_by("id")
            .first()
        )
        tables.append(tuple(match.seats.values_list("entry_id", flat=True)))
        assert services.match_record(match=match, played=services.match_play(match=match))
    return tables


def test_linked_accounts_are_never_seated_together_in_a_public_ladder_batch(ann_and_bob):
    ann, bob, _ = ann_and_bob
    ladder, mine, theirs = _public_ladder(ann, bob)

    tables = _play(ladder, 16)

    assert not any(mine in table and theirs in table for table in tables)
    met = {frozenset(p) for t in tables for p in itertools.combinations(t, 2)}
    assert any(mine in pair for pair in met) and any(theirs in pair for pair in met)


def test_a_link_staff_dismissed_keeps_nobody_apart_and_is_not_made_again(ann_and_bob):
    ann, bob, _ = ann_and_bob
    AccountLink.objects.update(dismissed=True)
    ladder, mine, theirs = _public_ladder(ann, bob)

    tables = _play(ladder, 16)
    _, again = lookalike_uploads()
    bot_version_upload(bot=Bot.objects.get(name="fox"), filename="fox.zip", content=again)

    assert any(mine in table and theirs in table for table in tables)
    assert AccountLink.objects.get().dismissed  # the same pair is not linked anew


def test_accounts_signed_up_from_one_address_sit_apart_in_a_public_ladder():
    users = get_user_model().objects
    ann = users.create_user("ann-2", password="x")
    bob = users.create_user("bob-2", password="x")
    links.signup_record(user=ann, address="2001:db8:5:6::1")
    made = links.signup_record(user=bob, address="2001:db8:5:6:ffff::2")  # same /64
    ladder, mine, theirs = _public_ladder(ann, bob)

    tables = _play(ladder, 16)

    assert [link.reason for link in made] == [AccountLink.Reason.SIGNUP_ADDRESS]
    assert "2001:db8" not in made[0].evidence  # the address itself is kept nowhere
    assert not any(mine in table and theirs in table for table in tables)


def test_linked_accounts_are_one_owner_of_worker_time_until_staff_dismiss_the_link(ann_and_bob):
    from tournaments.worker import tenants

    ann, bob, cat = ann_and_bob
    links.linked_owners_forget()
    tenants.forget()
    # Validations (bots.links) and matches (tournaments.worker.tenants) count bob's work as ann's.
    assert links.linked_owner(bob.pk) == links.linked_owner(ann.pk) == min(ann.pk, bob.pk)
    assert links.linked_owner(cat.pk) == cat.pk
    assert tenants.owner_tenants([bob.pk, cat.pk]) == [
        f"owner:{min(ann.pk, bob.pk)}", f"owner:{cat.pk}"
    ]  # fmt: skip
    AccountLink.objects.update(dismissed=True)
    links.linked_owners_forget()
    assert links.linked_owner(bob.pk) == bob.pk
