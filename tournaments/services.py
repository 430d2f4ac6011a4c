"""Writes of the competition domain: create, enter, start, pair, record, close.

Every entry point (API, admin, commands, Celery tasks) calls these functions.
User errors raise ``django.core.exceptions.ValidationError`` with a message
naming the problem; state changes are guarded by row locks so that a second
call (a retry, a redelivered task) never changes anything twice.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

import games
from bots.builtin import make
from bots.models import Bot, BotVersion
from bots.referee import InProcessPlayer, ProcessPlayer, TimeControl, play_match
from bots.selectors import version_for_play
from bots.services import bot_version_path
from tournaments import deals, events, pairing
from tournaments.formats import league, match_result
from tournaments.models import Competition, Entry, GameRecord, Match, MatchSeat, RatingEvent, Round
from tournaments.ratings import (
    PARTNER_SEATS,
    Rating,
    TableResult,
    inherit,
    rate_game,
    table_points,
)

Format = Competition.Format
KIND_FORMATS = {
    Competition.Kind.LEAGUE_SEASON: {Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN},
    Competition.Kind.TOURNAMENT: {
        Format.ROUND_ROBIN,
        Format.DOUBLE_ROUND_ROBIN,
        Format.SWISS,
        Format.SINGLE_ELIMINATION,
        Format.DOUBLE_ELIMINATION,
    },
    Competition.Kind.LADDER: {Format.LADDER},
}


KNOCKOUTS = frozenset({Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION})
#: The most play-off games a competition may allow a level knockout match.
PLAYOFF_GAMES_MAX = 40


def is_partnership(variant: str) -> bool:
    return variant == "maniglia-4-partners"


def _check_table(game, *, format: str, seats_per_table: int | None, playoff_games_cap: int):
    """``ValidationError`` naming a seat count or play-off cap the competition cannot use."""
    if seats_per_table is not None and seats_per_table != game.num_players:
        raise ValidationError(
            {
                "seats_per_table": f"{game.id} is played at {game.num_players} seats, "
                f"not {seats_per_table}"
            }
        )
    if format == Format.DOUBLE_ELIMINATION and game.num_players != 2:
        raise ValidationError(
            {
                "format": f"double elimination needs a two-player variant; {game.id} "
                f"seats {game.num_players}"
            }
        )
    if (
        isinstance(playoff_games_cap, bool)
        or not isinstance(playoff_games_cap, int)
        or not 0 <= playoff_games_cap <= PLAYOFF_GAMES_MAX
    ):
        raise ValidationError(
            {
                "playoff_games_cap": f"playoff_games_cap must be an integer from 0 to "
                f"{PLAYOFF_GAMES_MAX}, got {playoff_games_cap!r}"
            }
        )


def can_manage(*, competition: Competition, user) -> bool:
    """Staff, the creator and the organisers may change a competition."""
    if user is None or not user.is_authenticated:
        return False
    return (
        user.is_staff
        or competition.created_by_id == user.pk
        or competition.organisers.filter(pk=user.pk).exists()
    )


def _require_manager(competition: Competition, user) -> None:
    if user is not None and not can_manage(competition=competition, user=user):
        raise PermissionDenied("only the competition's organisers may do this")


def competition_create(
    *,
    created_by,
    name: str,
    kind: str,
    variant: str,
    options: dict[str, Any] | None = None,
    format: str,
    games_per_match: int = 6,
    duplicate: bool = True,
    move_ms: int = 2_000,
    bank_ms: int = 20_000,
    rounds_planned: int | None = None,
    is_public: bool = True,
    full_replays_after_end: bool = False,
    seed: int | None = None,
    seats_per_table: int | None = None,
    playoff_games_cap: int = 4,
) -> Competition:
    """A new competition in ``draft``; its settings are checked against the variant.

    ``seats_per_table``, if given, must be the variant's number of players.
    ``playoff_games_cap`` (0..:data:`PLAYOFF_GAMES_MAX`) bounds the play-off games of a
    level knockout match (docs/competitions.md).

    Without ``seed`` its deals are drawn from a fresh secret (``tournaments.deals``),
    hidden until it ends. With ``seed`` they follow from that seed and public values,
    so they are reproducible, and predictable to whoever knows the seed.
    """
    try:
        game = games.load(variant, **(options or {}))
    except ValueError as exc:
        raise ValidationError({"variant": str(exc)}) from None
    if kind not in Competition.Kind.values:
        raise ValidationError({"kind": f"unknown kind {kind!r}"})
    if format not in KIND_FORMATS[kind]:
        allowed = ", ".join(sorted(KIND_FORMATS[kind]))
        raise ValidationError({"format": f"a {kind} uses one of: {allowed}; got {format!r}"})
    _check_table(
        game, format=format, seats_per_table=seats_per_table, playoff_games_cap=playoff_games_cap
    )
    if format == Format.SWISS and not rounds_planned:
        raise ValidationError({"rounds_planned": "a Swiss tournament needs its number of rounds"})
    if duplicate and games_per_match % game.num_players:
        raise ValidationError(
            {
                "games_per_match": f"duplicate matches need a multiple of "
                f"{game.num_players} games"
            }
        )
    if games_per_match < 1 or move_ms < 1 or bank_ms < 0:
        raise ValidationError("games per match and the time control must be positive")
    competition = Competition.objects.create(
        name=name,
        kind=kind,
        variant=variant,
        options=dict(game.options),
        format=format,
        games_per_match=games_per_match,
        duplicate=duplicate,
        move_ms=move_ms,
        bank_ms=bank_ms,
        rounds_planned=rounds_planned,
        is_public=is_public,
        full_replays_after_end=full_replays_after_end,
        seed=0 if seed is None else seed,
        deal_secret=deals.new_secret() if seed is None else "",
        created_by=created_by,
        seats_per_table=game.num_players,
        playoff_games_cap=playoff_games_cap,
    )
    if created_by is not None:
        competition.organisers.add(created_by)
    return competition


@transaction.atomic
def entry_create(
    *, competition: Competition, bot: Bot, by=None, pinned_version: BotVersion | None = None
) -> Entry:
    """Enter ``bot``: only its owner (or staff), only while the competition is a draft."""
    if by is not None and not (by.is_staff or bot.owner_id == by.pk or bot.builtin):
        raise PermissionDenied("you may only enter your own bots")
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError("entries close when the competition starts")
    if pinned_version is not None and pinned_version.bot_id != bot.pk:
        raise ValidationError({"pinned_version": "that version belongs to another bot"})
    if competition.entries.filter(bot=bot).exists():
        raise ValidationError({"bot": f"{bot} is already entered"})
    order = competition.entries.count()
    return Entry.objects.create(
        competition=competition, bot=bot, pinned_version=pinned_version, seed_order=order
    )


def entry_withdraw(*, entry: Entry, by=None) -> Entry:
    if by is not None and not (
        by.is_staff
        or entry.bot.owner_id == by.pk
        or can_manage(competition=entry.competition, user=by)
    ):
        raise PermissionDenied("only the bot's owner or the organisers may withdraw it")
    if entry.competition.status == Competition.Status.DRAFT:
        entry.delete()
    else:
        entry.withdrawn = True
        entry.save(update_fields=["withdrawn"])
    return entry


def match_seed(competition: Competition, round_number: int, table: int) -> int:
    """The seed of a match, from the competition's secret (or its chosen seed)."""
    where = {"competition_id": competition.pk, "round_number": round_number, "table": table}
    if competition.deal_secret:
        return deals.match_seed_from_secret(competition.deal_secret, **where)
    return deals.match_seed_from_seed(competition.seed, **where)


