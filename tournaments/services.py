"""Writes of the competition domain: create, enter, start, pair, record, close.

Every entry point (API, admin, commands, Celery tasks) calls these functions.
User errors raise ``django.core.exceptions.ValidationError`` with a message
naming the problem; state changes are guarded by row locks so that a second
call (a retry, a redelivered task) never changes anything twice.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import F, Max, OuterRef, Subquery
from django.utils import timezone

import games
from bots.builtin import make
from bots.models import Bot, BotVersion
from bots.referee import InProcessPlayer, ProcessPlayer, TimeControl, play_match
from bots.referee.match import GameResult, MatchResult
from bots.selectors import bot_will_play, version_for_play, version_will_play
from bots.services import bot_version_path
from tournaments import allowances, deals, events, pairing, recording, selectors
from tournaments.formats import league, match_result
from tournaments.models import (
    Competition,
    Entry,
    GameRecord,
    Match,
    MatchSeat,
    RatingEvent,
    Round,
    TableExclusion,
)
from tournaments.permissions import can_manage
from tournaments.ratings import (
    PARTNER_SEATS,
    Rating,
    TableResult,
    inherit,
    rate_game,
    soft_play,
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
    try:
        return games.variant_info(variant).partnership  # seats play in teams
    except ValueError:  # not a registered variant
        return False


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


def _check_league(
    kind: str, seats: int, *, division_size: int | None, promote: int, relegate: int | None
) -> None:
    """``ValidationError`` naming the division setting a competition of ``kind`` played at
    ``seats`` seats cannot use (module ``formats.league``; the entries are checked at the
    start, when their number is known)."""
    if kind != Competition.Kind.LEAGUE_SEASON:
        if division_size is not None:
            raise ValidationError({"division_size": "divisions are for league seasons"})
        if promote or relegate:
            raise ValidationError({"promote": "promotion and relegation are for league seasons"})
        return
    if division_size is not None and (
        isinstance(division_size, bool)
        or not isinstance(division_size, int)
        or division_size < seats
    ):
        raise ValidationError(
            {
                "division_size": f"a division needs at least one table: {seats} entries or "
                f"more, got {division_size!r}"
            }
        )
    if isinstance(promote, bool) or not isinstance(promote, int) or promote < 0:
        raise ValidationError({"promote": f"promote must be an integer >= 0, got {promote!r}"})
    if relegate is not None and relegate != promote:
        raise ValidationError(
            {
                "relegate": f"relegate ({relegate}) must equal promote ({promote}): those "
                "going down make room for those coming up, so division sizes stay"
            }
        )
    if promote and division_size is None:
        raise ValidationError(
            {"promote": "promotion and relegation need divisions: give a division_size"}
        )
    if promote and promote >= division_size:
        raise ValidationError(
            {
                "promote": f"promote ({promote}) must be smaller than a division "
                f"(division_size {division_size})"
            }
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
    pace_ms: int = 0,
    rounds_planned: int | None = None,
    is_public: bool = True,
    full_replays_after_end: bool = False,
    same_owner_tables: bool = False,
    seed: int | None = None,
    seats_per_table: int | None = None,
    playoff_games_cap: int = 4,
    division_size: int | None = None,
    promote: int = 0,
    relegate: int | None = None,
) -> Competition:
    """A new competition in ``draft``; its settings are checked against the variant.

    League seasons only: ``division_size`` (the most entries a division holds; None for
    one division) and ``promote``, how many go up from each division and down from the
    one above between seasons; ``relegate``, if given, must equal it (docs/leagues.md).

    ``seats_per_table``, if given, must be the variant's number of players.
    ``playoff_games_cap`` (0..:data:`PLAYOFF_GAMES_MAX`) bounds the play-off games of a
    level knockout match (docs/competitions.md).

    Without ``seed`` its deals are drawn from a fresh secret (``tournaments.deals``),
    hidden until it ends. With ``seed`` they follow from that seed and public values,
    so they are reproducible, and predictable to whoever knows the seed.
    """
    if variant not in games.variants():
        known = ", ".join(games.variants())
        raise ValidationError({"variant": f"unknown variant {variant!r} (known: {known})"})
    try:
        game = games.load(variant, **(options or {}))
    except ValueError as exc:  # the variant is known: its options are wrong
        raise ValidationError({"options": str(exc)}) from None
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
    if same_owner_tables and is_public:
        raise ValidationError(
            {"same_owner_tables": "only a private competition may waive one bot per owner a table"}
        )
    _check_league(
        kind, game.num_players, division_size=division_size, promote=promote, relegate=relegate
    )
    if games_per_match < 1 or move_ms < 1 or bank_ms < 0 or pace_ms < 0:
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
        pace_ms=pace_ms,
        rounds_planned=rounds_planned,
        is_public=is_public,
        full_replays_after_end=full_replays_after_end,
        same_owner_tables=same_owner_tables,
        seed=0 if seed is None else seed,
        deal_secret=deals.new_secret() if seed is None else "",
        created_by=created_by,
        seats_per_table=game.num_players,
        playoff_games_cap=playoff_games_cap,
        division_size=division_size,
        promote=promote,
    )
    if created_by is not None:
        competition.organisers.add(created_by)
    return competition


@transaction.atomic
def entry_create(
    *, competition: Competition, bot: Bot, by=None, pinned_version: BotVersion | None = None
) -> Entry:
    """Enter ``bot``: only its owner (or staff), only while the competition is a draft,
    or while it is a ladder not yet ended (its next batches pair the new entry too).

    An entry ``by`` a user into an open ladder they do not manage counts against the
    owner's ``ladder_entries`` allowance (``tournaments.allowances``).

    A shared built-in bot belongs to nobody: only the competition's organisers (and
    staff) enter one, so nobody puts a strong built-in into a competition they do not run.
    Raises ``PermissionDenied`` saying which of the two was refused."""
    if by is not None and not (by.is_staff or bot.owner_id == by.pk):
        if not bot.builtin:
            raise PermissionDenied("you may only enter your own bots")
        if not can_manage(competition=competition, user=by):
            raise PermissionDenied(
                f"only the organisers of {competition.name} (or staff) may enter "
                f"the built-in bot {bot.name}"
            )
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    if competition.status not in entries_open_statuses(competition.format):
        raise ValidationError("entries close when the competition starts (ladders: when it ends)")
    if pinned_version is not None and pinned_version.bot_id != bot.pk:
        raise ValidationError({"pinned_version": "that version belongs to another bot"})
    if competition.entries.filter(bot=bot).exists():
        raise ValidationError({"bot": f"{bot} is already entered"})
    _require_version_to_come(bot, pinned_version)
    _require_variant(bot, pinned_version, competition.variant)
    if by is not None and bot.owner_id is not None:  # a user's entry: their allowance
        manages = can_manage(competition=competition, user=by)
        allowances.ladder_entry_allowed(user=bot.owner, competition=competition, manages=manages)
    order = competition.entries.count()
    # A later season's divisions come from the last one; a newcomer starts at the bottom.
    bottom = competition.entries.aggregate(bottom=Max("division"))["bottom"] or 0
    return Entry.objects.create(
        competition=competition,
        bot=bot,
        pinned_version=pinned_version,
        seed_order=order,
        division=bottom if competition.previous_season_id else 0,
    )


def _require_version_to_come(bot: Bot, pinned: BotVersion | None) -> None:
    """Refuse an uploaded bot that has nothing to play and nothing on the way: no version
    ready, pending or being validated (the ``pinned`` one, if given)."""
    if bot.builtin:
        return
    rejected = BotVersion.Status.REJECTED
    if pinned is not None:
        if pinned.status == rejected:
            raise ValidationError({"pinned_version": f"version {pinned.number} was rejected"})
        return
    if not bot.versions.exclude(status=rejected).exists():
        raise ValidationError(
            {"bot": f"{bot} has no version to play: upload one (and let it pass validation)"}
        )


def _require_variant(bot: Bot, pinned: BotVersion | None, variant: str) -> None:
    """Refuse a bot that cannot play ``variant``: it (the ``pinned`` version, if given)
    neither passed that variant's validation nor is still to be validated in it."""
    if pinned is not None and not version_will_play(version=pinned, variant=variant):
        raise ValidationError(
            {
                "pinned_version": f"version {pinned.number} of {bot} has not passed validation "
                f"in {variant}: ask for it to be validated in {variant} first"
            }
        )
    if pinned is None and not bot_will_play(bot=bot, variant=variant):
        raise ValidationError(
            {
                "bot": f"{bot} has not passed validation in {variant}: declare {variant} "
                f"and upload a version, or ask for one to be validated in {variant}"
            }
        )


