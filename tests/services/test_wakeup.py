"""The computer answers at once: the move that makes it the computer's turn wakes the
scheduler (NOTIFY on PostgreSQL, sent on commit; a short poll of the move log on SQLite),
which runs the ``computer`` job then instead of at its next interval (issue 32, 5)."""

from __future__ import annotations

import threading
import time

import pytest

from pbem import wakeup
from pbem.services.core import access
from pbem.services.core.errors import MoveRefused
from pbem.services.play import computer, game_pages, moves, new_games
from pbem.store import wakeup as signals
from pbem.store.db import is_sqlite
from tests.mail.play import new_game, to_move, token
from tests.support import own_database

# the listener sees every move of its database (SQLite) and the job looks at every game
database_url, database = own_database("module")


def persons_turn(env, email: str) -> tuple[str, str]:
    """A game against the computer where the person is to move: (public id, token)."""
    created = computer.start(env, new_games.PlayerIn("Ada", email), "easy", contribution=bytes(32))
    t = created.tokens[0]
    computer.computer_moves(env)  # the computer's first move, if it starts
    assert game_pages.seat_page(env, t, access.Client()).view.my_turn
    return created.public_id, t


def a_move(env, t: str) -> None:
    page = game_pages.seat_page(env, t, access.Client())
    moves.submit_move(env, t, page.next_n, game_pages.legal_moves(env, t)[0], access.Client())


def test_the_persons_move_wakes_the_listener(env):
    _, t = persons_turn(env, "wake@example.test")
    with signals.listening(env.db) as listener:
        assert not listener.wait(0.3)
        a_move(env, t)
        assert listener.wait(10)


def test_the_computer_starting_a_game_wakes_the_listener(env):
    with signals.listening(env.db) as listener:
        for i in range(12):  # a fair seat draw: the computer starts about every other game
            created = computer.start(
                env,
                new_games.PlayerIn("Ada", f"start{i}@example.test"),
                "easy",
                contribution=bytes(32),
            )
            if game_pages.seat_page(env, created.tokens[0], access.Client()).thinking:
                assert listener.wait(10)
                return
            listener.wait(0.3)  # SQLite: nothing; PostgreSQL: nothing was sent
    pytest.fail("the computer started none of 12 games")


def test_on_postgresql_only_the_computers_turn_is_told(env):
    """NOTIFY is sent in the move's transaction only when the computer is to move after it,
    and PostgreSQL delivers it on commit: a refused move, rolled back, tells nothing."""
    if is_sqlite(env.db.url):
        pytest.skip("SQLite's poll sees every move: there is no message to send")
    _, t = persons_turn(env, "told@example.test")
    public_id = new_game(env)
    with signals.listening(env.db) as listener:
        seat = to_move(env, public_id)
        people = token(env, public_id, seat)
        moves.submit_move(env, people, 1, game_pages.legal_moves(env, people)[0], access.Client())
        assert not listener.wait(0.5)  # between two people
        page = game_pages.seat_page(env, t, access.Client())
        with pytest.raises(MoveRefused):
            moves.submit_move(env, t, page.next_n, "sell 9 diamond", access.Client())
        assert not listener.wait(0.5)  # refused: nothing committed
        a_move(env, t)
        assert listener.wait(10)


def test_a_wake_up_during_a_run_makes_one_more_run_and_none_at_once():
    inside, release = threading.Event(), threading.Event()
    runs: list[int] = []

    def job() -> int:
        runs.append(len(runs))
        if len(runs) == 1:
            inside.set()
            release.wait(10)
        return len(runs)

    once = wakeup.Coalesced(job)
    first = threading.Thread(target=once)
    first.start()
    assert inside.wait(10)
    assert once() is None and once() is None  # asked twice while it runs: returns at once
    release.set()
    first.join(10)
    assert runs == [0, 1]  # one more run after the first, for both asks
    assert once() == 3  # and the next ask runs again


def test_the_scheduler_plays_the_computers_move_at_once_not_at_its_interval(env, monkeypatch):
    """The ``computer`` job's interval is an hour here: only the wake-up can answer."""
    from apscheduler.schedulers.background import BackgroundScheduler

    from pbem import scheduler as entry

    _, t = persons_turn(env, "scheduler@example.test")
    every = env.config.every
    env.config = env.config.with_(
        every=type(every)(**{**vars(every), "computer": 3600, "computer_sweep": 3600})
    )
    answered = threading.Event()
    real = computer.computer_moves

    def observed(env_, **kwargs):  # the real job, and a word when it has moved
        report = real(env_, **kwargs)
        if report.moves:
            answered.set()
        return report

    monkeypatch.setattr(computer, "computer_moves", observed)
    scheduler = BackgroundScheduler(timezone="UTC")
    watcher = entry.add_jobs(scheduler, env)
    for job in scheduler.get_jobs():  # no first runs: nothing but the wake-up plays
        job.pause()
    scheduler.start()
    try:
        assert watcher.listening.wait(10)
        a_move(env, t)
        started = time.perf_counter()
        assert answered.wait(30)
        took = time.perf_counter() - started
    finally:
        scheduler.shutdown(wait=True)
    assert game_pages.seat_page(env, t, access.Client()).view.my_turn
    assert took < 10  # the benchmark measures it: well under a second on an idle machine


def test_the_move_that_ends_a_game_starts_its_analysis_at_once(env):
    """The ``analyse`` job's interval is an hour here: only the wake-up can start it; the
    first verdicts are stored (and shown) while the rest are still being judged."""
    from apscheduler.schedulers.background import BackgroundScheduler

    from pbem import scheduler as entry
    from pbem.services.core import lookup
    from pbem.services.records import analysis
    from tests.mail.play import play

    every = env.config.every
    env.config = env.config.with_(every=type(every)(**{**vars(every), "analyse": 3600}))
    public_id = new_game(env)
    play(env, public_id, 12)
    scheduler = BackgroundScheduler(timezone="UTC")
    watcher = entry.add_jobs(scheduler, env)
    for job in scheduler.get_jobs():  # no first runs: nothing but the wake-up analyses
        job.pause()
    scheduler.start()
    try:
        assert watcher.listening.wait(10)
        ended = time.perf_counter()
        moves.submit_move(env, token(env, public_id, 0), 13, "resign", access.Client())
        shown = None
        while time.perf_counter() - ended < 30:
            with env.db.read() as session:
                shown = analysis.shown(session, lookup.game_row(session, public_id))
            if shown is not None and shown.progress:
                break
            time.sleep(0.05)
        took = time.perf_counter() - ended
        assert shown is not None and 0 < shown.progress < shown.total  # the rest to come
    finally:
        scheduler.shutdown(wait=True)
    assert shown is not None and shown.progress > 0
    assert took < 10  # the benchmark measures it: about a second on an idle machine
