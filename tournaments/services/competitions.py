"""Creating and changing competitions: the settings checked against the variant."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

import games
from tournaments.integrity import deals
from tournaments.models import Competition
from tournaments.permissions import require_manager
from tournaments.services.leagues import check_league_settings, check_seeding

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
    """``ValidationError`` naming a seat count or play-off cap the competition cannot use:
    ``seats_per_table``, if given, must be the variant's number of players;
    ``playoff_games_cap`` (0..:data:`PLAYOFF_GAMES_MAX`) bounds the play-off games of a
    level knockout match."""
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


def _checked_game(variant: str, options: dict[str, Any] | None, *, kind: str, format: str):
    """The variant's game with ``options``, once the variant, its options, the kind and
    the kind's format are known to be right (a ``ValidationError`` naming the field
    otherwise)."""
    if variant not in games.variants():
        known = ", ".join(games.variants())
        raise ValidationError({"variant": f"unknown variant {variant!r} (known: {known})"})
    try:
        game = games.load(variant, **(options or {}))
    except ValueError as exc:  # the variant is known: its options are wrong
        raise ValidationError({"options": str(exc)}) from None
    if kind not in KIND_FORMATS:  # a challenge's competition is made by its challenge only
        known = ", ".join(KIND_FORMATS)
        raise ValidationError({"kind": f"unknown kind {kind!r} (known: {known})"})
    if format not in KIND_FORMATS[kind]:
        allowed = ", ".join(sorted(KIND_FORMATS[kind]))
        raise ValidationError({"format": f"a {kind} uses one of: {allowed}; got {format!r}"})
    return game


def _check_match_settings(
    num_players: int,
    *,
    games_per_match: int,
    duplicate: bool,
    same_owner_tables: bool,
    is_public: bool,
) -> None:
    """Duplicate matches deal every deal once per seat rotation; only a private
    competition may seat two bots of one owner at a table."""
    if duplicate and games_per_match % num_players:
        raise ValidationError(
            {"games_per_match": f"duplicate matches need a multiple of " f"{num_players} games"}
        )
    if same_owner_tables and is_public:
        raise ValidationError(
            {"same_owner_tables": "only a private competition may waive one bot per owner a table"}
        )


def _checked_settings(fields: dict[str, Any]) -> games.Game:
    """The variant's game of a new competition's settings (``fields``, the arguments of
    :func:`competition_create` but its creator and seed), each checked in turn; ``fields``
    become what is stored: the options as the game has them, the partnerships and the
    seeding as checked, the table's size and the relegation only checked."""
    kind, format, variant = fields["kind"], fields["format"], fields["variant"]
    game = _checked_game(variant, fields["options"], kind=kind, format=format)
    _check_table(
        game,
        format=format,
        seats_per_table=fields.pop("seats_per_table"),
        playoff_games_cap=fields["playoff_games_cap"],
    )
    if format == Format.SWISS and not fields["rounds_planned"]:
        raise ValidationError({"rounds_planned": "a Swiss tournament needs its number of rounds"})
    partnerships = _check_partnerships(variant, format, fields["partnerships"])
    _check_match_settings(
        game.num_players,
        games_per_match=fields["games_per_match"],
        duplicate=fields["duplicate"],
        same_owner_tables=fields["same_owner_tables"],
        is_public=fields["is_public"],
    )
    check_league_settings(
        kind,
        game.num_players,
        division_size=fields["division_size"],
        promote=fields["promote"],
        relegate=fields.pop("relegate"),
        partnerships=partnerships,
    )
    seeding = check_seeding(kind, fields["seeding"], fields["seeding_seed"])
    timing = (fields[name] for name in ("games_per_match", "move_ms", "bank_ms", "pace_ms"))
    _check_time_control(game.num_players, *timing)
    fields.update(options=dict(game.options), partnerships=partnerships, seeding=seeding)
    return game


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
    partnerships: str | None = None,
    seeding: str | None = None,
    seeding_seed: int | None = None,
) -> Competition:
    """A new competition in ``draft``; its settings are checked against the variant: the
    table's and the play-off cap's by :func:`_check_table`, the partnerships' by
    :func:`_check_partnerships` (docs/competitions.md), a league season's divisions by
    :func:`check_league_settings` and its first season's ``seeding`` (``rating``, ``manual``
    or ``random``, shuffled from ``seeding_seed`` or a seed drawn at the start) by
    :func:`check_seeding` (docs/leagues.md).

    Without ``seed`` its deals are drawn from a fresh secret (``tournaments.integrity.deals``),
    hidden until it ends. With ``seed`` they follow from that seed and public values,
    so they are reproducible, and predictable to whoever knows the seed.
    """
    # Every argument as given: checked and normalised by _checked_settings, then stored.
    fields = dict(locals())
    created_by, seed = fields.pop("created_by"), fields.pop("seed")
    game = _checked_settings(fields)
    competition = Competition.objects.create(
        **fields,
        seed=0 if seed is None else seed,
        deal_secret=deals.new_secret() if seed is None else "",
        created_by=created_by,
        seats_per_table=game.num_players,
    )
    if created_by is not None:
        competition.organisers.add(created_by)
    return competition


