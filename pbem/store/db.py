"""Engines, sessions and the schema check, for SQLite and PostgreSQL alike.

Write use cases run in ``Database.write()``: on SQLite that transaction starts
with ``BEGIN IMMEDIATE`` so two writers queue on the database lock instead of
both reading a log and then failing to upgrade; on PostgreSQL two racing moves
both try ``INSERT … n`` and ``UNIQUE(game_id, n)`` lets only one commit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from . import migrate


class SchemaError(RuntimeError):
    """The database is not at the schema this code needs."""


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str, **kwargs: Any) -> Engine:
    if not is_sqlite(url):
        return create_engine(url, pool_pre_ping=True, **kwargs)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, **kwargs)

    @event.listens_for(engine, "connect")
    def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the sqlite3 module so BEGIN is ours to emit.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA busy_timeout = 30000")
        if make_url(url).database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _sqlite_begin(connection: Any) -> None:
        write = connection.get_execution_options().get("pbem_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


class Database:
    def __init__(self, url: str, engine: Engine | None = None) -> None:
        self.url = url
        self.engine = engine or make_engine(url)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(
            self.engine.execution_options(pbem_write=True), expire_on_commit=False
        )

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading (and the access log); committed at the end if all went well."""
        with self._read.begin() as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One use case's transaction: all of it commits, or none of it."""
        with self._write.begin() as session:
            yield session

    def check_schema(self) -> None:
        """Refuse to serve a database that is not migrated to the head revision."""
        current, head = migrate.current_revision(self.engine), migrate.head_revision()
        if current != head:
            state = "not set up" if current is None else f"at revision {current}, not {head}"
            raise SchemaError(f"the database is {state}: run `pbem db upgrade` first")

    def dispose(self) -> None:
        self.engine.dispose()


def table_names(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names())
