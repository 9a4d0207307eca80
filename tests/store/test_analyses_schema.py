"""Migration 0013 and the analyses recorder: tables apart from the log, a typed race."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from pbem.services.core import access, lookup
from pbem.services.play import moves
from pbem.store import analyses, migrate
from pbem.store.db import Database, table_names
from tests.mail.play import new_game, token

NOW = datetime(2026, 12, 6, tzinfo=UTC)


def test_0013_adds_the_analysis_tables_and_goes_down_again(fresh_database):
    db = Database(fresh_database())
    try:
        migrate.upgrade(db.engine, "0012")
        assert not table_names(db.engine) & {"analyses", "analysis_moves"}
        migrate.upgrade(db.engine, "0013")
        assert table_names(db.engine) >= {"analyses", "analysis_moves"}
        migrate.downgrade(db.engine, "0012")
        assert not table_names(db.engine) & {"analyses", "analysis_moves"}
        migrate.upgrade(db.engine)
        assert migrate.current_revision(db.engine) == migrate.head_revision()
    finally:
        db.dispose()


def _finished(env) -> int:
    public_id = new_game(env)
    moves.submit_move(env, token(env, public_id, 0), 1, "resign", access.Client())
    with env.db.read() as session:
        return lookup.game_row(session, public_id).id


def _judged(n: int) -> dict[str, object]:
    return dict(n=n, seat=0, before=0.5, after=0.4, best="camels", drop=10.0, label="inaccuracy")


def test_a_finished_game_waits_until_its_analysis_is_done(env):
    game_id = _finished(env)
    with env.db.read() as session:
        assert game_id in analyses.waiting(session, 1000, 1)
    with env.db.write() as session:
        analyses.start(session, game_id, 2, 1, NOW)
    with env.db.write() as session:
        analyses.store(session, game_id, [_judged(1)], 0, NOW)
    with env.db.read() as session:
        assert game_id in analyses.waiting(session, 1000, 1)  # 1 of 2
        row = analyses.of_game(session, game_id)
        assert row is not None and (row.status, row.progress) == ("running", 1)
    with env.db.write() as session:
        analyses.store(session, game_id, [_judged(2)], 1, NOW)
    with env.db.read() as session:
        assert game_id not in analyses.waiting(session, 1000, 1)
        row = analyses.of_game(session, game_id)
        assert row is not None and row.status == "done" and row.finished_at is not None
        assert [m.n for m in analyses.judged(session, game_id)] == [1, 2]
    with env.db.write() as session:
        analyses.forget(session, game_id)
    with env.db.read() as session:
        assert analyses.of_game(session, game_id) is None
        assert analyses.judged(session, game_id) == []
        assert game_id in analyses.waiting(session, 1000, 1)


def test_two_workers_racing_on_a_game_collide_on_its_keys(env):
    game_id = _finished(env)
    with env.db.write() as session:
        analyses.start(session, game_id, 3, 1, NOW)
    with pytest.raises(analyses.AnalysisRace), analyses.racing(), env.db.write() as session:
        analyses.start(session, game_id, 3, 1, NOW)
    with env.db.write() as session:
        analyses.store(session, game_id, [_judged(1)], 0, NOW)
    # a worker that read progress 0 too, storing the same slice: refused, nothing kept
    with pytest.raises(analyses.AnalysisRace), analyses.racing(), env.db.write() as session:
        analyses.store(session, game_id, [_judged(1)], 0, NOW)
    # one that stores nothing new but expected the old progress: refused as well
    with pytest.raises(analyses.AnalysisRace), analyses.racing(), env.db.write() as session:
        analyses.store(session, game_id, [], 0, NOW)
    with env.db.read() as session:
        assert (
            session.scalar(
                text("SELECT count(*) FROM analysis_moves WHERE game_id = :g"), {"g": game_id}
            )
            == 1
        )
        row = analyses.of_game(session, game_id)
        assert row is not None and row.progress == 1


def test_an_analysis_by_an_older_method_waits_again_and_restarts_once(env):
    game_id = _finished(env)
    with env.db.write() as session:
        analyses.start(session, game_id, 1, 1, NOW)
    with env.db.write() as session:
        analyses.store(session, game_id, [_judged(1)], 0, NOW)
    with env.db.read() as session:
        assert game_id not in analyses.waiting(session, 1000, 1)
        assert game_id in analyses.waiting(session, 1000, 2)  # method 2 came
    with env.db.write() as session:
        analyses.restart(session, game_id, 1, 1, 2, NOW)
    with env.db.read() as session:
        row = analyses.of_game(session, game_id)
        assert row is not None and (row.status, row.progress, row.version) == ("running", 0, 2)
        assert row.finished_at is None and analyses.judged(session, game_id) == []
    # a second worker that read version 1 too: refused, the first one's restart kept
    with pytest.raises(analyses.AnalysisRace), analyses.racing(), env.db.write() as session:
        analyses.restart(session, game_id, 1, 1, 2, NOW)
    with env.db.read() as session:
        row = analyses.of_game(session, game_id)
        assert row is not None and row.version == 2


def test_stale_analyses_come_after_every_missing_one(env):
    stale = _finished(env)
    with env.db.write() as session:
        analyses.start(session, stale, 1, 1, NOW)
        analyses.store(session, stale, [_judged(1)], 0, NOW)
    fresh = _finished(env)  # finished later, but never analysed
    with env.db.read() as session:
        order = analyses.waiting(session, 1000, 2)
    assert order.index(fresh) < order.index(stale)
