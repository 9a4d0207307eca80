"""The store's recorders, one statement each, on SQLite and PostgreSQL alike; and the rule
that only ``pbem/store/`` builds SQL (services, web, the scheduler call recorders)."""

from __future__ import annotations

import ast
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.clock import as_utc
from pbem.mail.outbox_row import message
from pbem.services.core import access
from pbem.services.core.identity import player_for
from pbem.services.mailing import outbox_admin as outbox_service
from pbem.services.play import challenges as challenge_service
from pbem.services.play import moves, new_games
from pbem.store import access_log, games, move_log
from pbem.store import challenges as challenge_rows
from pbem.store import outbox as outbox_store
from pbem.store import players as player_rows
from pbem.store import ratings as rating_rows
from pbem.store import seats as seat_rows
from pbem.store.models import AccessLog
from pbem.store.move_log import LogRow, MovedOn

PACKAGE = Path(__file__).resolve().parents[2] / "pbem"
BUILDERS = {"select", "insert", "update", "delete", "text"}


def a_game_id(env) -> int:
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
    )
    with env.db.read() as session:
        game = games.by_public_id(session, created.public_id)
        assert game is not None
        return game.id


def a_row(env, n: int, move: str = "camels") -> LogRow:
    at = env.clock.now().replace(microsecond=0)
    return LogRow(n, (n - 1) % 2, move, at, f"h{n}", "web", None)


def test_append_then_read_from_n(env):
    game_id = a_game_id(env)
    with move_log.appending(), env.db.write() as session:
        for n in (1, 2, 3):
            move_log.append(session, game_id, a_row(env, n), "{}")
    with env.db.read() as session:
        assert [r.n for r in move_log.read_from(session, game_id, 2)] == [2, 3]
        read = [LogRow(*r) for r in move_log.read_from(session, game_id, 1)]
        assert [(r.n, r.seat, r.move, r.hash, r.source) for r in read] == [
            (n, (n - 1) % 2, "camels", f"h{n}", "web") for n in (1, 2, 3)
        ]
        assert [r.n for r in move_log.rows(session, game_id)] == [1, 2, 3]
        assert move_log.read_from(session, game_id, 4) == []


def test_a_duplicate_n_is_moved_on_and_writes_nothing(env):
    """On PostgreSQL the refusal comes with the COMMIT: ``appending`` turns it into MovedOn."""
    game_id = a_game_id(env)
    with move_log.appending(), env.db.write() as session:
        move_log.append(session, game_id, a_row(env, 1), "{}")
    with pytest.raises(MovedOn), move_log.appending(), env.db.write() as session:
        access_log.append(session, game_id=game_id, seat=0, at=env.clock.now(), action="x")
        move_log.append(session, game_id, a_row(env, 1, "take d"), "{}")
    with env.db.read() as session:
        assert [r.move for r in move_log.rows(session, game_id)] == ["camels"]
        assert access_log.around(session, game_id, (0,), env.clock.now(), env.clock.now()) == []


def test_a_racing_insert_of_the_same_n_is_moved_on(env):
    """Two writers append move 1 at once: the one that commits second gets MovedOn."""
    game_id = a_game_id(env)
    inserted, outcome = threading.Event(), []

    def second() -> None:
        inserted.wait(60)  # a safety net only: the first writer sets it at once
        try:
            with move_log.appending(), env.db.write() as session:
                move_log.append(session, game_id, a_row(env, 1, "take d"), "{}")
            outcome.append("committed")
        except MovedOn:
            outcome.append("moved on")

    thread = threading.Thread(target=second)
    thread.start()
    with move_log.appending(), env.db.write() as session:
        move_log.append(session, game_id, a_row(env, 1), "{}")
        # A read waits for its answer, and so for the INSERT's before it: on PostgreSQL a
        # plain INSERT is only sent (pipeline mode), and the other writer's could reach the
        # server first. Now this row holds the key (and SQLite's lock is this writer's).
        assert [r.move for r in move_log.rows(session, game_id)] == ["camels"]
        inserted.set()  # the other writer now waits on the lock or the key
    thread.join(60)
    assert outcome == ["moved on"]
    with env.db.read() as session:
        assert [r.move for r in move_log.rows(session, game_id)] == ["camels"]