def entries_open_statuses(format: str) -> tuple[str, ...]:
    """The statuses in which a competition of ``format`` takes entries."""
    if format == Format.LADDER:
        return (Competition.Status.DRAFT, Competition.Status.RUNNING, Competition.Status.PAUSED)
    return (Competition.Status.DRAFT,)


def _require_withdrawer(entry: Entry, by) -> None:
    if by is not None and not (
        by.is_staff
        or entry.bot.owner_id == by.pk
        or can_manage(competition=entry.competition, user=by)
    ):
        raise PermissionDenied("only the bot's owner or the organisers may withdraw it")


def entry_withdraw(*, entry: Entry, by=None) -> Entry:
    _require_withdrawer(entry, by)
    if entry.competition.status == Competition.Status.DRAFT:
        entry.delete()
    else:
        entry.withdrawn = True
        entry.save(update_fields=["withdrawn"])
    return entry


@transaction.atomic
def entry_remove(*, entry: Entry, by=None) -> Entry:
    """Take an entry out of a draft (``entry_withdraw``, which deletes it there), or out
    of a ladder in play (it is withdrawn: paired no more, its results stay).

    Refused once any other competition has started: its schedule, matches and
    standings count the entry, which stays (the API's ``withdraw`` is this same door)."""
    _require_withdrawer(entry, by)
    competition = Competition.objects.select_for_update().get(pk=entry.competition_id)
    in_play = (Competition.Status.RUNNING, Competition.Status.PAUSED)
    if competition.format == Format.LADDER and competition.status in in_play:
        entry.competition = competition
        return entry_withdraw(entry=entry, by=by)
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError(
            f"{entry.bot} cannot be removed: {competition.name} has started (it is "
            f"{competition.status}); entries are removed only before the start"
        )
    entry.competition = competition
    return entry_withdraw(entry=entry, by=by)


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
    if competition.format != Format.LADDER:  # a ladder pairs an entry once it can play
        waiting = competition.entries.filter(withdrawn=False).exclude(
            pairing.playable(competition.variant)
        )
        names = [str(entry.bot) for entry in waiting.select_related("bot__owner")]
        if names:
            raise ValidationError(
                f"no ready version to play yet: {', '.join(names)} (wait for the validation"
                " of their upload, or withdraw them)"
            )
    if competition.kind == Competition.Kind.LEAGUE_SEASON:
        _league_divisions_at_start(competition)
    problem = pairing.fair_play_problem(competition)
    if problem:
        raise ValidationError(f"cannot keep bots of one owner apart: {problem}")
    competition.status = Competition.Status.RUNNING
    competition.save(update_fields=["status"])
    try:
        matches = _pair_next(competition)
    except ValueError as exc:  # e.g. a bracket these entries cannot fill
        raise ValidationError(f"cannot pair the first round: {exc}") from None
    _notify(competition.pk, events.COMPETITION_STARTED)
    return matches


def _notify(competition_id: int, *changes: str, match_id: int | None = None, round_=None) -> None:
    """The notification of ``changes`` (``tournaments.events``) once the transaction commits."""
    transaction.on_commit(
        partial(
            events.notify,
            competition_id=competition_id,
            changes=list(changes),
            match_id=match_id,
            round_number=round_,
        ),
        robust=True,
    )


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
    # The one place that announces a new round (start, next round, ladder batch).
    _notify(competition.pk, events.ROUND_STARTED, round_=number)
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


#: The first key of the advisory lock that serialises a competition's pairings.
PAIRING_LOCK_CLASS = 0x43_52_50  # "CRP"


def _locked_for_pairing(competition_id: int) -> Competition:
    """The competition, read once the caller's transaction may pair its next round (or
    ladder batch): no one else pairs it until that transaction ends.

    On PostgreSQL the row is only key-share locked and the pairers of the competition
    queue on a transaction-level advisory lock: a status change (which locks the row
    ``FOR UPDATE``) still waits for a pairing and is waited for, but recording a result,
    whose rating sequence updates the row, does not wait for a pairing (about 8 ms a
    round of a 46-entry round robin, while every other worker recorded nothing). The row
    is read again once the advisory lock is held, as the pairer before may have
    finished the competition. Elsewhere the row is locked ``FOR UPDATE``.
    """
    if connection.vendor != "postgresql":
        return Competition.objects.select_for_update().get(pk=competition_id)
    table = connection.ops.quote_name(Competition._meta.db_table)
    with connection.cursor() as cursor:
        # The row first: whoever holds it FOR UPDATE (pause, resume) and then pairs
        # (``competition_resume``) can never wait for this transaction's advisory lock.
        cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR KEY SHARE", [competition_id])
        if cursor.fetchone() is None:
            raise Competition.DoesNotExist(f"no competition {competition_id}")
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s, %s)",
            [PAIRING_LOCK_CLASS, competition_id % 2**31],  # two competitions may share a key
        )
    return Competition.objects.get(pk=competition_id)


@transaction.atomic
def ladder_pair_batch(*, competition: Competition) -> list[Match]:
    """The next batch of a running ladder with no open match; [] if it is not idle.

    The competition is locked for pairing, so two reapers never pair the same batch twice.
    """
    competition = _locked_for_pairing(competition.pk)
    if competition.status != Competition.Status.RUNNING or competition.format != Format.LADDER:
        return []
    open_ = [Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING]
    if competition.matches.filter(status__in=open_).exists():
        return []
    return _pair_next(competition)


