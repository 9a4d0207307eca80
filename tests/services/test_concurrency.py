"""Invariant 3: two submissions racing for the same move number record exactly one move.

Threads on SQLite (each request its own connection; BEGIN IMMEDIATE queues them),
and on PostgreSQL two connections whose INSERTs meet at UNIQUE(game_id, n).
"""

from __future__ import annotations

import threading

from sqlalchemy import func, select

from pbem.services.core import access
from pbem.services.core.errors import WrongState
from pbem.services.play import game_pages, moves, new_games
from pbem.services.records import game_records
from pbem.store.models import Game, MoveRow


def _new_game(env) -> tuple[str, str]:
    created = new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    )
    seat = game_pages.public_page(env, created.public_id).view.table.to_move
    return created.public_id, created.tokens[seat]


def _race(env, token: str, texts: list[str], n: int = 1) -> list[object]:
    barrier = threading.Barrier(len(texts))
    results: list[object] = [None] * len(texts)

    def submit(i: int) -> None:
        barrier.wait()
        try:
            results[i] = moves.submit_move(env, token, n, texts[i], access.Client())
        except WrongState as exc:
            results[i] = exc

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def _moves(env, public_id: str) -> list[MoveRow]:
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        return list(session.scalars(select(MoveRow).where(MoveRow.game_id == game.id)))


def test_racing_duplicates_record_exactly_one_move(env):
    for _ in range(5):
        public_id, token = _new_game(env)
        legal = game_pages.legal_moves(env, token)
        results = _race(env, token, [legal[0], legal[-1], legal[0], legal[len(legal) // 2]])
        done = [r for r in results if isinstance(r, moves.MoveDone)]
        refused = [r for r in results if isinstance(r, WrongState)]
        assert len(done) == 1 and len(refused) == 3, results
        assert all("moved on" in r.message for r in refused)
        rows = _moves(env, public_id)
        assert len(rows) == 1 and rows[0].move == done[0].move
        assert game_records.verify_game(env, public_id).ok


def test_a_duplicate_insert_fails_on_the_unique_key(env):
    """Below the use case: the database itself refuses a second move n."""
    import pytest
    from sqlalchemy.exc import IntegrityError

    public_id, token = _new_game(env)
    moves.submit_move(env, token, 1, game_pages.legal_moves(env, token)[0], access.Client())
    row = _moves(env, public_id)[0]
    with pytest.raises(IntegrityError), env.db.write() as session:
        session.add(
            MoveRow(
                game_id=row.game_id,
                n=1,
                seat=row.seat,
                move=row.move,
                at=row.at,
                hash=row.hash,
                position=row.position,
                source="web",
            )
        )
    assert len(_moves(env, public_id)) == 1
    with env.db.read() as session:
        assert session.scalar(select(func.count()).where(MoveRow.game_id == row.game_id)) == 1