def test_access_log_append_and_read_around_a_time(env):
    game_id = a_game_id(env)
    now = env.clock.now()
    with env.db.write() as session:
        access_log.append(session, game_id=game_id, seat=0, at=now, action="view", seen_n=0)
        access_log.append(session, game_id=game_id, seat=1, at=now, action="move", seen_n=0)
        access_log.append(
            session, game_id=game_id, seat=0, at=now + timedelta(hours=2), action="late"
        )
    with env.db.read() as session:
        found = access_log.around(session, game_id, (0,), now - timedelta(minutes=1), now)
        both = access_log.around(session, game_id, (0, 1), now, now)
    assert [(r.seat, r.action) for r in found] == [(0, "view")]
    assert {r.action for r in both} == {"view", "move"}


def test_a_game_opens_with_its_seats_and_its_logs_tail(env):
    game_id = a_game_id(env)
    with env.db.read() as session:
        game = games.by_public_id(session, "no-such-game")
        assert game is None
        game, tail_n, tail_hash = games.with_tail_by_id(session, game_id)
        public_id = game.public_id
    assert (tail_n, tail_hash) == (None, None)
    with move_log.appending(), env.db.write() as session:
        move_log.append(session, game_id, a_row(env, 1), "{}")
    with env.db.write() as session:
        opened, tail_n, tail_hash = games.with_tail(session, public_id, lock=True, vacations=True)
        assert [s.seat for s in opened.seats] == [0, 1]
    assert (tail_n, tail_hash) == (1, "h1")


def test_a_flag_is_set_once(env):
    game_id = a_game_id(env)
    with env.db.write() as session:
        games.flag(session, game_id, "first")
        games.flag(session, game_id, "second")
    with env.db.read() as session:
        game, _, _ = games.with_tail_by_id(session, game_id)
        assert game.integrity_error == "first"


def test_the_status_filters_pick_running_and_finished_games(env):
    """``running_ids`` and ``digest_readers`` read the engine's IN_PROGRESS, ratings its
    FINISHED: a game waiting for its players is in neither."""
    players = (
        new_games.PlayerIn("Ada", "ada@example.test"),
        new_games.PlayerIn("Bo", "bo@example.test"),
    )
    running = new_games.create_game(env, players, first_player=0)
    over = new_games.create_game(env, players, first_player=0)
    waiting = new_games.create_game(env, players, await_players=True)
    moves.resign(env, over.tokens[0], 1, access.Client())
    with env.db.write() as session:
        ids = {}
        for created in (running, over, waiting):
            game = games.by_public_id(session, created.public_id)
            ids[created.public_id] = game.id
            for seat in game.seats:
                seat.mail_mode = "digest"
    with env.db.read() as session:
        running_ids = set(games.running_ids(session))
        finished = {g.id for g in rating_rows.finished_in_order(session)}
        digest = {s.game_id for s in seat_rows.digest_readers(session)}
    mine = set(ids.values())
    assert running_ids & mine == {ids[running.public_id]}
    assert digest & mine == {ids[running.public_id]}
    assert finished & mine == {ids[over.public_id]}


def a_mail(env, key: str | None = None) -> dict[str, object]:
    return message(
        now=env.clock.now(),
        mail_from="pbem@pbem.test",
        kind="your_turn",
        to="ada@example.test",
        subject="hello",
        text="hello",
        dedupe_key=key,
    )


def test_outbox_queue_dedupes_and_due_rows_come_oldest_first(env):
    key = f"reminder-{id(env)}-{env.clock.now().timestamp()}"
    first, second = a_mail(env, key), a_mail(env)
    with env.db.write() as session:
        assert outbox_store.queue(session, first)
        assert not outbox_store.queue(session, a_mail(env, key))
        outbox_store.queue_all(session, [second])
        assert outbox_store.queued(session, key)
    with env.db.read() as session:
        due = outbox_store.due(session, env.clock.now(), 10_000)
        ids = {r.message_id: r.id for r in outbox_store.recent(session, 10_000)}
    mine = [i for i in due if i in (ids[first["message_id"]], ids[second["message_id"]])]
    assert mine == sorted(mine) and len(mine) == 2


