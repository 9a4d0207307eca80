"""Engines, sessions and the schema check, for SQLite and PostgreSQL alike.

Write use cases run in ``Database.write()``: on SQLite that transaction starts
with ``BEGIN IMMEDIATE`` so two writers queue on the database lock instead of
both reading a log and then failing to upgrade; on PostgreSQL two racing moves
both try ``INSERT … n`` and ``UNIQUE(game_id, n)`` lets only one commit.

On PostgreSQL every round trip counts under load: ``postgresql.py`` says how a move
and a seat page get by with two each. The driver's connections are in autocommit mode
on both databases and the BEGIN is ours (the ``begin`` listeners), so a write
transaction's BEGIN can differ from a read's, and an autocommit session needs no
change of a connection's mode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, cast

from sqlalchemy import CursorResult, Engine, Result, create_engine, event, exc, inspect
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


class Fenced(BaseException):
    """This process is no longer the active scheduler: another took the lease over.

    A ``BaseException``, like ``SystemExit``: a job's ``except Exception`` around one
    item (one mail, one game) must not take it for that item's failure and go on to the
    next; it ends the whole run, and the scheduler stands by (``pbem/leadership.py``).
    """


class Fence(Protocol):
    """What the active scheduler's writes are checked against (``pbem.leadership.Lease``)."""

    def check(self, session: Session) -> None:
        """In a write transaction: raise ``Fenced`` unless the lease is still ours."""

    def ensure_live(self) -> None:
        """Before an effect outside the database (a mail): raise ``Fenced`` unless the lease
        is still current by this process's clock."""


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def safe_url(url: str) -> str:
    """The URL with its password hidden, for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except exc.ArgumentError:
        return "(not a database URL)"


def make_engine(url: str, **kwargs: Any) -> Engine:
    if not is_sqlite(url):
        from .postgresql import postgresql_engine  # only PostgreSQL's engines need psycopg

        return postgresql_engine(url, **kwargs)
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


class Database:
    def __init__(self, url: str, engine: Engine | None = None) -> None:
        self.url = url
        self.engine = engine or make_engine(url)
        self._sqlite = is_sqlite(url)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(
            self.engine.execution_options(pbem_write=True), expire_on_commit=False
        )
        # The driver's connections are in autocommit mode on both databases (see
        # make_engine): an autocommit session only leaves out our BEGIN.
        self._autocommit = sessionmaker(
            self.engine.execution_options(pbem_autocommit=True), expire_on_commit=False
        )
        #: Set in ``pbem scheduler``: every write transaction checks it first.
        self.fence: Fence | None = None
        self._answer_for: Callable[[Session], None] | None = None  # SQLite answers at once
        if not self._sqlite:
            from .postgresql import answer_for

            self._answer_for = answer_for

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading (and the access log); committed at the end if all went well."""
        with self._reachable(), self._read.begin() as session:
            yield session

    @contextmanager
    def write(self, *, fenced: bool = True) -> Iterator[Session]:
        """One use case's transaction: all of it commits, or none of it.

        With a ``fence`` set, it first checks that this process is still the active
        scheduler (``Fenced`` if not), in the same transaction as the work it guards.
        ``fenced=False`` is for the lease's own statements, and for recording what has
        already happened outside (a mail the relay accepted).
        """
        with self._reachable(), self._write.begin() as session:
            if fenced and self.fence is not None:
                self.fence.check(session)
            yield session

    def ensure_live(self) -> None:
        """Raise ``Fenced`` if this is a scheduler whose lease has lapsed (no-op otherwise)."""
        if self.fence is not None:
            self.fence.ensure_live()

    @contextmanager
    def autocommit(self) -> Iterator[Session]:
        """A session whose statements each commit on their own, with no BEGIN or COMMIT.

        For a use case that reads with one query and then logs one row (a seat page):
        two round trips instead of four. Its statements are not one transaction, so
        nothing that must be all-or-nothing belongs here.
        """
        with self._reachable(), self._autocommit() as session:
            yield session
            if self._answer_for is not None and session.in_transaction():
                self._answer_for(session)  # the last INSERT's answer: its error is ours

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


def rowcount(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE matched. ``Session.execute`` is typed as returning a
    ``Result``; a statement that changes rows returns a ``CursorResult``, which counts them."""
    return cast("CursorResult[Any]", result).rowcount