def match_wall_ms(players: int) -> int:
    """Each player's wall-clock budget for its decisions in one match
    (``TimeControl.match_wall_ms``): half the match's time limit, shared by the seats, so
    that a match of bots that wait just under every move's ceiling still ends, and is
    recorded, within the worker's time limit."""
    return settings.CARDROOM_MATCH_TIME_LIMIT_S * 1000 // (2 * max(1, players))


def _check_time_control(
    seats: int, games_per_match: int, move_ms: int, bank_ms: int, pace_ms: int
) -> None:
    """Refuse games per match or a time control that is not positive, and a time control
    a bot cannot keep to within its match's decision budget (:func:`match_wall_ms`): its
    whole bank and one move's free time in each game at least. Past the budget a bot is
    out of time (bots/protocol/PROTOCOL.md "Time control"), so under such a control a
    bot keeping to its clock could lose on time. The error goes on the larger of the two
    terms."""
    if games_per_match < 1 or move_ms < 1 or bank_ms < 0 or pace_ms < 0:
        raise ValidationError("games per match and the time control must be positive")
    budget, moves = match_wall_ms(seats), games_per_match * move_ms
    if bank_ms + moves <= budget:
        return
    limit_s = settings.CARDROOM_MATCH_TIME_LIMIT_S
    field = "bank_ms" if bank_ms >= moves else "move_ms"
    raise ValidationError(
        {
            field: f"a bot may spend at most {budget:,} ms deciding in a match of {seats} "
            f"seats here (half the match time limit of {limit_s:,} s, shared by the seats); "
            f"the bank ({bank_ms:,} ms) and one move ({move_ms:,} ms) in each of the "
            f"{games_per_match} games come to {bank_ms + moves:,} ms, so a bot keeping to "
            "its clock could run out of time: shorten the clock or play fewer games a match"
        }
    )


#: Formats that seat fixed teams: their pure format pairs teams (``partners=True``).
TEAM_FORMATS = frozenset({Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN, Format.SWISS})


def _check_partnerships(variant: str, format: str, partnerships: str | None) -> str:
    """The ``partnerships`` a competition of ``variant`` stores: ``rotating`` unless
    ``fixed`` is asked for in a partnership variant (entries are then teams), "" in any
    other; ``ValidationError`` naming the field for a choice the variant or format cannot
    take."""
    Partnerships = Competition.Partnerships
    if not is_partnership(variant):
        if partnerships:
            raise ValidationError(
                {
                    "partnerships": f"{variant} has no partnerships (everyone plays alone): "
                    "leave partnerships out"
                }
            )
        return ""
    if not partnerships:
        return Partnerships.ROTATING
    if partnerships not in Partnerships.values:
        allowed = " or ".join(Partnerships.values)
        raise ValidationError({"partnerships": f"{allowed}, not {partnerships!r}"})
    if partnerships == Partnerships.FIXED and format not in TEAM_FORMATS:
        raise ValidationError(
            {
                "partnerships": f"fixed teams play round robins, league seasons and Swiss "
                f"tournaments, not {format}: choose rotating partners"
            }
        )
    return partnerships


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
    require_manager(competition, by)
    for field, value in changes.items():
        setattr(competition, field, value)
    if competition.is_public and competition.same_owner_tables:
        raise ValidationError(
            {"is_public": "this competition waives one bot per owner a table: it stays private"}
        )
    competition.save(update_fields=sorted(changes))
    return competition
