"""A round's tables written at once on PostgreSQL: its matches and their seats in one
statement (``services.rounds.pair_next``), every column sent as one array.

A round robin of 46 bots pairs a round of 23 matches and 46 seats for every 23 results
it records: through the ORM's two bulk inserts that was several milliseconds of this
process's time a round, most of it turning each value into SQL. Here each column's
values are prepared as the ORM saves them (``get_db_prep_save``, after ``pre_save``)
and sent as an array, in one statement whose text depends on nothing but the models.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import connection

from tournaments.models import Match, MatchSeat
from tournaments.services import record_statements as recording


def _fields(model, *, without: tuple[str, ...]) -> list:
    return [f for f in model._meta.concrete_fields if not f.primary_key and f.name not in without]


@functools.cache
def _statement() -> str:
    quote = connection.ops.quote_name

    def arrays(fields) -> str:
        return ", ".join(f"%b::{f.db_type(connection)}[]" for f in fields)

    def columns(fields) -> str:
        return ", ".join(quote(f.column) for f in fields)

    matches = _fields(Match, without=())
    seats = _fields(MatchSeat, without=("match",))
    table = quote(Match._meta.get_field("table").column)
    names = ", ".join(f"c{i}" for i in range(len(seats)))
    return (
        f"WITH m AS (INSERT INTO {quote(Match._meta.db_table)} ({columns(matches)}) "
        f"SELECT * FROM unnest({arrays(matches)}) RETURNING id, {table}), "
        f"s AS (INSERT INTO {quote(MatchSeat._meta.db_table)} "
        f"({quote(MatchSeat._meta.get_field('match').column)}, {columns(seats)}) "
        f"SELECT m.id, {names} FROM unnest(%b::integer[], {arrays(seats)}) "
        f"AS v(t, {names}) JOIN m ON m.{table} = v.t RETURNING 1) "
        f"SELECT id, {table} FROM m"
    )


def _column_values(objects: list, fields) -> list[list[Any]]:
    """Each field's values of ``objects`` as the ORM saves them; a value repeated down a
    column (most of a round's columns hold one) prepared once."""
    columns: list[list[Any]] = []
    for field in fields:
        stamped = getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        prepared: dict[Any, Any] = {}
        column = []
        for obj in objects:
            value = field.pre_save(obj, True) if stamped else getattr(obj, field.attname)
            try:
                column.append(prepared[value])
            except KeyError:
                column.append(prepared.setdefault(value, field.get_db_prep_save(value, connection)))
            except TypeError:  # (a dict or a list: not a key)
                column.append(field.get_db_prep_save(value, connection))
        columns.append(column)
    return columns


def tables_insert(matches: list[Match], seats: list[MatchSeat]) -> None:
    """Insert ``matches`` (one round's: their ``table`` numbers differ) and ``seats`` (each
    with its match among them) in one statement; each match gets its id."""
    by_table = {m.table: m for m in matches}
    if len(by_table) != len(matches):
        raise ValueError("two matches of one round at the same table")
    params = _column_values(matches, _fields(Match, without=()))
    params.append([seat.match.table for seat in seats])
    params += _column_values(seats, _fields(MatchSeat, without=("match",)))
    with recording.prepared_cursor() as cursor:
        cursor.execute(_statement(), params)
        rows = cursor.fetchall()
    for pk, table in rows:
        match = by_table[table]
        match.pk = pk
        match._state.adding, match._state.db = False, connection.alias
    for seat in seats:
        seat.match_id = seat.match.pk
        seat._state.adding, seat._state.db = False, connection.alias
