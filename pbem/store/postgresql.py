"""PostgreSQL's engine: few round trips per use case, and none wasted.

PostgreSQL runs on the cores the web workers keep busy, so each round trip waits for
its backend to get a core. So:

- every connection stays in psycopg's pipeline mode, and a plain INSERT (no
  RETURNING) and our own BEGIN are sent without waiting for their answers, which
  come with the next statement that needs one: a SELECT, an UPDATE, the COMMIT. A
  move is then two round trips: BEGIN with the game's SELECT, and its INSERTs with
  the COMMIT. Anything else waits for its answer at once, so SQLAlchemy sees rows
  and row counts as it always does;
- the driver's connection is in autocommit mode and the BEGIN is ours (the ``begin``
  listener): SQLAlchemy then never switches a connection's mode (a round trip each in
  pipeline mode), and an autocommit session (``Database.autocommit``) sends no BEGIN;
- a rollback with nothing sent and nothing open sends nothing (``PipelinedConnection``);
- a pooled connection is pinged before use only after it has lain idle
  (``PING_IDLE_AFTER``);
- a cursor's description builds its columns only when they are read (``_Cursor``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any, cast

import psycopg
from psycopg import pq
from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.orm import Session

#: Seconds a pooled PostgreSQL connection may lie unused and still be handed out
#: without a ping. A database restarted while the site is quiet (the usual time for
#: it) goes unnoticed by players; one restarted under load fails the requests that
#: were using its connections (503, see DatabaseUnavailable), and the pool replaces them all.
PING_IDLE_AFTER = 5.0

IDLE = pq.TransactionStatus.IDLE
_TUPLES = tuple(
    getattr(pq.ExecStatus, name)
    for name in ("TUPLES_OK", "SINGLE_TUPLE", "TUPLES_CHUNK")  # TUPLES_CHUNK: psycopg 3.2+
    if hasattr(pq.ExecStatus, name)
)

#: ``_Cursor`` reads what psycopg's ``Column`` reads of a cursor, ``_encoding`` among it (a
#: private name); a psycopg without it keeps its own cursor, only slower.
LAZY_DESCRIPTIONS = hasattr(psycopg.Cursor, "_encoding")


class _Fields:
    """What a ``psycopg.Column`` reads of its cursor, as it was when described."""

    __slots__ = ("_encoding", "adapters", "pgresult")

    def __init__(self, cursor: psycopg.Cursor[Any]) -> None:
        self.pgresult = cursor.pgresult
        self._encoding = cursor._encoding
        self.adapters = cursor.adapters


class _Description(Sequence[psycopg.Column]):
    """A result's description, its ``Column`` objects built when first read.

    SQLAlchemy asks for the description of every statement's result, but reads its
    columns only the first time a statement runs (then keeps the result's layout with
    the compiled statement). psycopg built a ``Column`` per field every time: 37 for a
    game with its seats, a few percent of a move's instructions.
    """

    __slots__ = ("_columns", "_count", "_fields")

    def __init__(self, cursor: psycopg.Cursor[Any], count: int) -> None:
        self._fields, self._count = _Fields(cursor), count
        self._columns: list[psycopg.Column] | None = None

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: Any) -> Any:
        if self._columns is None:
            fields = self._fields
            self._columns = [psycopg.Column(fields, i) for i in range(self._count)]  # type: ignore[arg-type]
        return self._columns[index]


class _Cursor(psycopg.Cursor[Any]):
    """psycopg's cursor, with the description above (the same columns, read lazily)."""

    @property
    def description(self) -> Any:
        result = self.pgresult
        if result and (result.nfields or result.status in _TUPLES):
            return _Description(self, result.nfields)
        return None


class PipelinedConnection(psycopg.Connection[Any]):
    """A connection that, once ``pipelined``, stays in pipeline mode for its life.

    ``answer`` waits for what was sent without waiting. ``rollback`` first collects
    what a failed transaction sent behind its error: after an error the server skips
    the rest of the pipeline, and each statement behind the failed one answers
    "pipeline aborted", which belongs to the error already raised, not to the ROLLBACK.
    """

    _mode: psycopg.Pipeline | None = None
    _entered: contextlib.AbstractContextManager[psycopg.Pipeline] | None = None

    def pipelined(self) -> None:
        if LAZY_DESCRIPTIONS:
            self.cursor_factory = _Cursor
        if psycopg.Pipeline.is_supported():  # else (libpq older than 14) one round trip each
            self._entered = self.pipeline()
            self._mode = self._entered.__enter__()

    def answer(self) -> None:
        if self._mode is not None:
            self._mode.sync()

    def rollback(self) -> None:
        if self._mode is None:
            return super().rollback()
        if self.info.transaction_status == IDLE:
            return  # nothing pending, nothing open: psycopg would still sync, a round trip
        for _ in range(3):  # each failed sync consumes what had arrived; one more ends it
            try:
                self._mode.sync()
                break
            except psycopg.Error:
                continue
        return super().rollback()

    def close(self) -> None:
        entered, self._entered, self._mode = self._entered, None, None
        if entered is not None and not self.broken:
            with contextlib.suppress(psycopg.Error):  # closing anyway
                entered.__exit__(None, None, None)
        super().close()