def _games_of(result: PlayedMatch | dict[str, Any]) -> list[dict[str, Any]]:
    return result.games_json() if isinstance(result, PlayedMatch) else result["games"]


def _playoff_of(result: PlayedMatch | dict[str, Any]) -> list[dict[str, Any]]:
    if isinstance(result, PlayedMatch):
        return result.playoff_json()
    return result.get("playoff") or []


def match_ranks(result: PlayedMatch | dict[str, Any], players: int, teams=None) -> list[int]:
    """Rank of each player in a match: game points, then total score; ties share.

    The one rule of every format (``tournaments.formats.match_result``,
    docs/competitions.md); play-off games (``result["playoff"]``) never count here.
    """
    return match_result.match_ranks(_games_of(result), players, teams)


def _playoff_set_size(competition: Competition) -> int:
    """Games of one play-off set: one fresh deal, once per seat rotation if duplicate."""
    return competition.seats_per_table if competition.duplicate else 1


def _playoff_cap(competition: Competition) -> int:
    """The play-off games a level match may take: whole sets within the competition's cap."""
    size = _playoff_set_size(competition)
    return competition.playoff_games_cap // size * size


def match_decision(
    *,
    competition: Competition,
    match: Match,
    result: PlayedMatch | dict[str, Any],
    playing: bool = False,
) -> match_result.Decision:
    """The ranks a match records and how its winner was found.

    Knockouts: :func:`tournaments.formats.match_result.knockout_decision` with the
    play-off games of ``result["playoff"]``. When recording, a match still level after
    them goes to the lot; while ``playing`` (:func:`match_play`), ``needs_playoff``
    says whether the competition's cap leaves room for another play-off set.
    Other formats: the match ranks, level seats sharing a rank.
    """
    players = len(result.players if isinstance(result, PlayedMatch) else result["players"])
    teams = PARTNER_SEATS if is_partnership(competition.variant) else None
    if competition.format not in KNOCKOUTS:
        return match_result.Decision(tuple(match_ranks(result, players, teams)))
    playoff = _playoff_of(result)
    return match_result.knockout_decision(
        _games_of(result),
        players,
        seed=match.seed,
        playoff=playoff,
        playoff_cap=_playoff_cap(competition) if playing else len(playoff),
        teams=teams,
    )


@dataclass
class PlayoffGame:
    """One play-off game of a level knockout match: its set number and the game."""

    set: int
    game: GameResult


