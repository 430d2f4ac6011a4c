"""Shared test factories: users, bots, versions, competitions and their results, made
through the services as the site makes them, and the few readers of what they produce.

Plain functions (fixtures live in the ``conftest.py`` files); no test module imports
another test module (tests/test_architecture.py checks it).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client

import games
from bots import protocol
from bots.models import Bot, BotVersion, VersionVariantPass
from bots.referee.encoding import ActEncoder
from tournaments import services
from tournaments.models import Competition, Entry, GameRecord, Match, MatchSeat, Round
from tournaments.worker import version_test_slices as version_tests

#: Every user the factories make has this password.
PASSWORD = "pw-correct-horse-7"

#: A bot that plays the first legal card, from PROTOCOL.md alone.
FIRST_LEGAL_BOT = b"""import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message.get("type") == "act":
        print("thinking", file=sys.stderr, flush=True)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message.get("type") == "bye":
        break
"""

#: A bot program without the SDK (it accepts no extension): the first legal label, except
#: at its decision number FAULT_AT (from 1) of the match, where it does FAULT.
RAW_BOT = """\
import json, sys
decisions = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        decisions += 1
        action = message["legal"][0]
        if decisions == FAULT_AT:
            FAULT
        print(json.dumps({"action": action}), flush=True)
    elif message["type"] == "bye":
        break
"""
RAW_BOT_FAULTS = {
    "none": "pass",
    "illegal": "action = 'nonsense'",
    "crash": "sys.exit(3)",
    "other-choice": "action = message['legal'][-1]",
}


# -- users ---------------------------------------------------------------------------------


def make_user(username: str, *, organiser: bool = False, **extra):
    """A user with :data:`PASSWORD`; ``organiser`` gives the organise permission,
    ``extra`` goes to ``create_user`` (``is_staff=True``...)."""
    user = get_user_model().objects.create_user(username=username, password=PASSWORD, **extra)
    if organiser:
        user.user_permissions.add(Permission.objects.get(codename="organise_competitions"))
        user = get_user_model().objects.get(pk=user.pk)  # a fresh object: no stale perm cache
    return user


def logged_in(user) -> Client:
    """A test client with ``user``'s session."""
    client = Client()
    client.force_login(user)
    return client


# -- bots and versions ---------------------------------------------------------------------


def passed(versions: BotVersion | Iterable[BotVersion], *variants: str) -> None:
    """Record that ``versions`` passed validation in ``variants`` (every variant if none),
    as a validation would: what a version made ready by hand needs to play."""
    if isinstance(versions, BotVersion):
        versions = [versions]
    VersionVariantPass.objects.bulk_create(
        [
            VersionVariantPass(version=version, variant=variant)
            for version in versions
            for variant in variants or games.variants()
        ],
        ignore_conflicts=True,
    )


def make_bot(owner, name: str, *, ready: bool = True) -> Bot:
    """A bot of ``owner`` with one stored-looking Python version (ready and validated in
    every variant, or pending)."""
    bot = Bot.objects.create(owner=owner, name=name)
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        sha256="0" * 64,
        runtime=BotVersion.Runtime.PYTHON,
        entry_point="bot.py",
        status=BotVersion.Status.READY if ready else BotVersion.Status.PENDING,
    )
    if ready:
        passed(version)
    return bot


def builtin_bots(n: int, kind: str = "random", *, prefix: str = "") -> list[Bot]:
    """``n`` built-in ``kind`` bots, named ``<prefix><kind>-<i>``."""
    return [Bot.objects.create(name=f"{prefix}{kind}-{i}", builtin=kind) for i in range(n)]


def builtin_version(
    bot: Bot, number: int, plays: str, status=BotVersion.Status.READY
) -> BotVersion:
    """A version of ``bot`` that plays as the built-in ``plays`` (no sandbox needed)."""
    return BotVersion.objects.create(
        bot=bot,
        number=number,
        runtime=BotVersion.Runtime.BUILTIN,
        entry_point=f"builtin:{plays}",
        sha256=hashlib.sha256(f"{number}:{plays}".encode()).hexdigest(),
        status=status,
    )