def test_outbox_claim_and_mark_with_two_claimers(env):
    """Two senders claim one row at once: one sends it, the other finds nothing to send."""
    now = env.clock.now()
    with env.db.write() as session:
        outbox_store.queue(session, mail := a_mail(env))
    with env.db.read() as session:
        row_id = next(
            r.id for r in outbox_store.recent(session) if r.message_id == mail["message_id"]
        )
    claimed, outcome = threading.Event(), []

    def second() -> None:
        claimed.wait(10)
        with env.db.write() as session:  # SKIP LOCKED, or SQLite's write lock, then sending
            outcome.append(outbox_store.claim(session, row_id, now))

    thread = threading.Thread(target=second)
    thread.start()
    with env.db.write() as session:
        row = outbox_store.claim(session, row_id, now)
        assert row is not None
        claimed.set()
        thread.join(0.5)  # gives the other claimer time to run into the lock
        attempt = outbox_store.mark_sending(row, now, now + timedelta(minutes=10), None)
    thread.join(60)
    assert outcome == [None]
    with env.db.write() as session:
        assert outbox_store.mark_sent(session, row_id, attempt, now)
    later = now + timedelta(hours=1)
    with env.db.write() as session:
        assert outbox_store.claim(session, row_id, later) is None  # sent: never claimed again
        assert not outbox_store.mark_sent(session, row_id, attempt, now)  # recorded once
        assert outbox_store.requeue(session, row_id, env.clock.now()) is None


def test_outbox_a_sending_row_is_claimed_again_only_at_its_recovery_time(env):
    now, recover_at = env.clock.now(), env.clock.now() + timedelta(minutes=10)
    with env.db.write() as session:
        outbox_store.queue(session, mail := a_mail(env))
    with env.db.read() as session:
        row_id = next(
            r.id for r in outbox_store.recent(session) if r.message_id == mail["message_id"]
        )
    with env.db.write() as session:
        first = outbox_store.mark_sending(
            outbox_store.claim(session, row_id, now), now, recover_at, 7
        )
    with env.db.write() as session:  # its sender never came back
        assert row_id not in outbox_store.due(session, recover_at - timedelta(seconds=1), 10_000)
        assert outbox_store.claim(session, row_id, recover_at - timedelta(seconds=1)) is None
        row = outbox_store.claim(session, row_id, recover_at)
        assert (row.status, as_utc(row.sending_at), row.sending_token) == ("sending", now, 7)
        second = outbox_store.mark_sending(row, recover_at, recover_at + timedelta(minutes=10), 8)
    assert second == first + 1
    with env.db.write() as session:  # the first sender's record comes too late to count
        assert not outbox_store.mark_sent(session, row_id, first, recover_at)
        assert outbox_store.mark_sent(session, row_id, second, recover_at)


def test_outbox_a_failed_row_backs_off_then_gives_up_then_is_retried(env):
    now = env.clock.now()
    later = now + timedelta(minutes=5)
    with env.db.write() as session:
        outbox_store.queue(session, mail := a_mail(env))
    with env.db.read() as session:
        row_id = next(
            r.id for r in outbox_store.recent(session) if r.message_id == mail["message_id"]
        )
    with env.db.write() as session:
        row = outbox_store.claim(session, row_id, now)
        attempt = outbox_store.mark_sending(row, now, now + timedelta(minutes=10), None)
    with env.db.write() as session:
        assert outbox_store.mark_failed(session, row_id, attempt, "refused", later)
    with env.db.write() as session:
        assert outbox_store.claim(session, row_id, now) is None  # backing off
        assert row_id not in outbox_store.due(session, now, 10_000)
        row = outbox_store.claim(session, row_id, later)
        assert (row.attempts, row.status, row.last_error) == (1, "pending", "refused")
        attempt = outbox_store.mark_sending(row, later, later + timedelta(minutes=10), None)
    with env.db.write() as session:
        assert outbox_store.mark_failed(session, row_id, attempt, "refused again", None)
    assert [r.id for r in outbox_service.listing(env) if r.id == row_id] == [row_id]
    with env.db.read() as session:
        assert outbox_store.claim(session, row_id, later + timedelta(days=1)) is None  # failed
    assert outbox_service.retry(env, row_id)
    with env.db.read() as session:
        assert row_id in outbox_store.due(session, env.clock.now(), 10_000)
    assert not outbox_service.retry(env, 10**9)