@dataclass
class PlayedMatch:
    """What crosses from the referee to the recorder: a played, not yet stored, match.

    ``result`` is the referee's :class:`bots.referee.match.MatchResult` of the match's
    own games (players in seat order); ``versions`` the bot version each player ran
    (None for built-ins); ``playoff`` a level knockout match's play-off games, numbered
    after the match's games; ``logs`` each player's captured stderr over all of them.
    """

    result: MatchResult
    versions: list[int | None] = dataclasses.field(default_factory=list)
    playoff: list[PlayoffGame] = dataclasses.field(default_factory=list)
    logs: list[str] = dataclasses.field(default_factory=list)

    @property
    def players(self) -> list[str]:
        return self.result.players

    def games_json(self) -> list[dict[str, Any]]:
        """The match's own games as ``tournaments.formats.match_result`` reads them."""
        return [_game_json(g) for g in self.result.games]

    def playoff_json(self) -> list[dict[str, Any]]:
        return [{**_game_json(p.game), "playoff": p.set} for p in self.playoff]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlayedMatch:
        """From ``MatchResult.to_json()`` with ``versions`` and ``playoff`` (the older
        dict form); raises ``ValidationError`` if it is not a match result."""
        try:
            games_ = [_game_from_json(g) for g in data["games"]]
            playoff = [
                PlayoffGame(int(g.get("playoff", 1)), _game_from_json(g))
                for g in data.get("playoff") or []
            ]
            result = MatchResult(
                variant=data.get("variant", ""),
                options=data.get("options") or {},
                seed=data.get("seed", 0),
                duplicate=bool(data.get("duplicate", False)),
                time_control=data.get("time_control") or {},
                players=list(data["players"]),
                games=games_,
                seconds=data.get("seconds", 0.0),
                logs=list(data.get("logs") or []),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValidationError(f"not a match result: {exc!r}") from None
        versions = list(data.get("versions") or [None] * len(result.players))
        return cls(result, versions, playoff, list(data.get("logs") or []))


def _game_json(game: GameResult) -> dict[str, Any]:
    return {
        "index": game.index,
        "seats": game.seats,
        "scores": game.scores,
        "ranking": game.ranking,
        "statuses": game.statuses,
    }


def _game_from_json(game: dict[str, Any]) -> GameResult:
    return GameResult(
        index=int(game["index"]),
        seed=int(game.get("seed", 0)),
        seats=list(game["seats"]),
        scores=list(game["scores"]),
        ranking=list(game["ranking"]),
        statuses=list(game["statuses"]),
        record=game.get("record") or {},
    )


def _played(result: PlayedMatch | dict[str, Any]) -> PlayedMatch:
    if isinstance(result, PlayedMatch):
        return result
    if isinstance(result, dict):
        return PlayedMatch.from_json(result)
    raise TypeError(f"a match result must be a PlayedMatch, not {type(result).__name__}")


@dataclass(frozen=True)
class ClaimedSeat:
    """A seat of a claimed match as the claim read it (``execution.match_claim``): its
    entry's rating then, and the entry's bot (its built-in player, if it is one, and
    its name as ``str(bot)`` gives it)."""

    seat: int
    entry_id: int
    mu: float
    sigma: float
    builtin: str
    bot_name: str


@dataclass
class Recording:
    """What recording one result stored (the match and its round).

    ``round_complete``: True if no other match of the round was open when the result was
    stored, False if some were and none of them was running (the result of a running
    match may be the round's last), None if unknown (the round must be checked)."""

    competition: Competition
    match_id: int
    round_id: int | None = None
    round_complete: bool | None = None


@dataclass
class RoundClosing:
    """What closing a finished round changed: the next round's matches, the end."""

    round_number: int
    paired: list[Match] = dataclasses.field(default_factory=list)
    competition_finished: bool = False


def match_record_result(
    *, match: Match, result: PlayedMatch | dict[str, Any], claimed_by: str | None = None
) -> bool:
    """Store a played match once, then close its round if it was the last open match;
    True if stored, False if it was already recorded.

    :func:`match_record_played`, then :func:`round_close_if_complete` (its own
    transaction, once the result's has committed; inside an outer transaction it
    joins that one).
    """
    recording = match_record_played(match=match, played=result, claimed_by=claimed_by)
    if recording is None:
        return False
    round_close_if_complete(competition=recording.competition, round_id=recording.round_id)
    return True


def match_record_played(
    *,
    match: Match,
    played: PlayedMatch | dict[str, Any],
    claimed_by: str | None = None,
    synchronous_commit: bool = True,
) -> Recording | None:
    """Store a played match, its records and the rating update, once, in one transaction.

    ``played`` is what :func:`match_play` returned for ``match`` (players in seat order).
    With ``claimed_by`` the result is stored only while that worker holds the match
    (running, claimed by it). Returns None, changing nothing, when it is not stored
    (already done, or the lease was taken over); raises ``ValidationError`` (changing
    nothing) if the result does not fit the match's seats. ``synchronous_commit=False``
    lets the transaction commit without waiting for the disk (PostgreSQL only; see
    ``tournaments.execution``).

    On PostgreSQL, for a match claimed by ``execution.match_claim`` (which read the
    entries' ratings): one statement (``recording.match_store_rated``), which is a
    transaction of its own unless the caller has one open (no ``BEGIN``, no
    ``COMMIT``). If a rating changed since the claim, that statement writes nothing
    and the result is recorded as for a match without a claim, in one transaction
    (joining the caller's, without a savepoint): two statements whatever the seats and
    games, the guarded ``UPDATE`` of the match with the games, the seats and the
    entries locked (in entry order, so two recordings never deadlock); then the
    entries' ratings with the competition's rating sequence, taken last so that the
    competition row stays locked only for the last statement and the commit.
    Elsewhere the same writes through the ORM. The round is not touched:
    whoever records a result calls :func:`round_close_if_complete` once it has
    committed (no lock shared by the matches of a round while they record). Two
    results that share an entry are serialised by its row lock, so the sequence
    order is the order in which their updates were applied (a recompute replays it).
    The seats record the match's ranks (a knockout's with its tie-break, see
    :func:`match_decision`); ratings and points follow the ranks of the match's own
    games, where level seats stay level.
    """
    played = _played(played)
    competition = match.competition
    teams = PARTNER_SEATS if is_partnership(competition.variant) else None
    players = len(played.players)
    if not played.result.games:
        raise ValidationError("the result holds no game")
    try:
        decision = match_decision(competition=competition, match=match, result=played)
        ranks = match_ranks(played, players, teams)
        points = match_result.game_points(played.games_json(), players, teams)
    except (IndexError, KeyError, ValueError) as exc:
        raise ValidationError(f"the result does not fit the match: {exc}") from None
    done = {"finished_at": timezone.now(), "decided_by": decision.decided_by}
    games_ = _game_rows(played)
    seats = _seat_rows(played, list(decision.ranks), points)
    claimed = getattr(match, "claimed_seats", None)
    if connection.vendor == "postgresql" and claimed and len(claimed) == players:
        stored = _match_store_rated(
            match, done, claimed_by, games_, seats, synchronous_commit, claimed, ranks, teams,
            played.versions,
        )  # fmt: skip
        if stored is None or isinstance(stored, Recording):
            return stored
        # Another result of one of its entries was stored since the claim: as below.
    with transaction.atomic(savepoint=False):  # in a caller's transaction: no savepoint
        store = _match_store_sql if connection.vendor == "postgresql" else _match_store_orm
        locked = store(match, done, claimed_by, games_, seats, synchronous_commit)
        if locked is None:
            return None
        if len(locked) != players:
            raise ValidationError("the result does not fit the match's seats")
        match.status, match.finished_at = Match.Status.DONE, done["finished_at"]
        seats_ = sorted(locked, key=lambda s: s.seat)
        _rate(competition, match, seats_, ranks, teams, played.versions)
        _notify(competition.pk, events.MATCH_FINISHED, match_id=match.pk)
    return Recording(competition=competition, match_id=match.pk, round_id=match.round_id)


def _game_rows(played: PlayedMatch) -> list[list[Any]]:
    """The game records' rows in ``recording.GAME_FIELDS`` order (play-off games last)."""
    games_ = [(0, game) for game in played.result.games]
    games_ += [(p.set, p.game) for p in played.playoff]
    return [
        [
            g.index,
            playoff_set,
            g.scores,
            g.ranking,
            g.statuses,
            GameRecord.pack(g.record),
            soft_play.game_tally(g.record),
        ]
        for playoff_set, g in games_
    ]


def _seat_rows(played: PlayedMatch, ranks: list[int], points: list[float]) -> list[list[Any]]:
    """Each seat's row in ``recording.SEAT_FIELDS`` order: score, points, rank, wins,
    statuses, log and the version played."""
    standings = played.result.standings()
    players = len(played.players)
    logs = played.logs or played.result.logs or [""] * players
    versions = played.versions or [None] * players
    rows = []
    for player in range(players):
        row = standings[player]
        rows.append(
            [
                player,
                row.get("score", 0),
                points[player],
                ranks[player],
                row.get("wins", 0),
                row.get("statuses", {}),
                # (no NUL: PostgreSQL's text columns refuse it)
                logs[player][-8_000:].replace("\x00", "\N{REPLACEMENT CHARACTER}")
                if player < len(logs)
                else "",
                versions[player] if player < len(versions) else None,
            ]
        )
    return rows


def _match_store_rated(
    match, done, claimed_by, games_, seats, synchronous_commit, claimed, ranks, teams, versions
) -> Recording | None | bool:
    """Store the result and its rating update in one statement, rated from the entries'
    ratings as the claim read them (``claimed``), if they are still those
    (:func:`recording.match_store_rated`). Returns the recording, None if the result is
    refused, or False (nothing written) if a rating changed since the claim."""
    competition = match.competition
    seats_ = sorted(claimed, key=lambda s: s.seat)
    rows = _rating_rows(match, seats_, ranks, teams, versions)
    stored = recording.match_store_rated(
        match_id=match.pk,
        done=done,
        claimed_by=claimed_by,
        games=games_,
        seats=seats,
        expected=[(s.entry_id, s.mu, s.sigma) for s in sorted(seats_, key=lambda s: s.entry_id)],
        rows=rows,
        competition_id=competition.pk,
        games_played=competition.games_per_match,
        round_id=match.round_id,
        synchronous_commit=synchronous_commit,
        failed_settles=competition.format == Format.LADDER,
    )
    if stored.refused:
        return None
    if stored.sequence is None:
        return False
    match.status, match.finished_at = Match.Status.DONE, done["finished_at"]
    competition.rating_sequence = stored.sequence
    _notify(competition.pk, events.MATCH_FINISHED, match_id=match.pk)
    return Recording(
        competition=competition,
        match_id=match.pk,
        round_id=match.round_id,
        round_complete=stored.round_complete,
    )


def _match_store_sql(match, done, claimed_by, games_, seats, synchronous_commit):
    return recording.match_store(
        match_id=match.pk,
        done=done,
        claimed_by=claimed_by,
        games=games_,
        seats=seats,
        synchronous_commit=synchronous_commit,
    )


def _match_store_orm(
    match, done, claimed_by, games_, seats, synchronous_commit
) -> list[recording.LockedSeat] | None:
    """:func:`recording.match_store` through the ORM (databases other than PostgreSQL)."""
    guard = Match.objects.filter(pk=match.pk).exclude(status=Match.Status.DONE)
    if claimed_by is not None:
        guard = guard.filter(status=Match.Status.RUNNING, claimed_by=claimed_by)
    if not guard.update(status=Match.Status.DONE, lease_until=None, error="", **done):
        return None
    locked = list(
        MatchSeat.objects.filter(match_id=match.pk)
        .select_related("entry")
        .select_for_update(of=("entry",))
        .order_by("entry_id")
    )
    fields = recording.GAME_FIELDS
    GameRecord.objects.bulk_create(
        [GameRecord(match=match, **dict(zip(fields, g, strict=True))) for g in games_]
    )
    by_seat = {s.seat: s for s in locked}
    for row in seats:
        seat = by_seat.get(row[0])
        if seat is not None:
            for name, value in zip(recording.SEAT_FIELDS[1:], row[1:], strict=True):
                setattr(seat, "version_id" if name == "version" else name, value)
    MatchSeat.objects.bulk_update(locked, recording.SEAT_FIELDS[1:])
    return [recording.LockedSeat(s.seat, s.entry_id, s.entry.mu, s.entry.sigma) for s in locked]


def _last_versions(entry_ids: list[int], match: Match) -> dict[int, int | None]:
    """The bot version each entry played in its last recorded match before ``match``."""
    last = (
        MatchSeat.objects.filter(entry_id=OuterRef("pk"), match__status=Match.Status.DONE)
        .exclude(version=None)
        .exclude(match_id=match.pk)
        .order_by("-match_id")
        .values("version_id")[:1]
    )
    rows = Entry.objects.filter(pk__in=entry_ids).annotate(last=Subquery(last))
    return dict(rows.values_list("pk", "last"))


def _starting_ratings(
    seats: list[recording.LockedSeat], match: Match, versions: list[int | None]
) -> dict[int, Rating]:
    """Each entry's rating, widened when a new version of its bot plays for the first time
    (one query, only when uploaded bots play)."""
    before = {s.entry_id: Rating(s.mu, s.sigma) for s in seats}
    played = dict(zip([s.entry_id for s in seats], versions or [None] * len(seats), strict=True))
    if not any(v is not None for v in played.values()):
        return before
    last = _last_versions(list(played), match)
    for entry_id, version in played.items():
        if version is not None and last.get(entry_id) not in (None, version):
            rating = before[entry_id]  # a new version: same mu, wider sigma
            before[entry_id] = inherit(rating.mu, rating.sigma)
    return before


def _rate(
    competition: Competition,
    match: Match,
    seats: list[recording.LockedSeat],
    ranks: list[int],
    teams,
    versions: list[int | None],
) -> None:
    """Rate the table (``seats`` in seat order) and store it: new ratings, games and
    points of the entries, and their rating events under the next sequence number."""
    rows = _rating_rows(match, seats, ranks, teams, versions)
    store = recording.ratings_store if connection.vendor == "postgresql" else _ratings_store_orm
    competition.rating_sequence = store(
        competition_id=competition.pk,
        match_id=match.pk,
        games_played=competition.games_per_match,
        rows=rows,
        created_at=timezone.now(),
    )


def _rating_rows(match: Match, seats, ranks: list[int], teams, versions: list[int | None]):
    """(entry, (mu, sigma) before, (mu, sigma) after, points won) per entry of the table
    (``seats`` in seat order, each with ``entry_id``, ``mu`` and ``sigma``), in entry order."""
    before = _starting_ratings(seats, match, versions)
    table = [s.entry_id for s in seats]
    after = rate_game(before, table, ranks, teams=teams)
    points = table_points(TableResult(tuple(table), tuple(ranks), teams))
    return [
        (e, (before[e].mu, before[e].sigma), (after[e].mu, after[e].sigma), points[e])
        for e in sorted(table)
    ]


def _ratings_store_orm(*, competition_id, match_id, games_played, rows, created_at) -> int:
    """:func:`recording.ratings_store` through the ORM (databases other than PostgreSQL)."""
    for entry_id, _, (mu, sigma), points in rows:
        Entry.objects.filter(pk=entry_id).update(
            mu=mu, sigma=sigma, games=F("games") + games_played, points=F("points") + points
        )
    table = connection.ops.quote_name(Competition._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET rating_sequence = rating_sequence + 1 "
            "WHERE id = %s RETURNING rating_sequence",
            [competition_id],
        )
        (sequence,) = cursor.fetchone()
    RatingEvent.objects.bulk_create(
        [
            RatingEvent(
                entry_id=entry_id,
                match_id=match_id,
                sequence=sequence,
                mu_before=before[0],
                sigma_before=before[1],
                mu_after=after[0],
                sigma_after=after[1],
                created_at=created_at,
            )
            for entry_id, before, after, _ in rows
        ]
    )
    return sequence


def round_close_if_complete(
    *, competition: Competition, round_id: int | None, known_complete: bool = False
) -> RoundClosing | None:
    """Finish round ``round_id`` if none of its matches is open or failed any more, and
    pair the next round (or finish the competition); None if it stays open or someone
    else closed it.

    Called after a result has committed (by the recorder, and by the reaper for a
    recorder that died in between). Of two last results recorded at once both may
    see the round complete: the guarded ``UPDATE`` of the round's status lets one of
    them close it, and the other does not wait for it (the round's row is locked
    ``SKIP LOCKED``): the first holds that lock while it pairs the next round, and
    the second has other matches to play meanwhile. Should the first fail, its round
    stays running and complete, and the reaper closes it. One unlocked query when the
    round stays open; none with ``known_complete`` (the recording saw no other open
    match in the round).
    """
    if round_id is None:
        return None
    # A failed match holds up its round until an organiser sees to it, but not a ladder's
    # batch: nothing comes after it that needs its result.
    settled = [Match.Status.DONE]
    if competition.format == Format.LADDER:
        settled.append(Match.Status.FAILED)
    if not known_complete and (
        Match.objects.filter(round_id=round_id).exclude(status__in=settled).exists()
    ):
        return None
    with transaction.atomic():
        unclaimed = Round.objects.filter(pk=round_id, status=Round.Status.RUNNING)
        unclaimed = unclaimed.select_for_update(no_key=True, skip_locked=True).values("pk")
        if not Round.objects.filter(pk__in=unclaimed).update(status=Round.Status.FINISHED):
            return None
        closing = RoundClosing(Round.objects.values_list("number", flat=True).get(pk=round_id))
        _close_round(competition, closing)
        changes = [events.ROUND_FINISHED]
        if closing.competition_finished:
            changes.append(events.COMPETITION_FINISHED)
        _notify(competition.pk, *changes, round_=closing.round_number)
    return closing


def _close_round(competition: Competition, closing: RoundClosing) -> None:
    if competition.format == Format.LADDER and settings.CARDROOM_LADDER_PAUSE_S > 0:
        return  # a paced ladder: the reaper pairs the next batch after the pause
    locked = _locked_for_pairing(competition.pk)
    if locked.status != Competition.Status.RUNNING:
        return  # closed meanwhile
    if (
        locked.format in PAIRED_AHEAD
        and locked.rounds.filter(status=Round.Status.RUNNING).values_list("pk").first()
    ):
        # A round paired ahead (round_pair_ahead) still plays: whichever of the two
        # closes last pairs the next round or finishes the competition.
        return
    closing.paired = _pair_next(locked)
    if not closing.paired and competition.format != Format.LADDER:
        Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.FINISHED)
        competition.status = Competition.Status.FINISHED
        closing.competition_finished = True


