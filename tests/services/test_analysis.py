"""The analysis of finished games: never of a running one, a slice a run, resumable,
kept apart from the log, and the same when computed again."""

from __future__ import annotations

import pytest

from pbem.services.core import access, lookup
from pbem.services.core.errors import NotAllowed
from pbem.services.play import moves
from pbem.services.records import analysis, game_records
from pbem.store import analyses as analysis_rows
from pbem.store.models import Game
from tests.mail.play import new_game, play, token
from tests.support import own_database

# A database of this module's own: the job looks at every finished game, and those
# the run's other tests made would each take it seconds.
database_url, database = own_database("module")


def _game_id(env, public_id: str) -> int:
    with env.db.read() as session:
        return lookup.game_row(session, public_id).id


def _shown(env, public_id: str) -> analysis.Shown | None:
    with env.db.read() as session:
        return analysis.shown(session, lookup.game_row(session, public_id))


def _finished(env, count: int = 6) -> str:
    """A game of ``count`` moves, then the player to move resigns."""
    public_id = new_game(env)
    play(env, public_id, count)
    seat = count % 2  # seat 0 began
    moves.submit_move(env, token(env, public_id, seat), count + 1, "resign", access.Client())
    return public_id


def test_a_running_game_has_no_analysis_at_all(env):
    public_id = new_game(env)
    play(env, public_id, 4)
    assert _shown(env, public_id) is None
    with pytest.raises(NotAllowed):
        analysis.public_analysis(env, public_id)
    analysis.analyse(env, 100)
    with env.db.read() as session:
        assert analysis_rows.of_game(session, _game_id(env, public_id)) is None
    with pytest.raises(NotAllowed, match="still running"):
        analysis.recompute(env, [public_id])


def test_the_job_judges_a_finished_game_a_slice_at_a_time(env):
    while analysis.analyse(env, 50):  # the module's other games first, whatever the order
        pass
    public_id = _finished(env, 6)
    waiting = _shown(env, public_id)
    assert waiting is not None and waiting.status == "waiting"

    first = analysis.analyse(env, 4)
    assert first.moves == 4
    shown = _shown(env, public_id)
    assert shown is not None and (shown.status, shown.progress, shown.total) == ("running", 4, 7)
    assert sorted(shown.moves) == [1, 2, 3, 4]

    analysis.analyse(env, 4)  # the rest: moves 5, 6 and the resignation
    shown = _shown(env, public_id)
    assert shown is not None and shown.done and shown.progress == 7
    assert analysis.analyse(env, 4).moves == 0  # nothing left to do
    resign = shown.moves[7]
    assert resign.before is None and resign.label is None and resign.mark == ""
    for n in range(1, 7):
        judged = shown.moves[n]
        assert judged.seat == (n - 1) % 2
        assert judged.before is not None and judged.after is not None
        assert 0 <= judged.after <= judged.before <= 1
        assert judged.best
    data = analysis.public_analysis(env, public_id).as_json()
    assert data["status"] == "done" and len(data["moves"]) == 7
    assert set(data["counts"]["0"]) == {"inaccuracy", "mistake", "blunder"}
    # kept apart from the game's record
    assert "analysis" not in game_records.export_record(env, public_id)


@pytest.mark.slow  # a whole match searched or judged: seconds on its own
def test_computing_it_again_gives_the_same_verdicts(env):
    public_id = _finished(env, 4)
    assert analysis.recompute(env, [public_id]) == [public_id]
    first = _shown(env, public_id)
    told: list[tuple[str, int, int]] = []
    analysis.recompute(env, [public_id], lambda *a: told.append(a))
    again = _shown(env, public_id)
    assert first is not None and again is not None and again.done
    assert first.moves == again.moves
    assert told[-1] == (public_id, 5, 5)


def test_a_racing_worker_loses_its_slice_and_nothing_else(env, monkeypatch):
    public_id = _finished(env, 2)
    game_id = _game_id(env, public_id)
    assert analysis.analyse_slice(env, game_id, 1) == 1
    # a second worker read the same progress: its slice collides and is dropped
    real = analysis_rows.of_game

    def stale(session, gid):
        row = real(session, gid)
        if row is not None:
            session.expunge(row)
            row.progress = 0
        return row

    monkeypatch.setattr(analysis_rows, "of_game", stale)
    report = analysis.AnalyseReport()
    assert analysis.analyse_slice(env, game_id, 1, report) == 0
    assert report.races == 1
    monkeypatch.undo()
    shown = _shown(env, public_id)
    assert shown is not None and shown.progress == 1 and sorted(shown.moves) == [1]


