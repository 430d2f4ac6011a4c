"""Look-alike uploads of different accounts: same bytes, and near-identical contents."""

from __future__ import annotations

import pytest
from django.test import Client

from bots import similarity
from bots.models import Bot
from bots.selectors import near_identical_uploads, uploads_shared_across_accounts
from bots.services import bot_version_upload
from tests.factories import OTHER_ENTRY, SDK_ENTRY, SHARED_HELPER, renamed_helper

SOURCE = b'''from bots.sdk import Bot, run


class Greedy(Bot):
    """Plays the highest card it may."""

    def act(self, observation, legal):
        best = None
        for label in legal:
            if best is None or rank(label) > rank(best):
                best = label
        return best


def rank(label):
    return "23456789TJQKA".find(label[-2]) if label.startswith("play") else -1


run(Greedy())
'''
#: The same program with its names changed, its comments gone and its lines reflowed.
RENAMED = b"""from bots.sdk import Bot, run
class Mine(Bot):
    def act(self, obs, options):
        top = None
        for o in options:
            if top is None or strength(o) > strength(top): top = o
        return top
def strength(x):
    return "23456789TJQKA".find(x[-2]) if x.startswith("play") else -1
run(Mine())
"""
OTHER = b"""import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": sorted(message["legal"])[-1]}), flush=True)
    elif message["type"] == "bye":
        break
"""


def test_renamed_and_reformatted_copies_are_near_identical_and_others_are_not():
    same = similarity.similarity(
        similarity.sketch(SOURCE.decode()), similarity.sketch(RENAMED.decode())
    )
    other = similarity.similarity(
        similarity.sketch(SOURCE.decode()), similarity.sketch(OTHER.decode())
    )
    assert same >= similarity.NEAR_IDENTICAL
    assert other < 0.3


def test_a_helper_module_shared_behind_different_entry_points_is_near_identical():
    """The logic moved out of the entry file: the entry points alone look nothing alike,
    every text file of the two uploads together does."""
    mine = [SDK_ENTRY, SHARED_HELPER]
    theirs = [OTHER_ENTRY, renamed_helper()]

    archives = similarity.similarity(
        similarity.archive_sketch(mine), similarity.archive_sketch(theirs)
    )
    entries = similarity.similarity(similarity.sketch(mine[0]), similarity.sketch(theirs[0]))

    assert renamed_helper() != SHARED_HELPER
    assert archives >= similarity.NEAR_IDENTICAL
    assert entries < 0.3


@pytest.fixture
def accounts(django_user_model, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.CARDROOM_BOT_CACHE_DIR = tmp_path / "bot-cache"
    users = django_user_model.objects
    return [users.create_user(name, password="pw-123456") for name in ("ann", "bob", "cat")]


@pytest.mark.django_db
def test_staff_see_uploads_shared_across_accounts(accounts):
    ann, bob, cat = accounts
    a = bot_version_upload(
        bot=Bot.objects.create(owner=ann, name="a"), filename="a.py", content=SOURCE
    )
    b = bot_version_upload(
        bot=Bot.objects.create(owner=bob, name="b"), filename="b.py", content=SOURCE
    )
    c = bot_version_upload(
        bot=Bot.objects.create(owner=cat, name="c"), filename="c.py", content=RENAMED
    )
    own = bot_version_upload(
        bot=Bot.objects.create(owner=cat, name="d"), filename="d.py", content=OTHER
    )
    assert set(uploads_shared_across_accounts()) == {a, b}
    pairs = {frozenset((x.pk, y.pk)) for x, y, _ in near_identical_uploads()}
    assert frozenset((a.pk, c.pk)) in pairs and frozenset((b.pk, c.pk)) in pairs
    assert not any(own.pk in pair for pair in pairs)
    assert frozenset((a.pk, b.pk)) in pairs  # identical is near-identical too

    staff = django_user_model_staff(ann.__class__)
    site = Client()
    site.force_login(staff)
    listed = site.get("/admin/bots/botversion/?lookalike=bytes").content.decode()
    assert "ann/a v1" in listed and "bob/b v1" in listed and "cat/c" not in listed
    near = site.get("/admin/bots/botversion/?lookalike=near").content.decode()
    assert "cat/c v1" in near and "cat/d" not in near
    page = site.get(f"/admin/bots/botversion/{c.pk}/change/").content.decode()
    assert "alike" in page


def django_user_model_staff(model):
    return model.objects.create_superuser("stan", password="pw-123456")
