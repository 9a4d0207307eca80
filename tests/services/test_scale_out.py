"""Scale-out: several senders never send one row twice; one scheduler is active at a time,
the holder of the lease, and one that lost it writes nothing more."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import select, text, update

from pbem.clock import FrozenClock
from pbem.leadership import Lease, prepare
from pbem.services.scheduled import jobs
from pbem.store.db import Database, DatabaseUnavailable, Fenced, is_sqlite
from pbem.store.models import SchedulerLease
from tests.helpers import mails
from tests.mail.play import new_game


class Slow:
    """A backend that takes its time, so concurrent senders overlap."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.lock = threading.Lock()

    def send(self, message, sender=None) -> None:
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


def _lease(database_url: str, clock, renew_every: float = 10) -> Lease:
    return Lease(Database(database_url), clock, 30, renew_every)


@pytest.fixture
def leases(migrated_database):
    """Schedulers' leases on a database of the test's own (each lease its own engine), on
    one frozen clock."""
    database_url = migrated_database()
    clock = FrozenClock(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
    made: list[Lease] = []

    def make(renew_every: float = 10) -> Lease:
        made.append(_lease(database_url, clock, renew_every))
        return made[-1]

    yield database_url, clock, make
    for lease in made:
        lease.release()
        lease.db.dispose()


def test_a_second_scheduler_stands_by_until_the_first_lets_go(leases):
    _, _, make = leases
    a, b = make(), make()
    assert a.try_acquire()
    a.ensure_live()
    assert not b.try_acquire()  # hot standby
    a.release()
    assert b.try_acquire()  # takes over at once, without waiting for the lease to lapse
    assert not a.try_acquire()


def test_a_renewed_lease_is_kept_and_a_lapsed_one_taken_over_with_a_new_token(leases):
    _, clock, make = leases
    a, b = make(), make()
    assert a.try_acquire()
    first = a.token
    clock.advance(seconds=20)
    a.renew()
    clock.advance(seconds=20)
    assert not b.try_acquire()  # renewed 20 s ago: 10 s left
    clock.advance(seconds=10)
    assert b.try_acquire()  # lapsed: taken over
    assert b.token == first + 1


def test_a_stale_scheduler_is_fenced_and_writes_nothing(leases):
    """The old holder wakes after a takeover: its writes, its renewal and its next job all
    find the lease gone, and nothing it tried is recorded."""
    _, clock, make = leases
    a, b = make(), make()
    assert a.try_acquire()
    a.db.fence = a
    clock.advance(seconds=31)  # a hung past its lease
    assert b.try_acquire()
    with pytest.raises(Fenced), a.db.write() as session:
        session.execute(update(SchedulerLease).values(holder="the stale one"))
    with b.db.read() as session:
        assert session.scalars(select(SchedulerLease.holder)).one() == b.holder
    with pytest.raises(Fenced):
        a.renew()
    with pytest.raises(Fenced):
        a.ensure_live()
    b.db.fence = b
    with b.db.write():  # the new holder's writes go through
        pass


def test_a_lapsed_lease_nobody_took_is_renewed_before_the_next_job(leases):
    _, clock, make = leases
    a, b = make(), make()
    assert a.try_acquire()
    clock.advance(seconds=45)  # a slow database, a pause: nobody took it meanwhile
    a.ensure_live()  # renewed on the spot
    assert not b.try_acquire()


def test_a_takeover_waits_for_the_old_holders_transaction_in_flight(leases):
    """On PostgreSQL the fence holds the lease row FOR KEY SHARE: a standby cannot take the
    lease over in the middle of the old holder's transaction, only after it."""
    if is_sqlite(leases[0]):
        pytest.skip("on SQLite a write transaction holds the whole database")
    _, clock, make = leases
    a, b = make(), make(renew_every=1)
    assert a.try_acquire()
    a.db.fence = a
    clock.advance(seconds=31)
    with a.db.write():  # fenced: the old holder's job, still under its token
        assert not b.try_acquire()  # waited 1 s (lock_timeout) and stands by
    assert b.try_acquire()


def test_cut_connections_cost_the_active_scheduler_nothing(leases):
    """The active scheduler's connections ended by the server: it reconnects, keeps its
    lease, and the standby stays a standby."""
    if is_sqlite(leases[0]):
        pytest.skip("SQLite has no connections to cut")
    _, _, make = leases
    a, b = make(), make()
    assert a.try_acquire()
    with a.db.engine.connect() as mine:
        pid = mine.execute(text("SELECT pg_backend_pid()")).scalar()
        mine.commit()
    with b.db.engine.connect() as admin:
        admin.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
        admin.commit()
    a.renew()  # the dead connection: logged, the lease is still current
    a.renew()  # a new connection
    a.ensure_live()
    assert not b.try_acquire()


def test_the_server_ends_a_transaction_a_hung_scheduler_left_open(leases):
    """SIGSTOP in the middle of a transaction: PostgreSQL ends it after the lease time
    (``prepare``), so its lock on the lease row does not keep the standby out; the woken
    scheduler's next statement finds the connection gone, and nothing of it is written."""
    if is_sqlite(leases[0]):
        pytest.skip("on SQLite a stopped writer holds the database lock")
    _, clock, make = leases
    a, b = make(), make(renew_every=1)
    prepare(a.db, 1)
    assert a.try_acquire()
    a.db.fence = a
    clock.advance(seconds=31)
    with pytest.raises(DatabaseUnavailable), a.db.write() as session:  # fenced: FOR KEY SHARE
        time.sleep(2)  # hung, idle in its transaction
        assert b.try_acquire()  # the server ended it: the takeover went through
        session.execute(update(SchedulerLease).values(holder="the hung one"))
    with b.db.read() as session:
        assert session.scalars(select(SchedulerLease.holder)).one() == b.holder
