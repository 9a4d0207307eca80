"""Every table of one database carried into another, ids and all: ``pbem db copy``.

How a group grows from SQLite (the embedded default) to PostgreSQL, or moves a
PostgreSQL database to a new server. The target is migrated by Alembic to the same head
as the source, so it has the same tables, constraints and append-only triggers; the rows
go in with plain INSERTs (which the triggers allow), table by table in the order of the
foreign keys, in batches, all in one transaction: a copy that fails leaves the target
as empty as it was. The tables are the models' (``Base.metadata``), so a table a later
migration adds is carried without a change here.

On PostgreSQL the ids taken from the source leave the id sequences behind: each is set
past the largest id copied, or the next INSERT would collide with a copied row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    DateTime,
    Engine,
    Integer,
    Table,
    create_engine,
    func,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from . import migrate
from .db import is_sqlite, make_engine, safe_url
from .models import Base

#: Rows read and inserted at a time: few round trips, and memory bounded by the batch.
BATCH = 1000


class CopyRefused(RuntimeError):
    """The copy cannot start: the message says why and what to do; nothing was written."""


@dataclass
class Copied:
    """What a copy carried: rows per table, in the order they went in."""

    rows: dict[str, int] = field(default_factory=dict)
    #: True when the target had no tables at all and was migrated to head first.
    migrated: bool = False


def tables() -> list[Table]:
    """Every table of the models, parents before the tables that refer to them."""
    return list(Base.metadata.sorted_tables)


def open_engine(url: str) -> Engine:
    """An engine for a copy's side: on PostgreSQL a plain one (no pipelining), whose
    transactions are REPEATABLE READ, so the source is read as one snapshot."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise CopyRefused(f"not a database URL: {url!r}") from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise CopyRefused(
            f"not a SQLite or PostgreSQL URL: {safe_url(url)} "
            "(write sqlite:///path or postgresql+psycopg://user@host/name)"
        )
    try:
        if is_sqlite(url):
            return make_engine(url)
        return create_engine(url, isolation_level="REPEATABLE READ")
    except (ArgumentError, NoSuchModuleError) as exc:
        raise CopyRefused(f"cannot use {safe_url(url)}: {exc}") from None


def check_exists(url: str) -> None:
    """Refuse a SQLite source that is not there, rather than copy the empty file that
    opening it would make."""
    database = make_url(url).database if is_sqlite(url) else None
    if database and database != ":memory:" and not Path(database).is_file():
        raise CopyRefused(f"there is no database at {database}: check PBEM_DATABASE_URL")


def same_database(a: str, b: str) -> bool:
    """Whether two URLs name the same database (a copy onto itself is refused)."""
    one, two = make_url(a), make_url(b)
    if one.get_backend_name() != two.get_backend_name():
        return False
    if one.get_backend_name() == "sqlite":
        if not one.database or not two.database or ":memory:" in (one.database, two.database):
            return False
        return Path(one.database).resolve() == Path(two.database).resolve()
    return (one.host, one.port or 5432, one.database) == (two.host, two.port or 5432, two.database)


def check(source: Engine, target: Engine) -> bool:
    """Refuse (``CopyRefused``) unless the source is at head and the target is empty at the
    same head. A target with no tables at all is migrated here: returns True then."""
    head = migrate.head_revision()
    at = migrate.current_revision(source)
    if at != head:
        state = "not set up" if at is None else f"at revision {at}, not {head}"
        raise CopyRefused(
            f"the source database is {state}: run `pbem db upgrade` on it first "
            "(with PBEM_DATABASE_URL naming it)"
        )
    migrated = False
    if not inspect(target).get_table_names():
        migrate.upgrade(target)
        migrated = True
    target_at = migrate.current_revision(target)
    if target_at != head:
        state = "not set up by pbem" if target_at is None else f"at revision {target_at}"
        raise CopyRefused(
            f"the target database is {state}, not at the source's revision {head}: "
            "give an empty database (a new one, or one `pbem db upgrade` set up and nothing used)"
        )
    missing = [t.name for t in tables() if not inspect(target).has_table(t.name)]
    if missing:
        raise CopyRefused(f"the target database has no table {', '.join(missing)}")
    with target.connect() as connection:
        used = [t.name for t in tables() if connection.scalar(select(func.count()).select_from(t))]
    if used:
        raise CopyRefused(
            f"the target database is not empty ({', '.join(used)} have rows): "
            "a copy goes only into a new database, so no row of it is overwritten"
        )
    return migrated


def copy(
    source: Engine,
    target: Engine,
    said: Callable[[str, int], None] | None = None,
    batch: int = BATCH,
) -> Copied:
    """Carry every row of ``source`` into ``target`` (see ``check``), ids kept, in one
    transaction of the target's; ``said(table, rows)`` after each table."""
    result = Copied(migrated=check(source, target))
    with source.connect() as reading, target.begin() as writing:
        for table in tables():
            count = 0
            for rows in _batches(reading, table, batch):
                writing.execute(table.insert(), rows)
                count += len(rows)
            result.rows[table.name] = count
            if said is not None:
                said(table.name, count)
        if target.dialect.name == "postgresql":
            _sequences_past_ids(writing)
    return result


def _batches(connection: Connection, table: Table, size: int) -> Iterator[list[dict[str, Any]]]:
    """The table's rows in the order of its primary key, ``size`` at a time."""
    utc = [c.name for c in table.columns if isinstance(c.type, DateTime) and c.type.timezone]
    result = connection.execution_options(yield_per=size).execute(
        select(table).order_by(*table.primary_key.columns)
    )
    for part in result.partitions(size):
        rows = [dict(row._mapping) for row in part]
        for row in rows:
            for name in utc:  # SQLite keeps no zone: every stored time is UTC
                value = row[name]
                if isinstance(value, datetime) and value.tzinfo is None:
                    row[name] = value.replace(tzinfo=UTC)
        yield rows


def _sequences_past_ids(connection: Connection) -> None:
    """Set each id sequence so the next id is past every copied one."""
    for table in tables():
        for column in table.primary_key.columns:
            if not isinstance(column.type, Integer):
                continue
            sequence = connection.scalar(
                text("SELECT pg_get_serial_sequence(:t, :c)"), {"t": table.name, "c": column.name}
            )
            if sequence is None:
                continue
            top = connection.scalar(select(func.max(column)))
            connection.execute(
                text("SELECT setval(CAST(:s AS regclass), :v, :called)"),
                {"s": sequence, "v": top or 1, "called": top is not None},
            )


def game_ids(engine: Engine) -> list[str]:
    """Every game's public id, oldest first: what the copy's verification goes through."""
    games = Base.metadata.tables["games"]
    with engine.connect() as connection:
        return list(connection.scalars(select(games.c.public_id).order_by(games.c.id)))


def flagged(engine: Engine) -> dict[str, str]:
    """The games whose log failed a check (``integrity_error`` set), by public id."""
    games = Base.metadata.tables["games"]
    query = (
        select(games.c.public_id, games.c.integrity_error)
        .where(games.c.integrity_error.is_not(None))
        .order_by(games.c.id)
    )
    with engine.connect() as connection:
        return {row.public_id: row.integrity_error for row in connection.execute(query)}