@transaction.atomic
def competition_start(*, competition: Competition, by=None) -> list[Match]:
    """Draft to running, and the first matches paired. Raises if it cannot start."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    _require_manager(competition, by)
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError(f"the competition is {competition.status}, not a draft")
    entries = list(competition.entries.filter(withdrawn=False))
    if len(entries) < competition.seats_per_table:
        raise ValidationError(
            f"{competition.variant} needs at least "
            f"{competition.seats_per_table} entries, got {len(entries)}"
        )
    competition.status = Competition.Status.RUNNING
    competition.save(update_fields=["status"])
    try:
        matches = _pair_next(competition)
    except ValueError as exc:  # e.g. a bracket these entries cannot fill
        raise ValidationError(f"cannot pair the first round: {exc}") from None
    transaction.on_commit(
        partial(events.announce_competition_started, competition_id=competition.pk), robust=True
    )
    return matches


def _pair_next(competition: Competition) -> list[Match]:
    """Create the next round (or ladder batch) the format calls for, if any."""
    number = (
        competition.rounds.order_by("-number").values_list("number", flat=True).first() or 0
    ) + 1
    plan = pairing.next_round(competition, number)
    if plan is None:
        return []
    round_ = Round.objects.create(
        competition=competition, number=number, status=Round.Status.RUNNING
    )
    if plan.byes:
        round_.byes.set(plan.byes)
    # Two inserts whatever the number of tables: pairing a ladder batch of
    # thousands of entries must not cost a query per match.
    matches = Match.objects.bulk_create(
        [
            Match(
                competition=competition,
                round=round_,
                table=t,
                node=node,
                seed=match_seed(competition, number, t),
            )
            for t, (_, node) in enumerate(plan.tables)
        ]
    )
    MatchSeat.objects.bulk_create(
        [
            MatchSeat(match=match, seat=s, entry_id=entry_id)
            for match, (table, _) in zip(matches, plan.tables, strict=True)
            for s, entry_id in enumerate(table)
        ]
    )
    return matches


def match_ranks(result: dict[str, Any], players: int, teams=None) -> list[int]:
    """Rank of each player in a match: game points, then total score; ties share.

    The one rule of every format (``tournaments.formats.match_result``,
    docs/competitions.md); play-off games (``result["playoff"]``) never count here.
    """
    return match_result.match_ranks(result["games"], players, teams)


def _playoff_set_size(competition: Competition) -> int:
    """Games of one play-off set: one fresh deal, once per seat rotation if duplicate."""
    return competition.seats_per_table if competition.duplicate else 1


def _playoff_cap(competition: Competition) -> int:
    """The play-off games a level match may take: whole sets within the competition's cap."""
    size = _playoff_set_size(competition)
    return competition.playoff_games_cap // size * size


