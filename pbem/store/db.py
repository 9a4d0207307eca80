"""Engines, sessions and the schema check, for SQLite and PostgreSQL alike.

Write use cases run in ``Database.write()``: on SQLite that transaction starts
with ``BEGIN IMMEDIATE`` so two writers queue on the database lock instead of
both reading a log and then failing to upgrade; on PostgreSQL two racing moves
both try ``INSERT … n`` and ``UNIQUE(game_id, n)`` lets only one commit.

On PostgreSQL every round trip counts under load: each one waits for the server's
process to get a core, on cores the web workers keep busy. So a pooled connection
is pinged before use only after it has lain idle (``PING_IDLE_AFTER``), and a use
case that reads with one query and logs one row runs in ``Database.autocommit()``,
without BEGIN and COMMIT.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event, exc, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from . import migrate


class SchemaError(RuntimeError):
    """The database is not at the schema this code needs."""


class DatabaseUnavailable(RuntimeError):
    """The database did not answer, or dropped the connection: try again in a moment.

    Raised instead of the driver's error so the web layer can answer 503 without
    knowing the driver. The transaction is gone with the connection: if it failed
    before COMMIT nothing of it was written; a move caught by a failing COMMIT is
    either in the log or not, and the game's page says which.
    """


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


#: Seconds a pooled PostgreSQL connection may lie unused and still be handed out
#: without a ping. A database restarted while the site is quiet (the usual time for
#: it) goes unnoticed by players; one restarted under load fails the requests that
#: were using its connections (503, see DatabaseUnavailable), and the pool replaces them all.
PING_IDLE_AFTER = 5.0


def make_engine(url: str, **kwargs: Any) -> Engine:
    if not is_sqlite(url):
        engine = create_engine(url, **kwargs)
        _ping_when_idle(engine)
        return engine
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
        options = connection.get_execution_options()
        if options.get("pbem_autocommit"):
            return  # each statement its own transaction: no BEGIN
        connection.exec_driver_sql("BEGIN IMMEDIATE" if options.get("pbem_write") else "BEGIN")

    return engine


def _ping_when_idle(engine: Engine) -> None:
    """``pool_pre_ping``, but only for a connection idle longer than ``PING_IDLE_AFTER``.

    A ping is a round trip on every request, which under load costs as much wall time
    as the game's own query. A connection that served a request a moment ago is as
    alive as a ping would show.
    """

    @event.listens_for(engine, "checkin")
    def _idle_from(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since <= PING_IDLE_AFTER:
            return  # new, or just used
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:  # the pool opens a new connection instead
            raise exc.DisconnectionError(str(error)) from error


class Database:
    def __init__(self, url: str, engine: Engine | None = None) -> None:
        self.url = url
        self.engine = engine or make_engine(url)
        self._sqlite = is_sqlite(url)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(
            self.engine.execution_options(pbem_write=True), expire_on_commit=False
        )
        # SQLite's connections are in the sqlite3 module's autocommit mode already (no
        # implicit BEGIN, see make_engine), and changing their isolation level would
        # undo that: there, autocommit only means that no BEGIN is emitted.
        autocommit = (
            {"pbem_autocommit": True} if self._sqlite else {"isolation_level": "AUTOCOMMIT"}
        )
        self._autocommit = sessionmaker(
            self.engine.execution_options(**autocommit), expire_on_commit=False
        )

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading (and the access log); committed at the end if all went well."""
        with self._reachable(), self._read.begin() as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One use case's transaction: all of it commits, or none of it."""
        with self._reachable(), self._write.begin() as session:
            yield session

    @contextmanager
    def autocommit(self) -> Iterator[Session]:
        """A session whose statements each commit on their own, with no BEGIN or COMMIT.

        For a use case that reads with one query and then logs one row (a seat page):
        two round trips instead of four. Its statements are not one transaction, so
        nothing that must be all-or-nothing belongs here.
        """
        with self._reachable(), self._autocommit() as session:
            yield session

    @contextmanager
    def _reachable(self) -> Iterator[None]:
        """Turn a lost or refused connection into ``DatabaseUnavailable``.

        On PostgreSQL every ``OperationalError`` is the server or the network (down,
        restarted, a connection cut); on SQLite it is mostly a held lock, which the
        use cases handle, so there only a connection SQLAlchemy gave up on counts.
        """
        try:
            yield
        except (exc.OperationalError, exc.InterfaceError) as error:
            if error.connection_invalidated or not self._sqlite:
                raise DatabaseUnavailable(str(error.orig)) from error
            raise

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
