"""What a move and a seat page say to the database: a fixed, short list of statements.

A lazy load slipping into a page (the seats, the vacations, the log) would add a round
trip to every request; docs/performance.md counts them, and this keeps them counted.
On PostgreSQL the round trips themselves are counted too, in libpq's protocol trace:
pipeline mode (pbem/store/postgresql.py) sends several statements per round trip.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from pbem.services.core import access
from pbem.services.core.env import Env
from pbem.services.play import game_pages, moves, new_games
from pbem.store.db import is_sqlite
from tests.services.test_replay_cache import _move, _new_game, statements


def outer_from(select: str) -> str:
    """The table of a SELECT's own FROM (not of a subquery in its column list)."""
    depth = 0
    for i, char in enumerate(select):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and select.startswith(" FROM ", i):
            return select[i + 6 :].split()[0]
    raise AssertionError(select)


def kinds(seen: list[str]) -> list[str]:
    """``SELECT games``, ``INSERT moves``… for each statement sent (not BEGIN or COMMIT)."""
    out = []
    for statement in seen:
        verb = statement.split()[0]
        if verb == "SELECT":
            out.append(f"SELECT {outer_from(statement)}")
        elif verb == "UPDATE":
            out.append(f"UPDATE {statement.split()[1]}")
        elif verb in ("INSERT", "DELETE"):  # INSERT INTO t, DELETE FROM t
            out.append(f"{verb} {statement.split()[2]}")
    return out


def a_move_to_make(env: Env) -> tuple[str, int, str]:
    """The token of the seat to move in a game one move old, the move's number, a move."""
    _, tokens = _new_game(env)
    _move(env, tokens)
    page = game_pages.seat_page(env, tokens[0], access.Client())
    token = tokens[0] if page.view.my_turn else tokens[1]
    return token, page.next_n, game_pages.legal_moves(env, token)[0]


def test_a_move_is_one_select_and_three_inserts(env: Env):
    token, n, move = a_move_to_make(env)
    with statements(env) as seen:
        moves.submit_move(env, token, n, move, access.Client())
    assert kinds(seen) == [
        "SELECT games",
        "INSERT moves",
        "INSERT access_log",
        "INSERT outbox",  # the move's mails (your turn; a receipt if asked for), one statement
    ]


def test_a_seat_page_is_one_select_and_the_access_log(env: Env):
    _, tokens = _new_game(env)
    for _ in range(3):
        _move(env, tokens)
    game_pages.seat_page(env, tokens[0], access.Client())
    with statements(env) as seen:
        page = game_pages.seat_page(env, tokens[1], access.Client())
    assert page.next_n == 4
    assert kinds(seen) == ["SELECT games", "INSERT access_log"]


@contextmanager
def round_trips(env: Env) -> Iterator[list[int]]:
    """How often the client waited for PostgreSQL: each Sync (extended protocol,
    pipelined or not), Flush or simple Query is answered before the client goes on.
    The count is in the list once the block ends."""
    if is_sqlite(env.db.url):
        pytest.skip("round trips are PostgreSQL's; SQLite is in the process")
    from psycopg import pq

    traced: list[Any] = []
    count: list[int] = []
    with tempfile.TemporaryFile() as trace:

        def start(dbapi_connection: Any, *_args: Any) -> None:
            dbapi_connection.pgconn.trace(trace.fileno())
            dbapi_connection.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
            traced.append(dbapi_connection)

        event.listen(env.db.engine, "checkout", start)
        try:
            yield count
        finally:
            event.remove(env.db.engine, "checkout", start)
            for dbapi_connection in traced:
                dbapi_connection.pgconn.untrace()
            trace.seek(0)
            sent = [line.split("\t") for line in trace.read().decode().splitlines()]
            count.append(sum(m[0] == "F" and m[2] in ("Sync", "Flush", "Query") for m in sent))


def test_on_postgresql_a_move_is_two_round_trips(env: Env):
    """BEGIN with the game's SELECT, then the three INSERTs with the COMMIT."""
    token, n, move = a_move_to_make(env)
    with round_trips(env) as count:
        moves.submit_move(env, token, n, move, access.Client())
    assert count == [2]


def test_on_postgresql_a_seat_page_is_two_round_trips(env: Env):
    """The game's SELECT, then the access-log INSERT (no transaction around them)."""
    _, tokens = _new_game(env)
    _move(env, tokens)
    game_pages.seat_page(env, tokens[1], access.Client())
    with round_trips(env) as count:
        game_pages.seat_page(env, tokens[1], access.Client())
    assert count == [2]


def test_on_postgresql_a_move_against_the_computer_is_two_round_trips_with_its_notify(env: Env):
    """The NOTIFY that wakes the scheduler (store/wakeup.py) goes unanswered with the
    INSERTs, and its answer comes with the COMMIT's: no round trip of its own."""
    from pbem.services.play import computer

    created = computer.start(
        env, new_games.PlayerIn("Ada", "rt@example.test"), "easy", contribution=bytes(32)
    )
    computer.computer_moves(env)
    token = created.tokens[0]
    page = game_pages.seat_page(env, token, access.Client())
    move = game_pages.legal_moves(env, token)[0]
    with round_trips(env) as count, statements(env) as seen:
        moves.submit_move(env, token, page.next_n, move, access.Client())
    assert count == [2]
    assert [s for s in seen if s.startswith("NOTIFY")] == ["NOTIFY pbem_computer"]