def two_players(env) -> tuple[int, int]:
    tag = f"{env.clock.now().timestamp()}-{id(env)}"
    with env.db.write() as session:
        ada = player_for(session, f"ada-{tag}@example.test", "Ada", env.clock.now())
        bo = player_for(session, f"bo-{tag}@example.test", "Bo", env.clock.now())
        session.flush()
        return ada.id, bo.id


def test_players_by_address_and_public_id(env):
    ada_id, _ = two_players(env)
    with env.db.read() as session:
        ada = session.get(player_rows.Player, ada_id)
        assert player_rows.by_email(session, ada.email).id == ada_id
        assert player_rows.by_public_id(session, ada.public_id).id == ada_id
        assert player_rows.by_email(session, "nobody@example.test") is None


def test_a_challenge_is_taken_once_and_withdrawn_only_while_open(env):
    ada_id, bo_id = two_players(env)
    public_id = challenge_service.post(env, ada_id, days_per_move=3, starter="random", note=None)
    with env.db.write() as session:
        challenge = challenge_rows.by_public_id(session, public_id)
        assert challenge in challenge_rows.open_ones(session, 10_000)
        assert not challenge_rows.withdraw(session, public_id, bo_id)  # not Bo's
        assert challenge_rows.take(session, challenge.id, bo_id)
        assert not challenge_rows.take(session, challenge.id, bo_id)
        assert not challenge_rows.withdraw(session, public_id, ada_id)  # taken already
        assert challenge not in challenge_rows.open_ones(session, 10_000)


def _builders_imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            found |= {a.name for a in node.names} & BUILDERS
            if node.module.startswith("sqlalchemy.dialects"):
                found |= {a.name for a in node.names if "insert" in a.name}
    return found


def test_only_the_store_builds_sql():
    """Services, web, the scheduler and its leadership (and every other module outside
    ``pbem/store/``) call recorders; none of them imports a statement builder."""
    outside = [
        p for p in sorted(PACKAGE.rglob("*.py")) if "store" not in p.relative_to(PACKAGE).parts[:1]
    ]
    checked = {p.relative_to(PACKAGE).as_posix() for p in outside}
    assert {"leadership.py", "scheduler.py", "services/play/new_games.py", "web/seat.py"} <= checked
    offenders = {}
    for path in outside:
        if found := _builders_imported(path):
            offenders[path.relative_to(PACKAGE).as_posix()] = sorted(found)
    assert offenders == {}


def _driver_errors_imported(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            names = {a.name for a in node.names}
        else:
            continue
        if any(n == "sqlalchemy.exc" or n.startswith("sqlalchemy.exc.") for n in names):
            return True
    return False


def test_no_service_reads_a_drivers_error():
    """A key's refusal reaches a use case as the recorder's own outcome (``MovedOn``,
    ``Taken``, ``RematchMade``), never as SQLAlchemy's ``IntegrityError``."""
    offenders = [
        path.relative_to(PACKAGE).as_posix()
        for folder in ("services", "web")
        for path in sorted((PACKAGE / folder).rglob("*.py"))
        if _driver_errors_imported(path)
    ]
    assert offenders == []


def test_every_access_log_line_is_written_by_its_recorder():
    """The access log is append-only and written one way: ``store.access_log.append``. No
    module outside ``pbem/store/`` builds an ``AccessLog`` row itself (a seat's use and an
    account's use alike)."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "store":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "AccessLog":
                offenders.append(f"{path.relative_to(PACKAGE).as_posix()}:{node.lineno}")
    assert offenders == []


def test_an_account_line_of_the_access_log_names_its_player(env):
    player_id, _ = two_players(env)
    with env.db.write() as session:
        access_log.append(
            session, game_id=None, player_id=player_id, seat=None, at=env.clock.now(), action="x"
        )
    with env.db.read() as session:
        rows = session.scalars(select(AccessLog).where(AccessLog.player_id == player_id)).all()
    assert [(r.game_id, r.player_id, r.seat, r.action) for r in rows] == [
        (None, player_id, None, "x")
    ]