def match_decision(
    *, competition: Competition, match: Match, result: dict[str, Any], playing: bool = False
) -> match_result.Decision:
    """The ranks a match records and how its winner was found.

    Knockouts: :func:`tournaments.formats.match_result.knockout_decision` with the
    play-off games of ``result["playoff"]``. When recording, a match still level after
    them goes to the lot; while ``playing`` (:func:`match_play`), ``needs_playoff``
    says whether the competition's cap leaves room for another play-off set.
    Other formats: the match ranks, level seats sharing a rank.
    """
    players = len(result["players"])
    teams = PARTNER_SEATS if is_partnership(competition.variant) else None
    if competition.format not in KNOCKOUTS:
        return match_result.Decision(tuple(match_ranks(result, players, teams)))
    playoff = result.get("playoff") or []
    return match_result.knockout_decision(
        result["games"],
        players,
        seed=match.seed,
        playoff=playoff,
        playoff_cap=_playoff_cap(competition) if playing else len(playoff),
        teams=teams,
    )


@transaction.atomic
def match_record_result(*, match: Match, result: dict[str, Any]) -> bool:
    """Store a played match, its records and the rating update, once.

    ``result`` is ``bots.referee.MatchResult.to_json()`` with players in seat
    order of the match (and, for a level knockout match, its ``playoff`` games, as
    :func:`match_play` returns them). Returns False (and changes nothing) if the match
    was already recorded. The competition row is locked so rating updates are
    applied one match at a time, in the order results are recorded.

    The seats record the match's ranks (a knockout's with its tie-break, see
    :func:`match_decision`); ratings and points are updated from the ranks of the
    match's own games, where level seats stay level.
    """
    competition = Competition.objects.select_for_update().get(pk=match.competition_id)
    match = Match.objects.select_for_update().get(pk=match.pk)
    if match.status == Match.Status.DONE:
        return False
    seats = list(match.seats.select_related("entry").order_by("seat"))
    if len(result.get("players", ())) != len(seats) or not result.get("games"):
        raise ValidationError("the result does not fit the match's seats")
    teams = PARTNER_SEATS if is_partnership(competition.variant) else None
    decision = match_decision(competition=competition, match=match, result=result)
    points = match_result.game_points(result["games"], len(seats), teams)
    _store_games(match, result)
    _store_seats(seats, result, list(decision.ranks), points)
    _rate(
        competition,
        match,
        seats,
        match_ranks(result, len(seats), teams),
        teams,
        result.get("versions"),
    )
    _played_versions(seats, result)
    match.status = Match.Status.DONE
    match.finished_at = timezone.now()
    match.decided_by = decision.decided_by
    match.save(update_fields=["status", "finished_at", "decided_by"])
    _finish_round_if_complete(competition, match)
    transaction.on_commit(partial(events.announce_match_recorded, match_id=match.pk), robust=True)
    return True