def test_a_better_method_reaches_the_old_games_by_itself(env, monkeypatch):
    public_id = _finished(env, 2)
    game_id = _game_id(env, public_id)
    while analysis.analyse(env, 50):
        pass
    first = _shown(env, public_id)
    assert first is not None and first.done and first.version == analysis.VERSION

    monkeypatch.setattr(analysis, "VERSION", analysis.VERSION + 1)  # the method changed
    assert analysis.analyse_slice(env, game_id, 1) == 1
    shown = _shown(env, public_id)
    assert shown is not None and shown.version == analysis.VERSION
    assert (shown.status, shown.progress, sorted(shown.moves)) == ("running", 1, [1])
    while analysis.analyse(env, 50):
        pass
    again = _shown(env, public_id)
    assert again is not None and again.done and again.version == analysis.VERSION
    assert again.moves.keys() == first.moves.keys()

    monkeypatch.undo()  # an older worker (a rollback) leaves the newer analysis alone
    with env.db.write() as session:
        analysis_rows.forget(session, game_id)
        analysis_rows.start(session, game_id, 3, analysis.VERSION + 1, env.clock.now())
    assert analysis.analyse_slice(env, game_id, 3) == 0
    with env.db.read() as session:
        row = analysis_rows.of_game(session, game_id)
        assert row is not None and row.version == analysis.VERSION + 1 and row.progress == 0


def test_one_game_that_fails_to_be_judged_keeps_no_other_waiting(env, monkeypatch):
    while analysis.analyse(env, 50):
        pass
    first, second = _finished(env, 2), _finished(env, 2)
    broken = _game_id(env, first)
    real = analysis.analyse_slice

    def slice_(env_, game_id, *args):
        if game_id == broken:
            raise RuntimeError("a bug in the judge")
        return real(env_, game_id, *args)

    monkeypatch.setattr(analysis, "analyse_slice", slice_)
    report = analysis.analyse(env, 50)
    assert report.failed == 1 and "1 failed" in str(report)
    assert _shown(env, first).status == "waiting"
    assert _shown(env, second).done


def test_a_flagged_game_is_not_judged(env):
    public_id = _finished(env, 2)
    game_id = _game_id(env, public_id)
    with env.db.write() as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.integrity_error = "test: the log was altered"
    assert analysis.analyse_slice(env, game_id, 10) == 0
    with env.db.read() as session:
        assert game_id not in analysis_rows.waiting(session, 1000, analysis.VERSION)


@pytest.mark.slow
def test_a_whole_match_played_to_its_end_is_analysed_by_the_scheduler_job(env, client):
    """End to end: a match played through the use cases to its last seal, then the
    scheduler's own ``analyse`` job run until it has judged every move."""
    from apscheduler.schedulers.background import BackgroundScheduler

    from pbem.scheduler import add_jobs
    from tests.support import play_random

    while analysis.analyse(env, 100):  # the module's other games first
        pass
    public_id = new_game(env)
    play_random(env, public_id, seed=11)
    scheduler = BackgroundScheduler(timezone="UTC")
    add_jobs(scheduler, env)
    job = scheduler.get_job("analyse")
    runs = 0
    while True:
        shown = _shown(env, public_id)
        assert shown is not None
        if shown.done:
            break
        job.func()
        runs += 1
        assert runs < 100
    total = shown.total
    assert runs >= total // env.config.analysis_moves  # a slice a run
    assert sorted(shown.moves) == list(range(1, total + 1))
    turns = [j for j in shown.moves.values() if j.after is not None]
    assert len(turns) >= total - 1
    page = client.get(f"/g/{public_id}/replay?n={total // 2}&lang=en").get_data(as_text=True)
    assert 'class="analysis"' in page and "Analysis in progress" not in page


def test_the_first_verdicts_are_stored_before_the_whole_analysis_ends(env, monkeypatch):
    """Stored as they come (the first alone, then ``STORE_EVERY`` at a time): the replay
    shows the judged part, "in progress" for the rest, while the job still judges it."""
    while analysis.analyse(env, 100):  # the module's other games first
        pass
    public_id = _finished(env, 10)
    seen: dict[int, tuple[int, str]] = {}
    real = analysis.judge_all

    def watched(todo, executor=None):
        for k, verdict in enumerate(real(todo, executor)):
            shown = _shown(env, public_id)  # before verdict k is handed over: what shows?
            assert shown is not None
            seen[k] = (shown.progress, shown.status)
            yield verdict

    monkeypatch.setattr(analysis, "judge_all", watched)
    assert analysis.analyse(env, 100).moves == 11
    every = analysis.STORE_EVERY
    assert seen[1] == (1, "running")  # the first verdict alone, at once
    assert seen[1 + every] == (1 + every, "running")  # then a few at a time
    shown = _shown(env, public_id)
    assert shown is not None and shown.done and sorted(shown.moves) == list(range(1, 12))


def test_the_job_judged_in_parallel_stores_what_one_process_stores(env):
    """``Config.analysis_workers`` processes (the scheduler's default: one a core) store
    the verdicts one process stores."""
    while analysis.analyse(env, 100):
        pass
    public_id = _finished(env, 6)
    game_id = _game_id(env, public_id)
    assert analysis.analyse(env, 100).moves == 7
    serial = _shown(env, public_id)
    with env.db.write() as session:
        analysis_rows.forget(session, game_id)
    env.config = env.config.with_(analysis_workers=2)
    assert analysis.analyse(env, 100).moves == 7
    assert _shown(env, public_id) == serial
