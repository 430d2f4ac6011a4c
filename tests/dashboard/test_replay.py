"""The replay viewer's data: every family's steps shaped as a card table, who sees every hand.

The shaping (``tournaments.watching.replay``) is pure: the first tests replay
seeded random games without a database. The rest go through the pages and the API.
"""

from __future__ import annotations

import json
import random

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from rest_framework.test import APIClient

import games
from bots.models import Bot
from games.cards import FRENCH_INDEX, LATIN_INDEX
from tests.factories import make_user, play_one
from tournaments import services
from tournaments.models import Competition, GameRecord
from tournaments.watching import replay
from tournaments.watching.replay import common, replay_steps
from tournaments.watching.replay.steps import TABLES

MONEY_LABELS = {*FRENCH_INDEX, "X1", "X2"}
PACK_LABELS = {"manni": set(FRENCH_INDEX), "maniglia": set(LATIN_INDEX), "money": MONEY_LABELS}


def random_record(variant: str, seed: int = 7, limit: int = 4000, **options) -> dict:
    """The record of a game of random legal actions (at most ``limit`` of them)."""
    state = games.load(variant, **options).new_game(seed)
    rng = random.Random(seed)
    for _ in range(limit):
        if state.is_over():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state.record()


def card_parts(value) -> list[str]:
    """Every card label drawn face up anywhere in ``value`` (parts or areas)."""
    if isinstance(value, list):
        return [c for v in value for c in card_parts(v)]
    if not isinstance(value, dict):
        return []
    found = list(value.get("cards", []))
    found += [card for _, card in value.get("plays", [])]
    return found + [
        c for k, v in value.items() if k not in ("cards", "plays") for c in card_parts(v)
    ]


def completed_tricks(steps: list[dict]) -> list[tuple[dict, dict]]:
    return [
        (steps[i - 1], step)
        for i, step in enumerate(steps)
        for area in step["table"]["centre"]
        if area.get("complete")
    ]


@pytest.mark.parametrize("variant", games.variants())
def test_every_variant_is_shaped_as_a_table_of_its_own_pack(variant):
    record = random_record(variant)

    steps = replay_steps(record, full=True)

    family = games.variant_info(variant).family
    assert len(steps) == len(record["actions"]) + 1
    json.dumps(steps)  # the page embeds them as JSON
    drawn = {c for step in steps for c in card_parts(step["table"])}
    assert drawn and drawn <= PACK_LABELS[family]
    for step in steps:
        table = step["table"]
        assert len(table["seats"]) == games.load(variant).num_players
        assert table["extra"] == []  # every field of the family is drawn by its table
        assert table["said"]
    assert steps[-1]["table"]["result"]["ranking"] == games.replay(record).ranking()
    assert all("result" not in step["table"] for step in steps[:-1])


def test_a_maniglia_trick_carries_latin_cards_and_its_taker():
    steps = replay_steps(random_record("maniglia-4"))

    tricks = completed_tricks(steps)
    assert len(tricks) >= 9
    for before, step in tricks:
        (area,) = [a for a in step["table"]["centre"] if a.get("complete")]
        assert [seat for seat, _ in area["plays"]] == [
            *[s for s, _ in before["view"]["trick"]],
            step["actor"],
        ]
        assert {card for _, card in area["plays"]} <= set(LATIN_INDEX)
        assert area["plays"][-1][1] == step["action"].removeprefix("play ")
        if step["view"]["phase"] != "over" and step["view"]["deal"] == before["view"]["deal"]:
            gained = [
                s
                for s in range(4)
                if step["view"]["tricks_won"][s] == before["view"]["tricks_won"][s] + 1
            ]
            assert gained == [area["winner"]]
        assert {"seat": area["winner"]} in step["table"]["said"]
    playing = [s for s in steps if s["table"]["centre"] and not s["table"]["centre"][0]["complete"]]
    assert any(s["table"]["centre"][0]["winner"] == s["view"]["winning"][0] for s in playing)
    assert replay.replay_meta(random_record("maniglia-4"), names=["a"] * 4)["pack"] == "latin"


