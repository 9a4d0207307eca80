"""Scale-out: several senders never send one row twice; one scheduler is active at a time."""

from __future__ import annotations

import threading
import time

import pytest

from pbem.leadership import Leadership
from pbem.services import jobs
from pbem.store.db import Database
from tests.helpers import mails
from tests.mail.play import new_game


class Slow:
    """A backend that takes its time, so concurrent senders overlap."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.lock = threading.Lock()

    def send(self, message) -> None:
        time.sleep(0.01)
        with self.lock:
            self.sent.append(message["Message-ID"])

    def close(self) -> None:
        pass


@pytest.mark.slow
def test_several_senders_at_once_send_each_mail_once(env):
    ids = [new_game(env) for _ in range(6)]
    backend = Slow()
    barrier = threading.Barrier(3)

    def sender() -> None:
        barrier.wait()
        while jobs.deliver_mail(env, backend, limit=10_000):
            pass

    threads = [threading.Thread(target=sender) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    ours = {m.message_id for public_id in ids for m in mails(env, public_id)}
    sent_ours = [i for i in backend.sent if i in ours]
    assert sorted(sent_ours) == sorted(ours)  # every one of them, each exactly once


def test_a_second_scheduler_stands_by_until_the_first_lets_go(database_url, tmp_path):
    first, second = Database(database_url), Database(database_url)
    a, b = Leadership(first, tmp_path), Leadership(second, tmp_path)
    try:
        assert a.try_acquire()
        assert a.held()
        assert not b.try_acquire()  # hot standby
        a.release()
        assert b.try_acquire()  # takes over
        assert not a.try_acquire()
    finally:
        a.release()
        b.release()
        first.dispose()
        second.dispose()


def test_the_standby_takes_over_when_the_active_schedulers_connection_dies(database_url, tmp_path):
    import pytest
    from sqlalchemy import text

    from pbem.store.db import is_sqlite

    if is_sqlite(database_url):
        pytest.skip("on SQLite the lock is a file lock, released when its process dies")
    first, second, admin = (Database(database_url) for _ in range(3))
    a, b = Leadership(first, tmp_path), Leadership(second, tmp_path)
    try:
        assert a.try_acquire()
        pid = a._connection.execute(text("SELECT pg_backend_pid()")).scalar()
        a._connection.commit()
        with admin.engine.connect() as c:  # the active scheduler's host vanishes
            c.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
            c.commit()
        assert not a.held()
        assert b.try_acquire()
    finally:
        b.release()
        for db in (first, second, admin):
            db.dispose()