def _store_games(match: Match, result: dict[str, Any]) -> None:
    games_ = [(0, game) for game in result["games"]]
    games_ += [(game.get("playoff", 1), game) for game in result.get("playoff") or []]
    GameRecord.objects.bulk_create(
        [
            GameRecord(
                match=match,
                index=game["index"],
                playoff=playoff,
                scores=game["scores"],
                ranking=game["ranking"],
                statuses=game["statuses"],
                data=GameRecord.pack(game["record"]),
            )
            for playoff, game in games_
        ]
    )


def _store_seats(
    seats: list[MatchSeat], result: dict[str, Any], ranks: list[int], points: list[float]
) -> None:
    standings = result.get("standings") or [{} for _ in seats]
    logs = result.get("logs") or ["" for _ in seats]
    for player, seat in enumerate(seats):
        row = standings[player]
        seat.score = row.get("score", 0)
        seat.points = points[player]
        seat.rank = ranks[player]
        seat.wins = row.get("wins", 0)
        seat.statuses = row.get("statuses", {})
        seat.log = logs[player][-8_000:]
    MatchSeat.objects.bulk_update(seats, ["score", "points", "rank", "wins", "statuses", "log"])


def _played_versions(seats: list[MatchSeat], result: dict[str, Any]) -> None:
    """Note on each seat the bot version that played (``result["versions"]``)."""
    versions = result.get("versions") or [None] * len(seats)
    for seat, version in zip(seats, versions, strict=False):
        seat.version_id = version
    MatchSeat.objects.bulk_update(seats, ["version"])


def _starting_rating(entry: Entry, version_id: int | None) -> Rating:
    """The entry's rating, widened when a new version of its bot plays for the first time."""
    rating = Rating(entry.mu, entry.sigma)
    if version_id is None:
        return rating
    last = (
        MatchSeat.objects.filter(entry=entry, match__status=Match.Status.DONE)
        .exclude(version=None)
        .order_by("-match_id")
        .values_list("version_id", flat=True)
        .first()
    )
    if last is not None and last != version_id:
        return inherit(rating.mu, rating.sigma)  # a new version: same mu, wider sigma
    return rating


def _rate(
    competition: Competition,
    match: Match,
    seats: list[MatchSeat],
    ranks: list[int],
    teams,
    versions: list[int | None] | None,
) -> None:
    entries = {
        s.entry_id: Entry.objects.select_for_update().get(pk=s.entry_id)
        for s in sorted(seats, key=lambda s: s.entry_id)
    }
    played = dict(zip([s.entry_id for s in seats], versions or [None] * len(seats), strict=True))
    before = {e: _starting_rating(entries[e], played[e]) for e in entries}
    table = [s.entry_id for s in seats]
    after = rate_game(before, table, ranks, teams=teams)
    points = table_points(TableResult(tuple(table), tuple(ranks), teams))
    competition.rating_sequence += 1  # the competition row is locked by the caller
    competition.save(update_fields=["rating_sequence"])
    sequence = competition.rating_sequence
    games_played = competition.games_per_match
    for entry_id, entry in entries.items():
        RatingEvent.objects.create(
            entry=entry,
            match=match,
            sequence=sequence,
            mu_before=before[entry_id].mu,
            sigma_before=before[entry_id].sigma,
            mu_after=after[entry_id].mu,
            sigma_after=after[entry_id].sigma,
        )
        entry.mu, entry.sigma = after[entry_id].mu, after[entry_id].sigma
        entry.games += games_played
        entry.points += points[entry_id]
        entry.save(update_fields=["mu", "sigma", "games", "points"])


