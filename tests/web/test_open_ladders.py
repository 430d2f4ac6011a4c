"""The installation's standing open ladders: one per variant, made by
``manage.py ladders ensure`` (and ``make demo``), entered by any signed-in author."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from bots import validation
from bots.models import Bot, BotVersion
from tests.factories import PASSWORD, builtin_version, logged_in, make_user, passed, play_one
from tests.web.conftest import once_value
from tournaments import services
from tournaments.management.commands.demo import DEMO_ENTRIES
from tournaments.management.commands.demo import Command as Demo
from tournaments.models import Competition, Match
from tournaments.selectors import ladders
from tournaments.worker import execution

pytestmark = pytest.mark.django_db

#: Every registered variant, each of which has its ladder, in the order they are listed.
VARIANTS = [
    "manni-basic",
    "manni-hornafjordur",
    "laugavatnsmanni",
    "maniglia-4-partners",
    "maniglia-3",
    "maniglia-4",
    "maniglia-5",
    "money-jordan",
    "money-egypt",
    "money-syria",
]


def ensure() -> str:
    out = io.StringIO()
    call_command("ladders", "ensure", "--pending", stdout=out)
    return out.getvalue()


def money_bot(owner, name: str = "dinar") -> Bot:
    """A bot whose one ready version passed validation in money-jordan only."""
    bot = Bot.objects.create(owner=owner, name=name)
    version = BotVersion.objects.create(
        bot=bot, number=1, sha256="1" * 64, runtime="python", status="ready"
    )
    passed(version, "money-jordan")
    return bot


def test_ladders_ensure_makes_one_running_ladder_per_variant_and_is_idempotent():
    first = ensure()
    made = ladders.standing_ladders()
    second = ensure()

    assert [(c.standing, c.variant, c.status) for c in made] == [
        (v, v, "running") for v in VARIANTS
    ]
    for variant in VARIANTS:  # exactly one, after two runs
        assert Competition.objects.filter(variant=variant).exclude(standing="").count() == 1
    assert all(c.created_by is None and c.is_public for c in made)  # the platform's
    assert first.count("created:") == 10 and second.count("kept:") == 10
    assert "created:" not in second
    assert ladders.standing_ladders() == made
    assert Competition.objects.count() == 10
    assert all(c.entries.count() == c.seats_per_table for c in made)  # house bots only
    assert sorted({c.seats_per_table for c in made}) == [2, 3, 4, 5]


def test_each_ladder_is_named_for_its_game_and_plays_whole_rotations_of_its_seats():
    ensure()

    made = {c.variant: c for c in ladders.standing_ladders()}

    assert [made[v].name for v in VARIANTS] == [
        "Open Manni ladder",
        "Open Hornafjarðar Manni ladder",
        "Open Laugavatnsmanni ladder",
        "Open Maniglia ladder",
        "Open 3-handed Maniglia ladder",
        "Open 4-handed Maniglia ladder",
        "Open 5-handed Maniglia ladder",
        "Open Money ladder",
        "Open Egyptian Money ladder",
        "Open Syrian Money ladder",
    ]
    games_per_match = {v: c.games_per_match for v, c in made.items()}
    assert games_per_match == {  # the fewest whole rotations of the seats, 4 games or more
        "manni-basic": 6,
        "manni-hornafjordur": 6,
        "laugavatnsmanni": 6,
        "maniglia-4-partners": 4,
        "maniglia-3": 6,
        "maniglia-4": 4,
        "maniglia-5": 5,
        "money-jordan": 4,
        "money-egypt": 4,
        "money-syria": 4,
    }
    for variant, competition in made.items():  # what a validation plays as a real match
        assert competition.games_per_match == validation.match_games(variant)
    assert made["maniglia-4-partners"].partnerships == Competition.Partnerships.ROTATING


def test_an_ended_ladder_is_replaced_by_a_new_one():
    ensure()
    money = Competition.objects.get(standing="money-jordan")
    money.status = Competition.Status.CANCELLED
    money.save(update_fields=["status"])

    ensure()

    assert ladders.standing_ladders()[VARIANTS.index("money-jordan")].pk != money.pk
    assert Competition.objects.filter(standing="money-jordan").count() == 2
    assert Competition.objects.filter(status__in=ladders.OPEN).count() == 10


def test_the_family_ladders_of_an_older_install_are_kept_as_their_variants_ladders():
    """Before a ladder for every variant there was one per family, keyed by the family;
    migration 0019 keys them by their variant, so ``ensure`` keeps them: no duplicates."""
    from importlib import import_module

    from django.apps import apps

    old = {}
    for family, variant, seats in [
        ("manni", "manni-basic", 3),
        ("maniglia", "maniglia-4-partners", 4),
        ("money", "money-jordan", 2),
    ]:
        old[variant] = Competition.objects.create(
            name=f"Open {family.title()} ladder",
            kind="ladder",
            variant=variant,
            format="ladder",
            seats_per_table=seats,
            games_per_match=seats * 2,
            status="running",
            standing=family,
        )
    ended = Competition.objects.create(
        name="Open Money ladder",
        kind="ladder",
        variant="money-jordan",
        format="ladder",
        seats_per_table=2,
        status="cancelled",
        standing="money",
    )
    migration = import_module("tournaments.migrations.0019_standing_ladder_per_variant")

    migration.standing_by_variant(apps, None)
    out = ensure()

    made = ladders.standing_ladders()
    assert [c.variant for c in made] == VARIANTS
    for variant, competition in old.items():
        assert made[VARIANTS.index(variant)].pk == competition.pk
        assert f"kept: #{competition.pk} " in out
    assert out.count("kept:") == 3 and out.count("created:") == 7
    assert Competition.objects.exclude(standing="").count() == 11  # and the ended one
    ended.refresh_from_db()
    assert (ended.standing, ended.status) == ("money-jordan", "cancelled")


@pytest.mark.parametrize("variant", ["maniglia-5", "manni-hornafjordur", "maniglia-4-partners"])
def test_a_new_ladder_seats_a_full_table_of_house_bots_and_plays_it(variant):
    ensure()
    ladder = Competition.objects.get(standing=variant)
    (first,) = ladder.matches.all()  # the first batch: one table

    seated = list(first.seats.values_list("seat", "entry__bot__owner", "entry__bot__builtin"))
    played = play_one(ladder)

    assert [seat for seat, _, _ in seated] == list(range(ladder.seats_per_table))
    assert {owner for _, owner, _ in seated} == {None}  # house bots
    assert {builtin for _, _, builtin in seated} == {"random", "greedy"}
    assert played.pk == first.pk and played.status == Match.Status.DONE
    assert played.game_records.count() == ladder.games_per_match
    # Nobody entered yet: the ladder rests instead of playing house bots against each
    # other without end; once an author enters, the reaper pairs its next batch.
    assert ladder.matches.filter(status=Match.Status.PENDING).count() == 0
    assert execution.matches_reap(send=None).ladders == []
    author = make_user("author")
    bot = Bot.objects.create(owner=author, name="entrant", builtin="random")
    builtin_version(bot, 1, "random")
    services.entry_create(competition=ladder, bot=bot)
    batch = execution.matches_reap(send=None).ladders
    assert len(batch) == 1, batch  # one table, the author's bot at it
    seated = Match.objects.get(pk=batch[0]).seats.values_list("entry__bot", flat=True)
    assert bot.pk in seated


def test_a_plain_user_enters_a_money_bot_into_the_money_ladder_through_the_api():
    ensure()
    api = APIClient()
    token = api.post(
        "/api/auth/register/", {"username": "newbie", "password": PASSWORD}, format="json"
    ).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    bot = money_bot(get_user_model().objects.get(username="newbie"))
    money, manni = (Competition.objects.get(standing=v) for v in ("money-jordan", "manni-basic"))

    entered = api.post("/api/entries/", {"competition": money.pk, "bot": bot.pk}, format="json")
    refused = api.post("/api/entries/", {"competition": manni.pk, "bot": bot.pk}, format="json")

    assert entered.status_code == 201, entered.content
    assert money.entries.filter(bot=bot).exists()
    assert refused.status_code == 400 and "manni-basic" in refused.content.decode()


def test_a_plain_user_finds_the_ladders_on_the_home_page_and_enters_from_the_bot_page():
    ensure()
    newbie = make_user("newbie")
    bot = money_bot(newbie)
    money = Competition.objects.get(standing="money-jordan")
    browser = logged_in(newbie)

    home = browser.get(reverse("site:home")).content.decode()
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    answer = browser.post(
        reverse("bots-web:bot-enter", args=[bot.pk]),
        {"competition": money.pk, "once": once_value(page, "enter-form")},
    )

    assert "Somewhere to play every game" in home
    section = home[home.index('<section id="open-ladders">') :].split("</section>")[0]
    names = re.findall(r'<a href="/dashboard/competitions/\d+/">([^<]+)</a>', section)
    assert names == [c.name for c in ladders.standing_ladders()]  # all ten, in their order
    for family in ("manni", "maniglia", "money"):
        assert f'<li data-family="{family}"><strong>{family.title()}</strong>:' in home
    assert reverse("dashboard:competition-detail", args=[money.pk]) in home
    assert answer.status_code == 302
    assert money.entries.filter(bot=bot, withdrawn=False).exists()


def test_the_demo_starts_the_ten_open_ladders():
    admin = make_user("admin")
    demo = Demo()

    competitions = demo._demo_competitions(demo._bots(DEMO_ENTRIES), admin)

    standing = [c for c in competitions if c.standing]
    assert [c.variant for c in standing] == VARIANTS
    assert all(c.status == Competition.Status.RUNNING for c in standing)


def test_the_help_page_lists_a_ladder_for_every_variant_with_its_games_a_match():
    page = Client().get(reverse("site:help")).content.decode()

    rows = re.findall(
        r"<tr><td>(Open [^<]+ ladder)</td><td><code>([\w-]+)</code></td><td>(\d+)<", page
    )

    assert [variant for _, variant, _ in rows] == VARIANTS
    assert ("Open Hornafjarðar Manni ladder", "manni-hornafjordur", "6") in rows
    assert ("Open 5-handed Maniglia ladder", "maniglia-5", "5") in rows


def test_the_readme_lists_every_ladder_as_it_is_made():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()

    rows = re.findall(
        r"^\| (Open [^|]+ ladder) \| `([\w-]+)` \| (\d)[^|]* \| (\d+) \|$", readme, re.M
    )

    assert rows == [
        (s.name, s.variant, str(s.players), str(s.games_per_match))
        for s in ladders.STANDING_LADDERS
    ]