@pytest.mark.parametrize(
    "variant, options",
    [
        ("manni-basic", {}),
        ("manni-hornafjordur", {}),
        ("laugavatnsmanni", {}),
        ("laugavatnsmanni", {"laug.nullo_ace_low": True}),
        ("maniglia-3", {}),
        ("maniglia-4-partners", {}),
        ("maniglia-5", {}),
    ],
)
def test_the_rules_name_the_same_trick_taker_as_the_engine(variant, options):
    # A deal's last trick is taken by the rules (the counts start again after it):
    # on every other trick they must agree with the engine's own count.
    game = games.load(variant, **options)
    context = common.Replay(
        variant, game.variant.family, dict(game.options), game.num_players, False
    )
    checked = 0
    for seed in range(3):
        for before, step in completed_tricks(replay_steps(random_record(variant, seed, **options))):
            if step["view"]["deal"] != before["view"]["deal"]:
                continue
            (area,) = [a for a in step["table"]["centre"] if a.get("complete")]
            cards = [card for _, card in area["plays"]]
            index = common.rules_trick_winner(context, before["view"], cards)
            assert area["plays"][index][0] == area["winner"]
            checked += 1
    assert checked > 20


def test_a_money_capture_shows_the_pile_it_took():
    steps = replay_steps(random_record("money-jordan"))

    captures = [s for s in steps if s["table"]["centre"][0]["label"] == "captured"]
    assert captures
    for step in captures:
        before = steps[step["index"] - 1]["view"]
        turned = step["table"]["said"][2]["cards"][0]
        taken = step["table"]["centre"][0]["parts"][0]["cards"]
        assert taken == [*before["pile"], turned]
        assert step["view"]["pile"] == [] and "captures" in step["table"]["said"][3]
    table = steps[3]["table"]
    assert table["centre"][0] == {
        "label": "pile (bottom card first)",
        "parts": {"cards": steps[3]["view"]["pile"]},
    }
    bank = table["seats"][0]["areas"][1]
    assert bank["label"] == "bank" and {"J", "Q", "K"} == {m[0] for m in bank["parts"]["money"]}
    assert table["seats"][0]["areas"][0] == {
        "label": "stack",
        "parts": {"backs": steps[3]["view"]["stack_sizes"][0]},
    }


def test_a_money_game_says_how_it_ended_in_words():
    record = random_record("money-jordan")
    final = games.replay(record)
    assert final.is_over()

    info = {row[0]: row[1] for row in replay_steps(record)[-1]["table"]["info"]}

    result = info["result"]
    loser = final.ranking().index(2) if 2 in final.ranking() else None
    if isinstance(result, list):  # a seat lost: named, with the rule
        assert result[0] == {"seat": loser} and "lost (MONEY-JO-16)" in result[1]
    else:
        assert result == "the play limit was reached: the greater wealth wins (LIMIT-1)"
    assert "loser" not in json.dumps(result) and "reason" not in json.dumps(result)


def test_a_money_ground_buy_shows_the_cards_bought():
    steps = replay_steps(random_record("money-jordan"))

    buys = [s for s in steps[1:] if s["action"].startswith("buy ") and "at ground" in s["action"]]
    assert buys
    for step in buys:
        before = steps[step["index"] - 1]["view"]
        bought = step["table"]["said"][-1]["cards"]
        assert bought and set(bought) == set(before["pile"]) - set(step["view"]["pile"])


def test_the_full_money_view_turns_the_stacks_face_up():
    record = random_record("money-syria")

    steps = replay_steps(record, full=True)

    deck = record["decks"][0]
    stacks = [steps[0]["view"][f"stack seat {s}"] for s in range(2)]
    assert sorted(stacks[0] + stacks[1]) == sorted(deck)
    assert steps[0]["table"]["seats"][0]["areas"][0] == {
        "label": "stack",
        "parts": {"cards": stacks[0]},
    }


