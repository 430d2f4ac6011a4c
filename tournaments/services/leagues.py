"""League seasons: divisions cut at the start or placed by hand, and the next season
with promotion and relegation (docs/leagues.md)."""

from __future__ import annotations

import re
import secrets

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from tournaments import selectors
from tournaments.formats import league
from tournaments.integrity import deals
from tournaments.models import Competition, Entry
from tournaments.permissions import require_manager
from tournaments.ratings import Rating

#: How each seeding reads in a sentence ("seeded by rating").
SEEDING_WORDS = {"rating": "by rating", "manual": "by hand", "random": "at random"}


def table_sides(seats: int, partnerships: str) -> int:
    """How many entries make a table: its ``seats``, or two teams when ``partnerships``
    are fixed (a team is one side of a partnership table)."""
    return 2 if partnerships == Competition.Partnerships.FIXED else seats


def check_league_settings(
    kind: str,
    seats: int,
    *,
    division_size: int | None,
    promote: int,
    relegate: int | None,
    partnerships: str = "",
) -> None:
    """``ValidationError`` naming the division setting a competition of ``kind`` played at
    ``seats`` seats cannot use (module ``formats.league``; the entries are checked at the
    start, when their number is known). League seasons only: ``division_size`` (the most
    entries a division holds, at least one table: the seats, or two teams when
    ``partnerships`` are fixed; None for one division) and ``promote``, how many go up
    from each division and down from the one above between seasons; ``relegate``, if
    given, must equal it (docs/leagues.md)."""
    if kind != Competition.Kind.LEAGUE_SEASON:
        if division_size is not None:
            raise ValidationError({"division_size": "divisions are for league seasons"})
        if promote or relegate:
            raise ValidationError({"promote": "promotion and relegation are for league seasons"})
        return
    sides = table_sides(seats, partnerships)
    if division_size is not None and (
        isinstance(division_size, bool)
        or not isinstance(division_size, int)
        or division_size < sides
    ):
        what = "teams (two fixed teams make a table)" if sides != seats else "entries"
        raise ValidationError(
            {
                "division_size": f"a division needs at least one table: {sides} {what} or "
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


@transaction.atomic
def league_assign_divisions(
    *, competition: Competition, division_size: int, by=None
) -> list[list[int]]:
    """Cut a draft league season's entries into divisions, strongest (by rating) first
    (``formats.league.league_divisions``), and keep ``division_size`` for its start."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    require_manager(competition, by)
    if competition.kind != Competition.Kind.LEAGUE_SEASON:
        raise ValidationError({"division_size": "divisions are for league seasons"})
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError("divisions are set before the season starts")
    check_league_settings(
        competition.kind,
        competition.seats_per_table,
        division_size=division_size,
        promote=competition.promote,
        relegate=None,
        partnerships=competition.partnerships,
    )
    competition.division_size = division_size
    competition.save(update_fields=["division_size"])
    return _cut_divisions(competition)


def check_seeding(kind: str, seeding: str | None, seeding_seed: int | None) -> str:
    """The ``seeding`` a competition of ``kind`` stores (``rating`` by default); a
    ``ValidationError`` naming ``seeding`` or ``seeding_seed`` for one it cannot take:
    seeding is for league seasons, a seed for a random one only."""
    Seeding = Competition.Seeding
    if kind != Competition.Kind.LEAGUE_SEASON:
        if seeding not in (None, "", Seeding.RATING) or seeding_seed is not None:
            raise ValidationError({"seeding": "seeding orders a league season's divisions"})
        return Seeding.RATING
    seeding = seeding or Seeding.RATING
    if seeding not in Seeding.values:
        allowed = ", ".join(Seeding.values)
        raise ValidationError({"seeding": f"seeding must be one of {allowed}, got {seeding!r}"})
    if seeding_seed is not None and seeding != Seeding.RANDOM:
        raise ValidationError(
            {"seeding_seed": f"a seed shuffles random seeding only; this seeding is {seeding}"}
        )
    return seeding


def _seeded_order(competition: Competition, entries: list[Entry]) -> list[int]:
    """The entry ids of a first season in the order they are cut: by rating (ties in
    entry order), as its organisers ordered them, or shuffled from its recorded seed
    (drawn now if it has none)."""
    ids = [e.pk for e in entries]
    Seeding = Competition.Seeding
    if competition.seeding == Seeding.MANUAL:
        return ids
    if competition.seeding == Seeding.RANDOM:
        if competition.seeding_seed is None:
            competition.seeding_seed = secrets.randbits(63)
            competition.save(update_fields=["seeding_seed"])
        return league.league_shuffle(ids, competition.seeding_seed)
    ratings = {e.pk: Rating(e.mu, e.sigma).display for e in entries}
    return sorted(ids, key=lambda e: -ratings[e])  # stable: equal ratings in entry order


def _cut_divisions(competition: Competition) -> list[list[int]]:
    """Entry ids per division from the competition's ``division_size``, stored on the
    entries, in the order of its ``seeding``; the errors name ``division_size``."""
    entries = list(competition.entries.filter(withdrawn=False).order_by("seed_order", "id"))
    teams = competition.fixed_teams  # an entry is a side of the table: half its seats
    sides = table_sides(competition.seats_per_table, competition.partnerships)
    size = competition.division_size or max(len(entries), sides)
    what = "teams" if teams else "entries"
    try:
        divisions = league.league_divisions(
            _seeded_order(competition, entries),
            size,
            table_size=competition.seats_per_table,
            partners=teams,
        )
    except ValueError:
        sizes = league.division_sizes(len(entries), size)
        raise ValidationError(
            {
                "division_size": f"divisions of at most {size} do not fit {len(entries)} "
                f"{what}: they make {len(sizes)} divisions of "
                f"{', '.join(map(str, sizes))}, and a division needs at least {sides} "
                f"{what} to make a table"
            }
        ) from None
    _set_divisions(divisions)
    return [list(d) for d in divisions]


def _set_divisions(divisions) -> None:
    for number, members in enumerate(divisions):
        Entry.objects.filter(pk__in=members).update(division=number)


def league_divisions_at_start(competition: Competition) -> None:
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
    require_manager(competition, by)
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


def _require_manual_draft(competition: Competition, field: str) -> None:
    """A ``ValidationError`` naming ``field`` unless ``competition`` is a first league
    season, still a draft, seeded by hand: the only one whose order its organisers set."""
    if competition.kind != Competition.Kind.LEAGUE_SEASON or competition.previous_season_id:
        raise ValidationError(
            {field: "only a league's first season is seeded; a later one keeps its divisions"}
        )
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError({field: "the seeding is fixed once the season has started"})
    if competition.seeding != Competition.Seeding.MANUAL:
        raise ValidationError(
            {
                field: f"{competition.name} is seeded {SEEDING_WORDS[competition.seeding]}: "
                "an order given by hand counts only when its seeding is manual"
            }
        )


@transaction.atomic
def league_seed_order(*, competition: Competition, order: list[int], by=None) -> list[Entry]:
    """Put a first season's entries in ``order`` (entry ids, the first is cut into
    Division 1 first), for a draft seeded by hand. Every entry must be named once.
    Raises ``ValidationError`` naming ``order``."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    require_manager(competition, by)
    _require_manual_draft(competition, "order")
    entries = {e.pk: e for e in competition.entries.all()}
    twice = sorted({pk for pk in order if order.count(pk) > 1})
    unknown = [pk for pk in order if pk not in entries]
    missing = sorted(set(entries) - set(order))
    if twice or unknown or missing:
        problems = [
            f"{label}: {', '.join(map(str, ids))}"
            for label, ids in (("named twice", twice), ("not entries of it", unknown))
            if ids
        ]
        if missing:
            names = ", ".join(f"{pk} ({entries[pk].name})" for pk in missing)
            problems.append(f"left out: {names}")
        whole = f"order must name each entry of {competition.name} once"
        raise ValidationError({"order": f"{whole}; {'; '.join(problems)}"})
    _store_seed_order([entries[pk] for pk in order])
    return [entries[pk] for pk in order]


@transaction.atomic
def entry_seed_move(*, entry: Entry, places: int, by=None) -> Entry:
    """Move an entry of a first season seeded by hand ``places`` up (negative) or down
    (positive) its draft's order, stopping at either end. Raises ``ValidationError``
    naming ``order``."""
    competition = Competition.objects.select_for_update().get(pk=entry.competition_id)
    require_manager(competition, by)
    _require_manual_draft(competition, "order")
    entries = list(competition.entries.order_by("seed_order", "id"))
    at = next(i for i, e in enumerate(entries) if e.pk == entry.pk)
    moved = entries.pop(at)
    entries.insert(min(max(at + places, 0), len(entries)), moved)
    _store_seed_order(entries)
    return moved


def _store_seed_order(entries: list[Entry]) -> None:
    for position, entry in enumerate(entries):
        entry.seed_order = position
    Entry.objects.bulk_update(entries, ["seed_order"])


@transaction.atomic
def league_next_season(
    *, competition: Competition, name: str | None = None, promote: int | None = None, by=None
) -> Competition:
    """The next season of a finished league, as a draft: same settings, ratings carried
    over, the top ``promote`` of each division moved up and the bottom ``promote`` moved
    down by the final standings (``formats.league.league_next_season``); ``promote``
    defaults to the season's own and is the next season's. A season closed early without
    promotion and relegation (``promotion_applies`` False) moves nobody. Withdrawn and
    disqualified entries are not carried over. Raises ``ValidationError`` for a season
    that is not a finished league season or already has its next one, or a ``promote``
    too large."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    require_manager(competition, by)
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
    # A season closed early without promotion and relegation: everyone stays.
    moving = promote if competition.promotion_applies else 0
    try:
        divisions = league.league_next_season([orders[d] for d in sorted(orders)], promote=moving)
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
                partner_id=old[e].partner_id,  # a team stays a team
                partner_pending=old[e].partner_pending,
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
        partnerships=competition.partnerships,
        seeding=competition.seeding,
        same_owner_tables=competition.same_owner_tables,
        division_size=competition.division_size,
        promote=promote,
        previous_season=competition,
        season=number,
        created_by=competition.created_by,
    )
    season.organisers.set(competition.organisers.all())
    return season