def member_bot(owner, name: str, plays: str = "random") -> Bot:
    """A bot of ``owner`` whose one ready version plays as the built-in ``plays`` (it
    plays a real match without the sandbox), validated in every variant."""
    bot = Bot.objects.create(owner=owner, name=name)
    passed(builtin_version(bot, 1, plays))
    return bot


def uploaded_bot(owner, name: str = "secret-sauce", content: bytes = FIRST_LEGAL_BOT) -> Bot:
    """A bot of ``owner`` with one stored version whose report carries a stderr tail."""
    from bots import services as bot_services

    bot = bot_services.bot_create(owner=owner, name=name, description="")
    version = bot_services.bot_version_upload(bot=bot, filename="bot.py", content=content)
    version.status = BotVersion.Status.READY
    version.validation_report = {
        **(version.validation_report or {}),
        "ok": True,
        "statuses": [{"status": "ok"}],
        "stderr_tail": "stderr-secret-line",
    }
    version.save(update_fields=["status", "validation_report"])
    passed(version)  # as a validation in every variant would
    return bot


def raw_bot(folder: Path, fault: str = "none", at: int = 0) -> Path:
    """:data:`RAW_BOT` as ``folder/bot.py``, doing ``fault`` at its decision ``at``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bot.py"
    path.write_text(RAW_BOT.replace("FAULT_AT", str(at)).replace("FAULT", RAW_BOT_FAULTS[fault]))
    return path


# -- competitions --------------------------------------------------------------------------


def make_competition(
    by=None,
    *,
    name: str = "Club night",
    kind: str = "tournament",
    variant: str = "manni-basic",
    format: str = "round-robin",
    games: int = 3,
    entries: int = 0,
    builtin: str = "random",
    start: bool = False,
    prefix: str = "",
    **settings,
) -> Competition:
    """A competition created by ``by`` (None: by the site) through the services, with
    ``entries`` built-in ``builtin`` bots entered (named ``<prefix><builtin>-<i>``),
    started when ``start``; ``settings``
    are ``competition_create``'s other arguments. By default a draft round robin of
    manni-basic (three seats a table) of three games a match."""
    competition = services.competition_create(
        created_by=by,
        name=name,
        kind=kind,
        variant=variant,
        format=format,
        games_per_match=games,
        **settings,
    )
    enter_builtins(competition, entries, builtin, prefix=prefix)
    if start:  # its matches stay pending: the tests play them (play_one)
        services.competition_start(competition=competition, send=None)
    return competition


def enter_builtins(competition: Competition, count: int, kind: str = "random", *, prefix=""):
    """Enter ``count`` new built-in ``kind`` bots in ``competition``."""
    for bot in builtin_bots(count, kind, prefix=prefix):
        services.entry_create(competition=competition, bot=bot)


def enter_copies(
    client, competition_id: int, greedy: int = 4, random: int = 4, kinds: list[str] | None = None
) -> None:
    """Several copies of the built-in greedy and random players, entered through the API."""
    kinds = kinds or ["greedy"] * greedy + ["random"] * random
    for i, kind in enumerate(kinds):
        bot = Bot.objects.create(name=f"{kind}-{i}", builtin=kind)
        response = client.post(
            "/api/entries/", {"competition": competition_id, "bot": bot.pk}, format="json"
        )
        assert response.status_code == 201, response.content


def open_ladder(organiser) -> Competition:
    """A running money-jordan ladder of four random built-ins with one match played."""
    ladder = make_competition(
        organiser,
        name="Open ladder",
        kind="ladder",
        variant="money-jordan",
        format="ladder",
        games=2,
        entries=4,
        start=True,
    )
    play_one(ladder)
    assert Competition.objects.get(pk=ladder.pk).status == "running"
    return ladder


# -- results -------------------------------------------------------------------------------


#: A match waiting to be played: pending, or queued by a service that sent it.
WAITING = (Match.Status.PENDING, Match.Status.QUEUED)


def play_one(competition: Competition) -> Match:
    """Play and record the first waiting match of ``competition``; the rounds its result
    pairs stay pending (played here too)."""
    match = competition.matches.filter(status__in=WAITING).order_by("id").first()
    assert match is not None, "no waiting match left"
    result = services.match_play(match=match)
    assert services.match_record(match=match, played=result, send=None)
    match.refresh_from_db()
    return match


def play_all(competition: Competition, limit: int = 100) -> list[Match]:
    """Play waiting matches (later rounds' too) until none is left or ``limit`` were
    played (a ladder schedules for ever); the matches played."""
    played: list[Match] = []
    while len(played) < limit and competition.matches.filter(status__in=WAITING):
        played.append(play_one(competition))
    return played


def play_to_the_end(test, slice_s: float = 0.0) -> list[str]:
    """Play the version test ``test`` slice by slice; the outcomes before ``done``."""
    outcomes = []
    while (
        outcome := version_tests.version_test_play(test_id=test.pk, slice_s=slice_s, send=None)
    ) != "done":
        assert outcome == "continued"
        outcomes.append(outcome)
    return outcomes


def played_record(seed: int) -> dict:
    """The record of a whole game of Manni, every seat playing its first legal card."""
    state = games.load("manni-basic").new_game(seed)
    while not state.is_over():
        state.apply(state.legal_actions()[0])
    return state.record()


def make_match(competition: Competition, entries: list[Entry], *, done: bool, table: int = 0):
    """A match of round 1 with its seats; when done, two stored game records and results."""
    round_, _ = Round.objects.get_or_create(competition=competition, number=1)
    match = Match.objects.create(
        competition=competition,
        round=round_,
        table=table,
        seed=1234 + table,
        status=Match.Status.DONE if done else Match.Status.RUNNING,
    )
    for seat, entry in enumerate(entries):
        MatchSeat.objects.create(
            match=match,
            seat=seat,
            entry=entry,
            score=seat if done else None,
            rank=seat + 1 if done else None,
            log=f"log of seat {seat}",
        )
    if done:
        for index in range(2):
            record = played_record(index)
            state = games.replay(record)
            GameRecord.objects.create(
                match=match,
                index=index,
                scores=state.scores(),
                ranking=state.ranking(),
                statuses=[{"status": "ok"}] * len(entries),
                data=GameRecord.pack(record),
            )
    return match


#: Who beat whom in :func:`rig`'s four-entry round robin: a beats b and d, b beats c and d,
#: c beats a, d beats c.
HEAD_TO_HEAD = {
    ("a", "b"): "a",
    ("a", "c"): "c",
    ("a", "d"): "a",
    ("b", "c"): "b",
    ("b", "d"): "b",
    ("c", "d"): "d",
}


def rig(competition: Competition, outcomes: dict[tuple[str, str], str | None]) -> dict[str, int]:
    """Rewrite the finished two-seat round robin so that each pair's match ends as
    ``outcomes`` says (the winner's letter, None for level; the winner's total score
    10 and game points 2-0, the loser's -10, 0 and 1-1 when level), the entries'
    points with it. Entries are
    lettered a, b, c... in the order they were entered. Returns letter -> entry id."""
    entries = list(competition.entries.order_by("id"))
    letter = {e.pk: "abcdefgh"[i] for i, e in enumerate(entries)}
    points = dict.fromkeys(letter, 0.0)
    for match in competition.matches.prefetch_related("seats"):
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        pair = tuple(sorted(letter[s.entry_id] for s in seats))
        winner = outcomes[pair]
        for seat in seats:
            mine = letter[seat.entry_id]
            rank = 1 if winner in (None, mine) else 2
            score = 0.0 if winner is None else 10.0 if winner == mine else -10.0
            game_points = 1.0 if winner is None else 2.0 if winner == mine else 0.0
            MatchSeat.objects.filter(pk=seat.pk).update(rank=rank, score=score, points=game_points)
            points[seat.entry_id] += 0.5 if winner is None else float(winner == mine)
    for pk, value in points.items():
        Entry.objects.filter(pk=pk).update(points=value)
    return {v: k for k, v in letter.items()}


# -- reading what was made -----------------------------------------------------------------


def json_block(page: str, name: str):
    """The JSON a page embeds in ``<script id="<name>" type="application/json">``."""
    start = page.index(f'<script id="{name}" type="application/json">')
    return json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])


def snapshot_of(page: str) -> dict:
    """The live page's first snapshot, as the page embeds it."""
    return json_block(page, "snapshot")


def cli_rows(out: str) -> list[tuple[int, str]]:
    """(rank, name) of each line of ``run_competition``'s final table (a shared rank "5=")."""
    table = out[out.index("rank  bot") :].splitlines()[1:]
    return [(int(m[1]), m[2]) for line in table if (m := re.match(r"\s*(\d+)=?\s+(\S+)", line))]


def one_process(transcripts: list, delta: bool) -> list[bytes]:
    """The bytes one process playing these games in a row was sent, as the transcripts say:
    the first hello, every game's acts and results, the last bye; acts encoded as the
    referee encodes them for a bot that accepted ``history_delta`` or not."""
    messages = [line["sent"] for t in transcripts for line in t.lines if "sent" in line]
    hellos = [m for m in messages if m["type"] == "hello"][:1]
    middle = [m for m in messages if m["type"] not in ("hello", "bye")]
    byes = [m for m in messages if m["type"] == "bye"][-1:]
    encoder = ActEncoder(delta=delta)
    return [
        encoder.encode(m) if m["type"] == "act" else protocol.encode(m)
        for m in [*hellos, *middle, *byes]
    ]


def metric_sample(text: str, name: str, **labels: str) -> float:
    """The value of sample ``name`` with ``labels`` in a Prometheus exposition ``text``
    (0 if absent)."""
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return sample.value
    return 0.0


def process_metric(name: str, **labels: str) -> float:
    """The value of sample ``name`` with ``labels`` as this process exposes it."""
    from config import metrics

    return metric_sample(metrics.exposition(with_queues=False).decode(), name, **labels)


def processes_with_env(marker: str) -> list[int]:
    """Pids of live processes whose environment holds ``marker`` (``NAME=value``)."""
    needle = marker.encode() + b"\0"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and needle in environ + b"\0":
            found.append(int(entry.name))
    return found


# -- look-alike uploads (bots.similarity, bots.links) ------------------------------------

#: A bot's logic kept in a helper module: what two accounts of one person upload twice.
SHARED_HELPER = '''"""Card choice for trick games: lead long suits, follow cheaply, duck if lost."""

RANKS = "23456789TJQKA"


def rank_of(label):
    """The rank of the card in a play label, -1 for any other label."""
    parts = label.split()
    if len(parts) == 2 and len(parts[1]) == 2 and parts[1][0] in RANKS:
        return RANKS.index(parts[1][0])
    return -1


def suit_of(label):
    return label.split()[1][1] if rank_of(label) >= 0 else ""


def suit_lengths(plays):
    counts = {}
    for label in plays:
        counts[suit_of(label)] = counts.get(suit_of(label), 0) + 1
    return counts


def winning_rank(trick, led):
    best = -1
    for _, card in trick:
        if card[1] == led and RANKS.index(card[0]) > best:
            best = RANKS.index(card[0])
    return best


def lead(plays):
    lengths = suit_lengths(plays)
    longest = max(lengths.values())
    candidates = [p for p in plays if lengths[suit_of(p)] == longest]
    return max(candidates, key=rank_of)


def follow(plays, trick):
    led = trick[0][1][1]
    same = [p for p in plays if suit_of(p) == led]
    if not same:
        return min(plays, key=rank_of)
    best = winning_rank(trick, led)
    winners = [p for p in same if rank_of(p) > best]
    if winners:
        return min(winners, key=rank_of)
    return min(same, key=rank_of)


def hand_strength(hand):
    points = 0
    for card in hand:
        if card[0] == "A":
            points += 4
        elif card[0] == "K":
            points += 3
        elif card[0] == "Q":
            points += 2
        elif card[0] == "J":
            points += 1
    return points


def discard(labels, hand):
    lengths = {}
    for card in hand:
        lengths[card[1]] = lengths.get(card[1], 0) + 1
    shortest = min(lengths, key=lambda suit: (lengths[suit], suit))
    throws = [label for label in labels if label.endswith(shortest)]
    return min(throws or labels, key=rank_of)


def bid(labels, hand):
    strength = hand_strength(hand)
    if strength >= 16 and any(label.startswith("bid") for label in labels):
        return max((label for label in labels if label.startswith("bid")), key=len)
    for label in labels:
        if label in ("pass", "keep"):
            return label
    return labels[0]


def choose_card(observation, legal):
    plays = [label for label in legal if label.startswith("play ")]
    hand = observation.get("hand") or []
    if not plays:
        discards = [label for label in legal if label.startswith("discard ")]
        if discards:
            return discard(discards, hand)
        return bid(legal, hand)
    trick = observation.get("trick") or []
    if not trick:
        return lead(plays)
    return follow(plays, trick)
'''
#: How the helper's names are changed in the second account's copy.
HELPER_RENAMES = {
    "RANKS": "ORDER",
    "rank_of": "height",
    "suit_of": "colour",
    "suit_lengths": "colour_counts",
    "winning_rank": "top_so_far",
    "choose_card": "pick",
    "lead": "opening",
    "follow": "answer",
    "plays": "cards",
    "label": "c",
    "counts": "tally",
    "best": "high",
    "candidates": "pool",
    "winners": "beating",
    "hand_strength": "weight",
    "discard": "throw_away",
    "bid": "auction",
    "points": "score",
    "lengths": "sizes",
    "shortest": "thin",
    "throws": "rubbish",
    "strength": "power",
}


def renamed_helper() -> str:
    """:data:`SHARED_HELPER` with every name changed (:data:`HELPER_RENAMES`), its comments
    and docstrings replaced and its blank lines gone: the same logic, other bytes."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, HELPER_RENAMES)) + r")\b")
    text = pattern.sub(lambda m: HELPER_RENAMES[m.group(1)], SHARED_HELPER)
    text = re.sub(r'"""[^"]*"""', '"""tactics"""', text)
    return "\n".join(line for line in text.splitlines() if line.strip()) + "\n"


#: Two entry points written apart: a named class, and a module-level player.
SDK_ENTRY = """from bots.sdk import Bot, run
from strategy import choose_card


class Sly(Bot):
    name = "sly"

    def act(self, observation, legal):
        return choose_card(observation, legal)


run(Sly())
"""
OTHER_ENTRY = """import tactics
from bots import sdk

player = type("Player", (sdk.Bot,), {"act": lambda self, seen, moves: tactics.pick(seen, moves)})
if __name__ == "__main__":
    sdk.run(player())
"""


def zip_upload(files: dict[str, str]) -> bytes:
    """A zip archive of ``files`` (name -> text), as an author uploads one."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def lookalike_uploads() -> tuple[bytes, bytes]:
    """Two uploads sharing :data:`SHARED_HELPER`'s logic behind different entry points:
    ``main.py`` + ``strategy.py``, and ``bot.py`` + ``tactics.py`` (renamed)."""
    return (
        zip_upload({"main.py": SDK_ENTRY, "strategy.py": SHARED_HELPER}),
        zip_upload({"bot.py": OTHER_ENTRY, "tactics.py": renamed_helper()}),
    )