def test_manni_bids_and_calls_are_listed():
    steps = replay_steps(random_record("laugavatnsmanni"))

    announced = [s for s in steps[1:] if s["action"].startswith("announce ")]
    assert announced
    for step in announced:
        kind = step["action"].removeprefix("announce ")
        assert [{"seat": step["actor"]}, f"announces {kind}"] in step["table"]["bids"]
        assert step["table"]["said"][:2] == [{"seat": step["actor"]}, f" announces {kind}"]
    greats = [s for s in steps[1:] if s["action"].startswith("great ")]
    assert greats
    for step in greats:
        assert [{"seat": step["actor"]}, step["action"]] in step["table"]["bids"]


def laug_said(*labels: str) -> list[list]:
    """What the replay says on each of ``labels``, played from deal 1 with seat 0 dealing."""
    state = games.load("laugavatnsmanni").new_game(3, dealer=0)
    for label in labels:
        state.apply(label)
    return [step["table"]["said"] for step in replay_steps(state.record())[1:]]


def test_manni_great_calls_say_who_keeps_overcalls_and_declares():
    """LAUG-7 step 3, EX-LAUG-6: B's late overcall is said as one, and so is who declares."""
    a, b, d = {"seat": 1}, {"seat": 2}, {"seat": 0}

    late = laug_said("announce clubs", "pass", "great diamonds", "pass", "great spades")
    grand = laug_said("announce clubs", "pass", "great grand", "pass")
    kept = laug_said("announce clubs", "pass", "great diamonds", "great hearts")
    again = laug_said("announce clubs", "pass", "great diamonds", "pass", "pass")

    assert late[2] == [d, " calls great diamonds"]
    assert late[3] == [a, " passes"]  # B is asked next: nobody declares yet
    assert late[4] == [
        b,
        " overcalls great diamonds with great spades",
        " · ",
        b,
        " declares great spades",
    ]
    assert grand[3] == [a, " passes", " · ", d, " declares great grand"]  # B is not asked
    assert kept[3] == [a, " keeps the deal with great hearts", " · ", a, " declares great hearts"]
    assert again[4] == [b, " passes", " · ", d, " declares great diamonds"]


def test_manni_exchanges_are_face_down_in_the_public_view():
    record = random_record("manni-hornafjordur")

    public = replay_steps(record)
    full = replay_steps(record, full=True)

    discards = [i for i, label in enumerate(record["actions"], 1) if label.startswith("discard ")]
    assert discards
    for i in discards:
        assert public[i]["action"] == "discard"
        assert "a card face down" in public[i]["table"]["said"]
        card = record["actions"][i - 1].removeprefix("discard ")
        assert full[i]["action"] == f"discard {card}"
        assert {"cards": [card]} in full[i]["table"]["said"]
    draws = [s for s in public if s["action"] == "draw"]
    assert draws and all(" draws " in s["table"]["said"][1] for s in draws)
    contract = public[0]["table"]["centre"][-1]
    assert contract == {"label": "contract card", "parts": {"cards": [record["decks"][0][51]]}}


def test_the_public_view_draws_other_hands_face_down():
    record = random_record("manni-basic")

    steps = replay_steps(record)

    for step in steps:
        assert not {"hand", "out_of_play", "history"} & set(step["view"])
        for box in step["table"]["seats"]:
            assert [a["label"] for a in box["areas"]] == ["hand"]
            assert set(box["areas"][0]["parts"]) == {"backs"}
    assert steps[0]["table"]["seats"][0]["areas"][0]["parts"] == {"backs": 12}
    took = [s for s in steps if s["action"] in ("keep", "take")]
    assert took and took[0]["table"]["said"][1] in (" keeps the hand", " takes the Manni")


def test_the_full_view_draws_every_hand_face_up():
    record = random_record("manni-basic")

    steps = replay_steps(record, full=True)

    first = steps[0]["table"]["seats"]
    dealt = [c for box in first for c in box["areas"][0]["parts"]["cards"]]
    assert len(dealt) == 36 and len(set(dealt)) == 36
    assert [a["label"] for a in first[0]["areas"]] == ["hand", "out of play"]