def _finish_round_if_complete(competition: Competition, match: Match) -> None:
    round_ = match.round
    if round_ is None or round_.matches.exclude(status=Match.Status.DONE).exists():
        return
    round_.status = Round.Status.FINISHED
    round_.save(update_fields=["status"])
    if competition.format == Format.LADDER and settings.CARDROOM_LADDER_PAUSE_S > 0:
        return  # a paced ladder: the reaper pairs the next batch after the pause
    if not _pair_next(competition) and competition.format != Format.LADDER:
        competition.status = Competition.Status.FINISHED
        competition.save(update_fields=["status"])


def _players(match: Match, seed: int) -> tuple[list, list[int | None]]:
    """Fresh players for the seats of ``match`` (built-ins seeded from ``seed``), and the
    bot version each uploaded bot plays (None for built-ins)."""
    players, versions = [], []
    for seat in match.seats.select_related("entry__bot").order_by("seat"):
        bot = seat.entry.bot
        if bot.builtin:
            versions.append(None)
            players.append(
                InProcessPlayer(
                    make(bot.builtin, seed=deals.player_seed(seed, seat.seat)), name=str(bot)
                )
            )
            continue
        version = version_for_play(bot=bot, pinned=seat.entry.pinned_version)
        if version is None:
            raise ValidationError(f"{bot} has no ready version to play")
        players.append(ProcessPlayer.from_path(bot_version_path(version=version)))
        versions.append(version.pk)
    return players, versions


def match_play(*, match: Match) -> dict[str, Any]:
    """Play ``match`` with the referee (no database writes) and return its JSON result.

    Built-in bots run in-process; uploaded bots run sandboxed from the version
    the entry pins, else the bot's newest ready version. A knockout match that is
    level at the cut after its games (on game points and total score) goes on with
    play-off sets in the same run, each on one fresh deal (played once per seat
    rotation if the competition is duplicate, by fresh players), until the cut is
    made or the competition's ``playoff_games_cap`` leaves no room for another set.
    The play-off games are returned as ``result["playoff"]``, numbered after the
    match's games and marked with their set (``"playoff": 1, 2, ...``).
    """
    competition = match.competition
    players, versions = _players(match, match.seed)
    out = _play(competition, players, competition.games_per_match, match.seed).to_json()
    out["versions"] = versions
    out["playoff"] = []
    if competition.format not in KNOCKOUTS:
        return out
    size, cap = _playoff_set_size(competition), _playoff_cap(competition)
    while len(out["playoff"]) + size <= cap:
        decision = match_decision(competition=competition, match=match, result=out, playing=True)
        if not decision.needs_playoff:
            break
        number = len(out["playoff"]) // size + 1
        seed = deals.playoff_seed(match.seed, number)
        fresh, _ = _players(match, seed)
        extra = _play(competition, fresh, size, seed).to_json()
        for game in extra["games"]:
            game["playoff"] = number
        _renumber(out, extra["games"])
        out["logs"] = [a + b for a, b in zip(out["logs"], extra["logs"], strict=True)]
    return out


def _renumber(out: dict[str, Any], games_: list[dict[str, Any]]) -> None:
    first = len(out["games"]) + len(out["playoff"])
    for offset, game in enumerate(games_):
        game["index"] = first + offset
        out["playoff"].append(game)


def _play(competition: Competition, players: list, games_count: int, seed: int):
    return play_match(
        competition.variant,
        players,
        games_count=games_count,
        seed=seed,
        options=competition.options,
        duplicate=competition.duplicate,
        time_control=TimeControl(move_ms=competition.move_ms, bank_ms=max(1, competition.bank_ms)),
    )