#: Formats whose next round never depends on results (the schedule is fixed at the
#: start): it may be paired while the round before it still plays (round_pair_ahead).
PAIRED_AHEAD = frozenset({Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN})


def round_pair_ahead(*, round_id: int) -> list[Match]:
    """Pair the round after ``round_id`` now, while its last matches are still played.

    Only for :data:`PAIRED_AHEAD` formats (their schedule never depends on results),
    only when ``round_id`` is the competition's latest round, and only once none of
    its matches waits any more (each is being played or done): so a worker whose
    list ran dry plays on into the next round instead of waiting for the last match
    of this one and the pairing after it. At most two rounds run at once, and an
    entry may play a match of each. Returns the new matches, or [] when it does
    nothing (then the round's closing pairs as usual, :func:`round_close_if_complete`).
    The competition is locked for pairing as the closing locks it
    (:func:`_locked_for_pairing`), so of the two exactly one pairs the next round.
    """
    competition_id = (
        Round.objects.filter(pk=round_id, status=Round.Status.RUNNING)
        .values_list("competition_id", flat=True)
        .first()
    )
    if competition_id is None:
        return []
    with transaction.atomic():
        locked = _locked_for_pairing(competition_id)
        if locked.status != Competition.Status.RUNNING or locked.format not in PAIRED_AHEAD:
            return []
        running = list(
            locked.rounds.filter(status=Round.Status.RUNNING).values_list("pk", flat=True)
        )
        latest = locked.rounds.order_by("-number").values_list("pk", flat=True).first()
        if latest != round_id or running != [round_id]:
            return []  # the next round is paired already, or two rounds run now
        statuses = set(Match.objects.filter(round_id=round_id).values_list("status", flat=True))
        if Match.Status.RUNNING not in statuses or statuses & {
            Match.Status.PENDING,
            Match.Status.QUEUED,
        }:
            return []  # matches still wait, or none is left playing (the closing pairs)
        return _pair_next(locked)