def test_unknown_fields_are_shown_with_their_cards(monkeypatch):
    shape, shown = TABLES["maniglia"]
    monkeypatch.setitem(TABLES, "maniglia", (shape, shown - {"trick", "options"}))

    steps = replay_steps(random_record("maniglia-4"))

    extra = [dict(step["table"]["extra"]) for step in steps]
    assert all("trick" in fields and "options" in fields for fields in extra)
    playing = next(fields["trick"] for fields in extra if fields["trick"]["items"])
    assert playing["items"][0]["items"][1] == {
        "cards": [playing["items"][0]["items"][1]["cards"][0]]
    }
    assert extra[0]["options"]["fields"][0][0] == "maniglia.overtake"
    assert common.generic({"pile": ["7S", "QH"], "n": 2}, frozenset(FRENCH_INDEX)) == {
        "fields": [["pile", {"cards": ["7S", "QH"]}], ["n", 2]]
    }


def test_a_forfeit_is_the_last_step():
    record = random_record("maniglia-4-partners", limit=30)
    record["forfeit"] = {"seat": 2, "reason": "timeout"}

    steps = replay_steps(record)

    last = steps[-1]
    assert len(steps) == 32
    assert last["actor"] == 2 and last["action"] == "forfeit: timeout"
    assert last["table"]["said"] == [{"seat": 2}, " forfeits (", "ran out of time", ")"]
    assert last["table"]["result"]["ranking"] == [2, 1, 2, 1]  # the offender's team loses


def test_a_maniglia_thrown_in_deal_is_said():
    state = games.load("maniglia-5").new_game(3)
    for _ in range(5):
        state.apply("pass")  # MANIGLIA-AUC: everyone passes, the deal is thrown in

    steps = replay_steps(state.record())

    said = steps[-1]["table"]["said"]
    assert said[:2] == [{"seat": steps[-1]["actor"]}, " passes"]
    assert " · everyone passed: the deal is thrown in" in said
    dealer = steps[-1]["view"]["dealer"]
    assert said[-5:] == [" · deal ", 2, " begins: ", {"seat": dealer}, " deals"]


# --- pages and the API ------------------------------------------------------------------

KINDS = ("anonymous", "outsider", "organiser", "staff")


def competition_with_a_game(
    organiser, *, flag: bool = False, duplicate: bool = True
) -> Competition:
    competition = services.competition_create(
        created_by=organiser,
        name="Replay night",
        kind="tournament",
        variant="manni-basic",
        format="round-robin",
        games_per_match=3,
        duplicate=duplicate,
        full_replays_after_end=flag,
    )
    for i in range(3):
        bot = Bot.objects.create(name=f"replay-bot-{i}", builtin="random")
        services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition, send=None)
    play_one(competition)
    return competition


def client_of(kind: str, organiser) -> Client:
    client = Client()
    users = {
        "outsider": lambda: make_user("otto"),
        "organiser": lambda: organiser,
        "staff": lambda: make_user("stan", is_staff=True),
    }
    if kind in users:
        client.force_login(users[kind]())
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("flag", [False, True], ids=["flag-off", "flag-on"])
@pytest.mark.parametrize("ended", [False, True], ids=["running", "finished"])
@pytest.mark.parametrize("kind", KINDS)
def test_who_sees_every_hand(kind, ended, flag):
    organiser = make_user("olga")
    competition = competition_with_a_game(organiser, flag=flag)
    competition.status = Competition.Status.FINISHED if ended else Competition.Status.RUNNING
    competition.save(update_fields=["status"])
    game = competition.matches.get(status="done").game_records.order_by("index").first()
    client = client_of(kind, organiser)
    allowed = kind == "staff" or (ended and (kind == "organiser" or flag))

    full = client.get(f"/dashboard/games/{game.pk}/?view=full")
    public = client.get(f"/dashboard/games/{game.pk}/")

    assert public.status_code == 200
    assert ("?view=full" in public.content.decode()) == allowed
    if allowed:
        assert full.status_code == 200 and 'id="full-view"' in full.content.decode()
    else:
        page = full.content.decode()
        assert full.status_code == 403
        assert 'id="refused"' in page and "organisers allow full replays" in page
        assert "hand seat" not in page and 'id="steps"' not in page