@transaction.atomic
def league_assign_divisions(
    *, competition: Competition, division_size: int, by=None
) -> list[list[int]]:
    """Cut a draft league season's entries into divisions, strongest (by rating) first."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    _require_manager(competition, by)
    if competition.kind != Competition.Kind.LEAGUE_SEASON:
        raise ValidationError("divisions are for league seasons")
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError("divisions are set before the season starts")
    entries = list(competition.entries.order_by("seed_order", "id"))
    ratings = {e.pk: Rating(e.mu, e.sigma).display for e in entries}
    try:
        divisions = league.league_divisions(
            [e.pk for e in entries],
            division_size,
            ratings=ratings,
            table_size=competition.seats_per_table,
        )
    except ValueError as exc:
        raise ValidationError({"division_size": str(exc)}) from None
    _set_divisions(divisions)
    return [list(d) for d in divisions]


def _set_divisions(divisions) -> None:
    for number, members in enumerate(divisions):
        Entry.objects.filter(pk__in=members).update(division=number)


@transaction.atomic
def league_next_season(
    *, competition: Competition, promote: int, name: str | None = None, by=None
) -> Competition:
    """The next season of a finished league: same settings, ratings carried over, the top
    ``promote`` of each division moved up and the bottom ``promote`` moved down."""
    _require_manager(competition, by)
    if competition.kind != Competition.Kind.LEAGUE_SEASON:
        raise ValidationError("only league seasons have a next season")
    if competition.status != Competition.Status.FINISHED:
        raise ValidationError("the season is not finished yet")
    from tournaments.selectors import standings_for_competition

    rows = standings_for_competition(competition=competition)
    division_of = dict(competition.entries.values_list("pk", "division"))
    orders: dict[int, list[int]] = {}
    for row in rows:
        orders.setdefault(division_of[row["entry"]], []).append(row["entry"])
    try:
        divisions = league.league_next_season([orders[d] for d in sorted(orders)], promote=promote)
    except ValueError as exc:
        raise ValidationError({"promote": str(exc)}) from None
    season = Competition.objects.create(
        name=name or f"{competition.name} (next season)",
        kind=competition.kind,
        variant=competition.variant,
        options=competition.options,
        format=competition.format,
        games_per_match=competition.games_per_match,
        duplicate=competition.duplicate,
        seats_per_table=competition.seats_per_table,
        move_ms=competition.move_ms,
        bank_ms=competition.bank_ms,
        rating_settings=competition.rating_settings,
        seed=competition.seed + 1,
        # A secret season's next season gets a secret of its own; a seeded one stays seeded.
        deal_secret=deals.new_secret() if competition.deal_secret else "",
        is_public=competition.is_public,
        created_by=competition.created_by,
    )
    season.organisers.set(competition.organisers.all())
    old = {e.pk: e for e in competition.entries.all()}
    order = [e for division in divisions for e in division]
    Entry.objects.bulk_create(
        [
            Entry(
                competition=season,
                bot_id=old[e].bot_id,
                pinned_version=old[e].pinned_version,
                seed_order=i,
                mu=old[e].mu,
                sigma=old[e].sigma,
            )
            for i, e in enumerate(order)
        ]
    )
    new_ids = dict(season.entries.values_list("bot_id", "pk"))
    _set_divisions([[new_ids[old[e].bot_id] for e in division] for division in divisions])
    return season


#: What an organiser may change at any time (the rest is fixed at creation).
COMPETITION_UPDATABLE = frozenset({"name", "is_public", "full_replays_after_end"})


@transaction.atomic
def competition_update(*, competition: Competition, by=None, **changes: Any) -> Competition:
    """Rename, publish or hide a competition, or allow full replays after its end."""
    unknown = set(changes) - COMPETITION_UPDATABLE
    if unknown:
        allowed = ", ".join(sorted(COMPETITION_UPDATABLE))
        raise ValidationError(f"cannot change {', '.join(sorted(unknown))}; only {allowed}")
    if "name" in changes and not str(changes["name"]).strip():
        raise ValidationError({"name": "a competition needs a name"})
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    _require_manager(competition, by)
    for field, value in changes.items():
        setattr(competition, field, value)
    competition.save(update_fields=sorted(changes))
    return competition


@transaction.atomic
def competition_close(*, competition: Competition, by=None) -> Competition:
    """End a competition now (a ladder or a cancelled event); pending matches are dropped."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    _require_manager(competition, by)
    if competition.status in (Competition.Status.FINISHED, Competition.Status.CANCELLED):
        raise ValidationError(f"the competition is already {competition.status}")
    competition.matches.filter(status__in=[Match.Status.PENDING, Match.Status.QUEUED]).delete()
    competition.status = (
        Competition.Status.FINISHED
        if competition.status == Competition.Status.RUNNING
        else Competition.Status.CANCELLED
    )
    competition.save(update_fields=["status"])
    return competition
