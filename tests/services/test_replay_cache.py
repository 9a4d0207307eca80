"""The per-process replay cache (services/core/replayed.py): never authoritative, and cheap
when current.

Two ``Env`` objects on one database stand for two web workers, each with a cache
of its own, so a move made through one is a move the other has not seen.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event

from pbem.engine import replay_moves
from pbem.services.core import access, lookup
from pbem.services.core.env import Env
from pbem.services.play import game_pages, moves, new_games


@contextmanager
def statements(env: Env) -> Iterator[list[str]]:
    seen: list[str] = []

    def note(_conn, _cursor, statement, *_args) -> None:
        seen.append(" ".join(statement.split()))

    event.listen(env.db.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(env.db.engine, "before_cursor_execute", note)


def reads_of_the_log(seen: list[str]) -> list[str]:
    return [s for s in seen if s.startswith("SELECT moves.")]


def _new_game(env: Env) -> tuple[str, list[str]]:
    created = new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    )
    return created.public_id, list(created.tokens)


def _move(env: Env, tokens: list[str]) -> None:
    for token in tokens:
        legal = game_pages.legal_moves(env, token)
        if legal:
            page = game_pages.seat_page(env, token, access.Client())
            moves.submit_move(env, token, page.next_n, legal[-1], access.Client())
            return
    raise AssertionError("nobody could move")


def test_workers_taking_turns_each_see_the_whole_log(env: Env):
    other = Env(config=env.config, db=env.db, clock=env.clock)  # a second worker
    _, tokens = _new_game(env)
    for i in range(12):
        _move((env, other)[i % 3 == 0], tokens)
        for worker in (env, other):
            page = game_pages.seat_page(worker, tokens[0], access.Client())
            with worker.db.read() as session:
                game, _ = lookup.authenticate(worker, session, tokens[0])
                rows = lookup.log_rows(session, game)
            assert [e.n for e in page.entries] == [r.n for r in rows]
            assert [e.hash for e in page.entries] == [r.hash for r in rows]
            seed = bytes.fromhex(game.seed)
            fresh = replay_moves(seed, lookup.logged_moves(rows), game.first_player)
            assert page.next_n == len(rows) + 1
            assert page.view.my_turn == (fresh.to_move == 0)


def test_a_current_cache_reads_no_log_rows(env: Env):
    _, tokens = _new_game(env)
    for _ in range(5):
        _move(env, tokens)
    game_pages.seat_page(env, tokens[0], access.Client())  # the cache now ends at the last move
    with statements(env) as seen:
        page = game_pages.seat_page(env, tokens[1], access.Client())
    assert page.next_n == 6
    assert reads_of_the_log(seen) == []


def test_a_move_by_another_worker_is_read_from_where_the_cache_ends(env: Env):
    other = Env(config=env.config, db=env.db, clock=env.clock)
    _, tokens = _new_game(env)
    for _ in range(4):
        _move(env, tokens)
    game_pages.seat_page(other, tokens[0], access.Client())
    _move(env, tokens)  # move 5, which ``other`` has not seen
    with statements(other) as seen:
        page = game_pages.seat_page(other, tokens[0], access.Client())
    assert page.next_n == 6
    (read,) = reads_of_the_log(seen)
    assert "moves.n >=" in read  # from its last known move on, not the whole log