def _players(match: Match, seed: int) -> tuple[list, list[int | None]]:
    """Fresh players for the seats of ``match`` (built-ins seeded from ``seed``), and the
    bot version each uploaded bot plays (None for built-ins)."""
    claimed = getattr(match, "claimed_seats", None)
    if claimed and all(seat.builtin for seat in claimed):  # read by the claim
        players = [_builtin_player(s.builtin, seed, s.seat, s.bot_name) for s in claimed]
        return players, [None] * len(players)
    players, versions = [], []
    for seat in match.seats.select_related("entry__bot").order_by("seat"):
        bot = seat.entry.bot
        if bot.builtin:
            versions.append(None)
            players.append(_builtin_player(bot.builtin, seed, seat.seat, str(bot)))
            continue
        variant = match.competition.variant
        version = version_for_play(bot=bot, pinned=seat.entry.pinned_version, variant=variant)
        if version is None:
            raise ValidationError(f"{bot} has no ready version that passed {variant}")
        players.append(ProcessPlayer.from_path(bot_version_path(version=version)))
        versions.append(version.pk)
    return players, versions


def _builtin_player(builtin: str, seed: int, seat: int, name: str) -> InProcessPlayer:
    """The built-in player ``builtin`` of ``seat``, seeded from the match's ``seed``."""
    return InProcessPlayer(make(builtin, seed=deals.player_seed(seed, seat)), name=name)


def match_play(
    *,
    match: Match,
    on_game: Callable[[GameResult, int], None] | None = None,
    on_action: Callable[[int, Any], None] | None = None,
) -> PlayedMatch:
    """Play ``match`` with the referee (no database writes) and return it, typed.

    Built-in bots run in-process; uploaded bots run sandboxed from the version
    the entry pins, else the bot's newest ready version. A knockout match that is
    level at the cut after its games (on game points and total score) goes on with
    play-off sets in the same run, each on one fresh deal (played once per seat
    rotation if the competition is duplicate, by fresh players), until the cut is
    made or the competition's ``playoff_games_cap`` leaves no room for another set.
    The play-off games are :attr:`PlayedMatch.playoff`, numbered after the match's
    games and marked with their set (1, 2, ...).

    For watching the match while it is played: ``on_game(game, playoff_set)`` is called
    with each game as it finishes (0 for a game of the match) and ``on_action(index,
    state)`` after each action, play-off games numbered as they are stored.
    """
    competition = match.competition
    players, versions = _players(match, match.seed)
    result = _play(
        competition, players, competition.games_per_match, match.seed,
        **_watchers(on_game, on_action, 0, 0),
    )  # fmt: skip
    out = PlayedMatch(result, versions, [], list(result.logs))
    if competition.format not in KNOCKOUTS:
        return out
    size, cap = _playoff_set_size(competition), _playoff_cap(competition)
    while len(out.playoff) + size <= cap:
        decision = match_decision(competition=competition, match=match, result=out, playing=True)
        if not decision.needs_playoff:
            break
        number = len(out.playoff) // size + 1
        seed = deals.playoff_seed(match.seed, number)
        fresh, _ = _players(match, seed)
        first = len(result.games) + len(out.playoff)
        extra = _play(
            competition, fresh, size, seed, **_watchers(on_game, on_action, first, number)
        )
        for offset, game in enumerate(extra.games):
            game.index = first + offset
            out.playoff.append(PlayoffGame(number, game))
        out.logs = [a + b for a, b in zip(out.logs, extra.logs, strict=True)]
    return out


def _watchers(on_game, on_action, first: int, playoff_set: int) -> dict[str, Any]:
    """The referee's callbacks of :func:`match_play`'s, for games numbered from ``first``."""
    out: dict[str, Any] = {}
    if on_game is not None:
        out["on_game"] = lambda game: on_game(
            dataclasses.replace(game, index=first + game.index), playoff_set
        )
    if on_action is not None:
        out["on_action"] = lambda index, state: on_action(first + index, state)
    return out


def _play(competition: Competition, players: list, games_count: int, seed: int, **watchers: Any):
    return play_match(
        competition.variant,
        players,
        games_count=games_count,
        seed=seed,
        options=competition.options,
        duplicate=competition.duplicate,
        time_control=TimeControl(
            move_ms=competition.move_ms,
            bank_ms=max(1, competition.bank_ms),
            match_wall_ms=match_wall_ms(len(players)),
            pace_ms=competition.pace_ms,
        ),
        **watchers,
    )