@pytest.mark.django_db
def test_organisers_see_every_hand_of_a_cancelled_competition_too():
    organiser = make_user("olga")
    competition = competition_with_a_game(organiser)
    competition.status = Competition.Status.CANCELLED
    competition.save(update_fields=["status"])

    assert replay.full_view_allowed(competition=competition, user=organiser)
    assert not replay.full_view_allowed(competition=competition, user=AnonymousUser())


@pytest.mark.django_db
def test_the_seats_carry_the_bots_names_rotated_game_by_game():
    organiser = make_user("olga")
    competition = competition_with_a_game(organiser)
    match = competition.matches.get(status="done")
    bots = [s.entry.bot.name for s in match.seats.select_related("entry__bot").order_by("seat")]

    names = []
    for game in match.game_records.order_by("index"):
        page = Client().get(f"/dashboard/games/{game.pk}/").content.decode()
        start = page.index('<script id="replay-meta" type="application/json">')
        meta = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
        assert meta["pack"] == "french"
        names.append(meta["names"])

    # Duplicate: game g seats the bots rotated by g (bots.referee.match.schedule).
    assert names == [[bots[(s - g) % 3] for s in range(3)] for g in range(3)]


@pytest.mark.django_db
def test_without_the_rotation_the_seats_are_numbered():
    organiser = make_user("olga")
    competition = competition_with_a_game(organiser, duplicate=False)
    game = competition.matches.get(status="done").game_records.order_by("index").last()
    record = game.record()
    bots = [
        s.entry.bot.name for s in game.match.seats.select_related("entry__bot").order_by("seat")
    ]

    assert replay.seat_names(game=game, record=record) == bots
    record["seed"] += 1  # not the game the schedule played there
    assert replay.seat_names(game=game, record=record) == ["seat 1", "seat 2", "seat 3"]


@pytest.mark.django_db
def test_organisers_set_full_replays_through_the_api():
    staff = make_user("stan", is_staff=True)
    client = APIClient()
    client.force_authenticate(staff)
    settings = {"kind": "tournament", "variant": "manni-basic", "format": "round-robin"}

    chosen = client.post(
        "/api/competitions/",
        {"name": "Open hands", "full_replays_after_end": True, **settings},
        format="json",
    )
    default = client.post("/api/competitions/", {"name": "Closed hands", **settings}, format="json")

    assert chosen.status_code == 201 and chosen.json()["full_replays_after_end"] is True
    assert default.status_code == 201 and default.json()["full_replays_after_end"] is False
    assert Competition.objects.get(name="Open hands").full_replays_after_end is True
    listed = {
        c["name"]: c["full_replays_after_end"]
        for c in client.get("/api/competitions/").json()["results"]
    }
    assert listed == {"Open hands": True, "Closed hands": False}
    schema = client.get("/api/schema/?format=json").json()
    field = schema["components"]["schemas"]["CompetitionCreateRequest"]["properties"][
        "full_replays_after_end"
    ]
    assert "every hand" in field["description"]


@pytest.mark.django_db
def test_a_record_that_no_longer_replays_is_said_so_not_a_server_error():
    """A rule amended after a game was stored can make one of its actions illegal."""
    organiser = make_user("olga")
    competition = competition_with_a_game(organiser)
    game = competition.matches.get(status="done").game_records.order_by("index").first()
    record = game.record()
    record["actions"][3] = "play 2X"  # no such card: illegal where it stands
    GameRecord.objects.filter(pk=game.pk).update(data=GameRecord.pack(record))

    page = Client().get(f"/dashboard/games/{game.pk}/")

    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="refused"' in text and "no longer replays" in text and 'id="steps"' not in text