def postgresql_engine(url: str, **kwargs: Any) -> Engine:
    engine = create_engine(url, isolation_level="AUTOCOMMIT", **kwargs)

    @event.listens_for(engine, "do_connect")
    def _connect(_dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        return PipelinedConnection.connect(*cargs, **cparams)

    @event.listens_for(engine, "connect")
    def _enter_pipeline(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.pipelined()  # after SQLAlchemy's own first queries

    @event.listens_for(engine, "after_cursor_execute")
    def _answer_unless_insert(
        connection: Any, _cursor: Any, _sql: str, _params: Any, context: Any, _many: bool
    ) -> None:
        if context.isinsert and not context.compiled.effective_returning:
            return  # its answer comes with the next statement's, an error included
        if context.execution_options.get("pbem_unanswered"):
            return  # a statement that returns nothing (a NOTIFY): the same
        connection.connection.dbapi_connection.answer()

    _begin_with_first_statement(engine)
    _ping_when_idle(engine)
    _ended_by_the_server(engine)
    return engine


#: SQLSTATEs of a connection the server ended: an operator or a shutdown (57P01-57P03),
#: a transaction left idle too long (25P03, ``store.leadership.end_hung_transactions``).
ENDED = frozenset({"57P01", "57P02", "57P03", "25P03"})


def _ended_by_the_server(engine: Engine) -> None:
    """Treat a connection the server ended as lost, whenever the error shows.

    In pipeline mode the server's FATAL can arrive as the answer to a COMMIT before
    psycopg sees the socket close: SQLAlchemy then took the connection for a live one,
    and its pool's rollback on it failed with a logged traceback. Marked a disconnect,
    the connection is dropped with the pool's others of its age, and the next use opens
    a new one.
    """

    @event.listens_for(engine, "handle_error")
    def _lost(context: Any) -> None:
        if getattr(context.original_exception, "sqlstate", None) in ENDED:
            context.is_disconnect = True


def _begin_with_first_statement(engine: Engine) -> None:
    """Our BEGIN, sent with the transaction's first statement.

    There SQLAlchemy turns a lost connection into its own error (and the pool drops
    the connection); a transaction that runs no statement sends nothing at all.
    """

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        if not connection.get_execution_options().get("pbem_autocommit"):
            connection.info["pbem_begin"] = True  # else each statement its own transaction

    @event.listens_for(engine, "commit")
    @event.listens_for(engine, "rollback")
    def _end(connection: Any) -> None:
        if not connection.invalidated:  # a lost connection takes its flag with it
            connection.info.pop("pbem_begin", None)

    @event.listens_for(engine, "before_cursor_execute")
    def _begin_first(
        connection: Any, cursor: Any, _sql: str, _params: Any, _context: Any, _many: bool
    ) -> None:
        if connection.info.pop("pbem_begin", False):
            cursor.connection.execute("BEGIN", prepare=False)


def answer_for(session: Session) -> None:
    """Wait for the answer to what the session sent last, failing as SQLAlchemy's
    own statements do (an ``IntegrityError``; a lost connection invalidated)."""
    connection = session.connection()
    dbapi_connection = connection.connection.dbapi_connection
    try:
        # every connection of the engine is a PipelinedConnection (its ``do_connect`` hook)
        cast(PipelinedConnection, dbapi_connection).answer()
    except psycopg.Error as error:
        lost = connection.dialect.is_disconnect(
            error,  # type: ignore[arg-type]  # SQLAlchemy's stubs type the error as its DBAPI's
            dbapi_connection,
            None,
        )
        if lost:
            connection.invalidate(error)
        raise exc.DBAPIError.instance(
            None, None, error, psycopg.Error, connection_invalidated=lost
        ) from error


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
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT 1", prepare=False)
                dbapi_connection.answer()  # in pipeline mode: wait for it, or it proves nothing
        except Exception as error:  # the pool opens a new connection instead
            raise exc.DisconnectionError(str(error)) from error