def match_wall_ms(players: int) -> int:
    """Each player's wall-clock budget for its decisions in one match
    (``TimeControl.match_wall_ms``): half the match's time limit, shared by the seats, so
    that a match of bots that wait just under every move's ceiling still ends, and is
    recorded, within the worker's time limit."""
    return settings.CARDROOM_MATCH_TIME_LIMIT_S * 1000 // (2 * max(1, players))


@transaction.atomic
def league_assign_divisions(
    *, competition: Competition, division_size: int, by=None
) -> list[list[int]]:
    """Cut a draft league season's entries into divisions, strongest (by rating) first
    (``formats.league.league_divisions``), and keep ``division_size`` for its start."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    _require_manager(competition, by)
    if competition.kind != Competition.Kind.LEAGUE_SEASON:
        raise ValidationError({"division_size": "divisions are for league seasons"})
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError("divisions are set before the season starts")
    _check_league(
        competition.kind,
        competition.seats_per_table,
        division_size=division_size,
        promote=competition.promote,
        relegate=None,
    )
    competition.division_size = division_size
    competition.save(update_fields=["division_size"])
    return _cut_divisions(competition)


def _cut_divisions(competition: Competition) -> list[list[int]]:
    """Entry ids per division from the competition's ``division_size``, stored on the
    entries; the errors name ``division_size``."""
    entries = list(competition.entries.filter(withdrawn=False).order_by("seed_order", "id"))
    ratings = {e.pk: Rating(e.mu, e.sigma).display for e in entries}
    size = competition.division_size or max(len(entries), competition.seats_per_table)
    try:
        divisions = league.league_divisions(
            [e.pk for e in entries], size, ratings=ratings, table_size=competition.seats_per_table
        )
    except ValueError as exc:
        raise ValidationError(
            {
                "division_size": f"divisions of at most {size} do not fit "
                f"{len(entries)} entries: {exc}"
            }
        ) from None
    _set_divisions(divisions)
    return [list(d) for d in divisions]


def _set_divisions(divisions) -> None:
    for number, members in enumerate(divisions):
        Entry.objects.filter(pk__in=members).update(division=number)


def _league_divisions_at_start(competition: Competition) -> None:
    """A first season is cut into divisions now; a later one keeps those its previous
    season's end gave (newcomers at the bottom). Either way every division must have
    room for ``promote`` going up and as many going down: else a ``ValidationError``
    naming ``promote``."""
    if competition.previous_season_id is None:
        _cut_divisions(competition)
    sizes: dict[int, int] = {}
    for division in competition.entries.filter(withdrawn=False).values_list("division", flat=True):
        sizes[division] = sizes.get(division, 0) + 1
    last = max(sizes, default=0)
    for division, size in sorted(sizes.items()):
        moving = competition.promote * ((division > 0) + (division < last))
        if moving > size:
            raise ValidationError(
                {
                    "promote": f"promote ({competition.promote}) moves {moving} of division "
                    f"{division + 1}, which has only {size} entries"
                }
            )


@transaction.atomic
def entry_move_division(*, entry: Entry, division: int, by=None) -> Entry:
    """Put an entry of a later league season, still a draft, into another of its
    divisions (0 the top one): a newcomer placed above the bottom, a correction. A first
    season's divisions are cut at its start; a started season's stay. Raises
    ``ValidationError`` naming ``division``."""
    competition = Competition.objects.select_for_update().get(pk=entry.competition_id)
    _require_manager(competition, by)
    if competition.kind != Competition.Kind.LEAGUE_SEASON or not competition.previous_season_id:
        raise ValidationError(
            {
                "division": "only the entries of a league's later season are placed by hand; "
                "a first season's divisions are cut at its start"
            }
        )
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError({"division": "divisions are fixed once the season has started"})
    last = competition.entries.aggregate(last=Max("division"))["last"] or 0
    if isinstance(division, bool) or not isinstance(division, int) or not 0 <= division <= last:
        raise ValidationError(
            {"division": f"division must be 0 to {last} (0 is the top one), got {division!r}"}
        )
    entry.division = division
    entry.save(update_fields=["division"])
    return entry


@transaction.atomic
def league_next_season(
    *, competition: Competition, name: str | None = None, promote: int | None = None, by=None
) -> Competition:
    """The next season of a finished league, as a draft: same settings, ratings carried
    over, the top ``promote`` of each division moved up and the bottom ``promote`` moved
    down by the final standings (``formats.league.league_next_season``); ``promote``
    defaults to the season's own and is the next season's. Withdrawn and disqualified
    entries are not carried over. Raises ``ValidationError`` for a season that is not a
    finished league season or already has its next one, or a ``promote`` too large."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    _require_manager(competition, by)
    if competition.kind != Competition.Kind.LEAGUE_SEASON:
        raise ValidationError("only league seasons have a next season")
    if competition.status != Competition.Status.FINISHED:
        raise ValidationError(
            f"{competition.name} is {competition.status}: its next season is made once it "
            "has finished"
        )
    following = Competition.objects.filter(previous_season=competition).first()
    if following is not None:
        raise ValidationError(f"{competition.name} already has its next season: {following}")
    if name is not None and not name.strip():
        raise ValidationError({"name": "a season needs a name"})
    promote = competition.promote if promote is None else promote
    if isinstance(promote, bool) or not isinstance(promote, int) or promote < 0:
        raise ValidationError({"promote": f"promote must be an integer >= 0, got {promote!r}"})
    rows = selectors.standings_for_competition(competition=competition)
    orders: dict[int, list[int]] = {}
    for row in rows:
        orders.setdefault(row["division"] or 0, []).append(row["entry"])
    try:
        divisions = league.league_next_season([orders[d] for d in sorted(orders)], promote=promote)
    except ValueError as exc:
        raise ValidationError({"promote": str(exc)}) from None
    season = _season_after(competition, name, promote)
    old = {e.pk: e for e in competition.entries.filter(withdrawn=False, disqualified=False)}
    order = [e for division in divisions for e in division if e in old]
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
    _set_divisions(
        [[new_ids[old[e].bot_id] for e in division if e in old] for division in divisions]
    )
    return season


