"""The computer's wake-up: the transaction that makes it the computer's turn tells the
scheduler, which plays the move at once instead of at its next ``computer`` run; the
transaction that ends a game does the same, for its analysis.

On PostgreSQL the transaction sends ``NOTIFY pbem_computer``, which the server delivers
when it commits (never for a transaction rolled back), to the scheduler's ``LISTEN`` on a
connection of its own. On SQLite (one machine, no such messages) the scheduler asks
ten times a second for the move log's newest id (the end of its primary key), the
number of games dealt (a scan of the games, which one machine's database keeps short)
and the number of record files' analyses asked for (as short: they expire with the
uploads).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any, Protocol

from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from .db import Database, DatabaseUnavailable, is_sqlite
from .models import Game, MoveRow, RecordAnalysis

CHANNEL = "pbem_computer"
#: Bot accounts' streams (docs/bots.md): a move, a deal or an invitation in a game with a
#: bot's seat; the web worker holding the bot's stream or long poll listens.
BOTS = "pbem_bots"
#: Sent without waiting for its answer (``postgresql.py``): it comes with the COMMIT's,
#: so a move against the computer stays two round trips.
_NOTIFY = text(f"NOTIFY {CHANNEL}").execution_options(pbem_unanswered=True)
_NEWEST = select(
    func.max(MoveRow.id),
    select(func.count(Game.dealt_at)).scalar_subquery(),
    select(func.count()).select_from(RecordAnalysis).scalar_subquery(),
)
#: What a bot's listener watches on SQLite: the computer's, and the games made (an invitation).
_NEWEST_FOR_BOTS = select(
    func.max(MoveRow.id),
    select(func.count(Game.dealt_at)).scalar_subquery(),
    select(func.count(Game.id)).scalar_subquery(),
)
_NOTIFY_BOTS = text(f"NOTIFY {BOTS}").execution_options(pbem_unanswered=True)
#: SQLite: seconds between two looks at the move log.
POLL = 0.1


def computer_to_move(session: Session) -> None:
    """In the transaction that makes it the computer's turn: wake the scheduler on commit."""
    if session.get_bind().dialect.name == "postgresql":
        session.connection().execute(_NOTIFY)


def game_over(session: Session) -> None:
    """In the transaction that ends a game, or asks for a record file's analysis: wake
    the scheduler on commit, which begins the analysis at once (the computer's signal: a
    wake-up runs both jobs, and one that finds nothing to do costs a query)."""
    computer_to_move(session)


def bots_told(session: Session) -> None:
    """In a transaction that changes a game with a bot's seat: wake its stream on commit."""
    if session.get_bind().dialect.name == "postgresql":
        session.connection().execute(_NOTIFY_BOTS)


class Listener(Protocol):
    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds; True if woken (it may be the computer's turn)."""


class _Notifications:
    """PostgreSQL: ``LISTEN`` on a plain psycopg connection (the pool's are pipelined)."""

    def __init__(self, url: str, channel: str = CHANNEL) -> None:
        import psycopg

        parsed = make_url(url)
        given: dict[str, Any] = {
            "host": parsed.host,
            "port": parsed.port,
            "dbname": parsed.database,
            "user": parsed.username,
            "password": parsed.password,
            **{k: v for k, v in parsed.query.items() if isinstance(v, str)},
        }  # what the URL leaves out, libpq's defaults give (a socket, PGUSER …)
        try:
            self.connection = psycopg.connect(
                autocommit=True, **{k: v for k, v in given.items() if v not in (None, "")}
            )
            self.connection.execute(f"LISTEN {channel}")
        except psycopg.OperationalError as exc:  # the server is restarting or gone
            raise DatabaseUnavailable(str(exc).splitlines()[0]) from None

    def wait(self, timeout: float) -> bool:
        import psycopg

        woken = False
        try:
            for _ in self.connection.notifies(timeout=timeout, stop_after=1):
                woken = True
            if woken:  # the others that came meanwhile ask for the same run
                for _ in self.connection.notifies(timeout=0):
                    pass
        except psycopg.OperationalError as exc:  # the server ended the connection
            raise DatabaseUnavailable(str(exc).splitlines()[0]) from None
        return woken

    def close(self) -> None:
        self.connection.close()


class _Poll:
    """SQLite: the move log's newest id, the games dealt and the record files' analyses
    asked for, read every ``POLL`` seconds."""

    def __init__(self, db: Database, poll: float, query: Any = _NEWEST) -> None:
        self.db, self.poll, self.query = db, poll, query
        self.newest = self._newest()

    def _newest(self) -> tuple[object, ...]:
        with self.db.read() as session:
            return tuple(session.execute(self.query).one())

    def wait(self, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while True:
            newest = self._newest()
            if newest != self.newest:
                self.newest = newest
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(self.poll, left))

    def close(self) -> None:
        pass


@contextlib.contextmanager
def listening(db: Database, poll: float = POLL, *, bots: bool = False) -> Iterator[Listener]:
    """A listener for the computer's wake-up (``bots``: for a bot's stream), from now on
    (what came before is not told)."""
    listener: _Notifications | _Poll
    if is_sqlite(db.url):
        listener = _Poll(db, poll, _NEWEST_FOR_BOTS if bots else _NEWEST)
    else:
        listener = _Notifications(db.url, BOTS if bots else CHANNEL)
    try:
        yield listener
    finally:
        listener.close()
