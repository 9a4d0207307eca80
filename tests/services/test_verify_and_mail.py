"""A stored log that stops verifying is flagged, never repaired; mail delivery backends."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from sqlalchemy import select, text

from pbem.clock import FrozenClock
from pbem.mail.delivery import BACKOFF, ConsoleBackend, FileBackend
from pbem.services.core import access
from pbem.services.core.env import Env
from pbem.services.play import game_pages, moves, new_games
from pbem.services.records import game_records
from pbem.services.scheduled import jobs
from pbem.store.db import Database, is_sqlite
from pbem.store.models import Game, OutboxMessage
from tests.helpers import past_the_hold


@pytest.fixture
def own_env(migrated_database, config, clock) -> Iterator[Env]:
    """An env on a database of the test's own, disposed before the run drops that database."""
    url = migrated_database()
    db = Database(url)
    yield Env(config=config.with_(database_url=url), db=db, clock=clock)
    db.dispose()


def _play(env, count: int) -> str:
    created = new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    )
    for _ in range(count):
        for token in game_pages.seat_tokens(env, created.public_id):
            legal = game_pages.legal_moves(env, token)
            if legal:
                n = game_pages.seat_page(env, token, access.Client()).next_n
                moves.submit_move(env, token, n, legal[0], access.Client())
                break
    return created.public_id


def test_a_tampered_log_is_flagged_on_every_page(own_env):
    env = own_env
    public_id = _play(env, 6)
    assert game_records.verify_game(env, public_id).ok

    # an attacker with database access drops the trigger and rewrites move 3
    with env.db.write() as session:
        if is_sqlite(env.config.database_url):
            session.execute(text("DROP TRIGGER moves_no_update"))
        else:
            session.execute(text("DROP TRIGGER moves_no_update_delete ON moves"))
        session.execute(
            text("UPDATE moves SET at = :at WHERE n = 3"), {"at": "2030-01-01 00:00:00"}
        )
    env.cache = type(env.cache)()  # a fresh process: nothing remembered
    report = game_records.verify_game(env, public_id)
    assert not report.ok
    assert report.first_bad_move == 3
    page = game_pages.public_page(env, public_id)
    assert page.game.integrity_error and "chain" in page.game.integrity_error
    listed = {g.public_id: g for g in game_pages.list_games(env)}
    assert listed[public_id].integrity_error


def test_verify_of_a_sound_game_passes(env):
    public_id = _play(env, 4)
    report = game_records.verify_game(env, public_id)
    assert report.ok
    assert [c.name for c in report.checks] == [
        "format",
        "commitment",
        "chain",
        "times",
        "replay",
        "positions",
    ]


def _pending(env, public_id):
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        return list(session.scalars(select(OutboxMessage).where(OutboxMessage.game_id == game.id)))


def test_console_and_file_backends_deliver_each_row_once(own_env, tmp_path):
    env = own_env  # an outbox of its own: not every mail the run has queued so far
    public_id = _play(env, 1)
    past_the_hold(env)
    stream = io.StringIO()
    sent = 0
    while True:
        n = jobs.deliver_mail(env, ConsoleBackend(stream))
        if n == 0:
            break
        sent += n
    rows = _pending(env, public_id)
    assert all(r.status == "sent" for r in rows)
    assert stream.getvalue().count("Subject: Jaipur vs") >= len(rows)
    assert jobs.deliver_mail(env, FileBackend(tmp_path)) == 0

    public_id = _play(env, 0)
    while jobs.deliver_mail(env, FileBackend(tmp_path / "mail")):
        pass
    files = list((tmp_path / "mail").glob("*.eml"))
    assert len(files) >= 2
    assert any(b"Message-ID: <game." in f.read_bytes() for f in files)  # invitations root threads


class Broken:
    def send(self, message, sender=None):
        raise ConnectionRefusedError("SMTP server down")

    def close(self) -> None:
        pass


def test_a_failed_send_waits_with_backoff_and_loses_nothing(own_env):
    env = own_env  # an outbox of its own: only this game's mail is due
    public_id = _play(env, 0)
    clock = env.clock
    assert isinstance(clock, FrozenClock)
    for _ in range(len(BACKOFF) + 2):
        jobs.deliver_mail(env, Broken())
        clock.advance(hours=13)
    rows = _pending(env, public_id)
    assert rows and all(r.status == "failed" for r in rows)
    assert all("SMTP server down" in r.last_error for r in rows)
    assert all(r.attempts == len(BACKOFF) + 1 for r in rows)


def test_seat_tokens_never_reach_the_request_log(app):
    """Every record of a process that built the app is redacted as it is made (pbem.redact)."""
    assert app is not None
    record = logging.getLogger("werkzeug").makeRecord(
        "werkzeug",
        logging.INFO,
        "",
        0,
        '%s - "%s" %s',
        ("127.0.0.1", "GET /s/WyJhYmMiLDAsMV0.sig-_x HTTP/1.1", "200"),
        None,
    )
    assert "WyJ" not in record.getMessage() and "/s/[token]" in record.getMessage()


def test_the_flag_shows_on_the_replay_too(own_env):
    from pbem.web import create_app

    env = own_env
    public_id = _play(env, 3)
    with env.db.write() as session:
        session.execute(text("UPDATE games SET integrity_error = 'chain: move 2 altered'"))
    token = game_pages.seat_tokens(env, public_id)[0]
    page = create_app(env=env).test_client().get(f"/s/{token}/replay")
    assert "stored log does not verify" in page.text and "chain: move 2 altered" in page.text
    assert "The game is frozen" in page.text