def _season_after(competition: Competition, name: str | None, promote: int) -> Competition:
    """The draft of the season after ``competition``, with its settings."""
    number = competition.season + 1
    base = re.sub(r" \(season \d+\)$", "", competition.name)
    season = Competition.objects.create(
        name=(name or f"{base} (season {number})").strip()[:120],
        kind=competition.kind,
        variant=competition.variant,
        options=competition.options,
        format=competition.format,
        games_per_match=competition.games_per_match,
        duplicate=competition.duplicate,
        seats_per_table=competition.seats_per_table,
        move_ms=competition.move_ms,
        bank_ms=competition.bank_ms,
        pace_ms=competition.pace_ms,
        rating_settings=competition.rating_settings,
        seed=competition.seed + 1,
        # A secret season's next season gets a secret of its own; a seeded one stays seeded.
        deal_secret=deals.new_secret() if competition.deal_secret else "",
        is_public=competition.is_public,
        full_replays_after_end=competition.full_replays_after_end,
        same_owner_tables=competition.same_owner_tables,
        division_size=competition.division_size,
        promote=promote,
        previous_season=competition,
        season=number,
        created_by=competition.created_by,
    )
    season.organisers.set(competition.organisers.all())
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
    if competition.is_public and competition.same_owner_tables:
        raise ValidationError(
            {"is_public": "this competition waives one bot per owner a table: it stays private"}
        )
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
        if competition.status in (Competition.Status.RUNNING, Competition.Status.PAUSED)
        else Competition.Status.CANCELLED
    )
    finished = competition.status == Competition.Status.FINISHED
    # A tournament closed before its schedule ended; a ladder's close is its end.
    competition.closed_early = finished and competition.format != Format.LADDER
    competition.save(update_fields=["status", "closed_early"])
    _notify(competition.pk, events.COMPETITION_FINISHED if finished else events.COMPETITION_STATUS)
    return competition


@transaction.atomic
def match_retry(*, match: Match, by=None) -> Match:
    """Give a failed match another go: pending again, with its attempts and error
    cleared; the caller queues it (``execution.matches_enqueue``) as after a start.

    A failed match holds up its round (a ladder's batch excepted), so this is how an
    organiser lets a round robin, Swiss or knockout go on once the cause is mended (a
    bot with a ready version again, a platform fault gone); its round, which waited
    for it, closes once it is recorded. Raises ``ValidationError`` unless the match
    failed and its competition is a running or paused tournament (a ladder's next
    batches never wait for a failed match), ``PermissionDenied`` for a non-organiser.
    """
    match = Match.objects.select_for_update().select_related("competition").get(pk=match.pk)
    _require_manager(match.competition, by)
    if match.status != Match.Status.FAILED:
        raise ValidationError(
            f"only a failed match can be played again; this one is {match.status}"
        )
    live = (Competition.Status.RUNNING, Competition.Status.PAUSED)
    if match.competition.status not in live:
        raise ValidationError(f"the competition is {match.competition.status}")
    if match.competition.format == Format.LADDER:
        raise ValidationError("a ladder plays on without its failed matches: nothing waits")
    match.status, match.attempts, match.error = Match.Status.PENDING, 0, ""
    match.claimed_by, match.lease_until, match.finished_at = "", None, None
    match.save(
        update_fields=["status", "attempts", "error", "claimed_by", "lease_until", "finished_at"]
    )
    _notify(match.competition_id, events.QUEUE_CHANGED)
    return match


@transaction.atomic
def competition_pause(*, competition: Competition, by=None) -> Competition:
    """Running to paused; its queued matches go back to pending.

    A paused competition queues nothing: the reaper and
    ``execution.matches_enqueue`` take only running competitions' matches, a
    ladder schedules no batch, and a worker that receives a task of a paused
    competition's match does not claim it (``execution.match_claim``). Matches
    already being played finish and count. Raises ``ValidationError`` unless it
    is running, ``PermissionDenied`` for a non-organiser.
    """
    locked = Competition.objects.select_for_update().get(pk=competition.pk)
    _require_manager(locked, by)
    if locked.status != Competition.Status.RUNNING:
        raise ValidationError(
            f"only a running competition can be paused; this one is {locked.status}"
        )
    locked.matches.filter(status=Match.Status.QUEUED).update(
        status=Match.Status.PENDING, lease_until=None, claimed_by=""
    )
    locked.status = Competition.Status.PAUSED
    locked.save(update_fields=["status"])
    competition.status = locked.status
    _notify(locked.pk, events.COMPETITION_STATUS)
    return locked


@transaction.atomic
def competition_resume(*, competition: Competition, by=None) -> Competition:
    """Paused to running; the caller then queues its pending matches
    (``execution.matches_enqueue``), as after a start. Raises ``ValidationError``
    unless it is paused, ``PermissionDenied`` for a non-organiser.

    A round whose last result came in while the competition was paused was closed
    then, but its closing paired nothing (a paused competition pairs nothing): with
    no round running any more, resuming pairs the next round, or finishes the
    competition if there is none, as that closing would have."""
    locked = Competition.objects.select_for_update().get(pk=competition.pk)
    _require_manager(locked, by)
    if locked.status != Competition.Status.PAUSED:
        raise ValidationError(
            f"only a paused competition can be resumed; this one is {locked.status}"
        )
    locked.status = Competition.Status.RUNNING
    locked.save(update_fields=["status"])
    competition.status = locked.status
    _notify(locked.pk, events.COMPETITION_STATUS)
    last = locked.rounds.order_by("-number").values_list("number", "status").first()
    if (
        last is not None
        and last[1] == Round.Status.FINISHED
        and not locked.rounds.filter(status=Round.Status.RUNNING).exists()
    ):
        closing = RoundClosing(last[0])
        _close_round(locked, closing)
        if closing.competition_finished:
            competition.status = locked.status = Competition.Status.FINISHED
            _notify(locked.pk, events.COMPETITION_FINISHED, round_=last[0])
    return locked


@transaction.atomic
def table_exclusion_create(*, competition: Competition, entry: Entry, other: Entry, by=None):
    """Keep two entries from sharing a table from the next pairing on (the organisers'
    answer to a flag of the collusion report, docs/fair-play.md). Idempotent.

    Raises ``ValidationError`` for an entry of another competition, an entry paired
    with itself, or a pair the remaining field cannot keep apart.
    """
    _require_manager(competition, by)
    if entry.competition_id != competition.pk or other.competition_id != competition.pk:
        raise ValidationError({"entries": "both entries must be of this competition"})
    if entry.pk == other.pk:
        raise ValidationError({"entries": "an entry always shares its own table"})
    if competition.status in (Competition.Status.FINISHED, Competition.Status.CANCELLED):
        raise ValidationError(f"the competition is {competition.status}")
    a, b = sorted((entry, other), key=lambda e: e.pk)
    exclusion, _ = TableExclusion.objects.get_or_create(competition=competition, entry=a, other=b)
    problem = pairing.fair_play_problem(competition)
    if problem:
        raise ValidationError(f"cannot keep them apart: {problem}")
    return exclusion


@transaction.atomic
def entry_disqualify(*, entry: Entry, by=None) -> Entry:
    """Disqualify an entry (organisers and staff): it plays no more and the standings
    say so; its results so far stay, as its opponents earned them."""
    competition = Competition.objects.select_for_update().get(pk=entry.competition_id)
    _require_manager(competition, by)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    entry.withdrawn = True
    entry.disqualified = True
    entry.save(update_fields=["withdrawn", "disqualified"])
    _notify(competition.pk, events.STANDINGS_UPDATED)
    return entry
