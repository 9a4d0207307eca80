"""What a crash can send twice (docs/scaling.md, "Mail"): a row is committed as sending
before the relay is spoken to; one whose sender died after the relay accepted it is sent
again, with the same Message-ID, only after the recovery time."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.leadership import Lease
from pbem.mail.delivery import SmtpBackend, deliver_due
from pbem.services.mailing.writer import Writer
from pbem.services.scheduled import jobs
from pbem.store.db import Database, Fenced
from pbem.store.models import OutboxMessage
from tests.helpers import mails
from tests.mail.play import new_game


class Died(BaseException):
    """The sender's process dying: nothing after it runs, no ``except Exception`` takes it."""


class DiesAfterTheRelay(SmtpBackend):
    """A real SMTP conversation; the sender dies once the relay has said 250."""

    def send(self, message, sender=None) -> None:
        super().send(message, sender)
        raise Died


class Watching(SmtpBackend):
    """Looks, as another process would, at the row's committed state as it is sent."""

    def __init__(self, env) -> None:
        super().__init__(env.config)
        self.env = env
        self.seen: list[tuple[str, int]] = []

    def send(self, message, sender=None) -> None:
        with self.env.db.read() as session:
            row = session.query(OutboxMessage).filter_by(message_id=message["Message-ID"]).one()
            self.seen.append((row.status, row.attempts))
        super().send(message, sender)


def test_a_row_is_committed_as_sending_before_the_relay_hears_of_it(smtp_env, smtp_server):
    env = smtp_env
    public_id = new_game(env)
    backend = Watching(env)
    assert jobs.deliver_mail(env, backend) == 2
    assert backend.seen == [("sending", 1), ("sending", 1)]
    assert [(m.status, m.attempts) for m in mails(env, public_id)] == [("sent", 1), ("sent", 1)]


def test_a_sender_dead_after_the_relays_250_sends_again_after_the_recovery_time(
    smtp_env, smtp_server
):
    env = smtp_env
    recover_after = env.config.mail_recover_after
    public_id = new_game(env)
    with pytest.raises(Died):
        jobs.deliver_mail(env, DiesAfterTheRelay(env.config))
    assert len(smtp_server.received) == 1  # the relay has it
    first = smtp_server.received[0]["Message-ID"]
    row = next(m for m in mails(env, public_id) if m.message_id == first)
    assert row.status == "sending"
    # the other mail goes out; the one in doubt waits for the recovery time
    assert jobs.deliver_mail(env, SmtpBackend(env.config)) == 1
    env.clock.advance(seconds=recover_after - 1)
    assert jobs.deliver_mail(env, SmtpBackend(env.config)) == 0
    env.clock.advance(seconds=1)
    assert jobs.deliver_mail(env, SmtpBackend(env.config)) == 1
    ids = [m["Message-ID"] for m in smtp_server.received]
    assert ids.count(first) == 2 and len(ids) == 3  # once more, under the same Message-ID
    again = next(m for m in mails(env, public_id) if m.message_id == first)
    assert (again.status, again.attempts) == ("sent", 2)
    assert jobs.deliver_mail(env, SmtpBackend(env.config)) == 0


class Hangs:
    """The old scheduler's clock. Told to, it hangs at its next reading: meanwhile the lease
    lapses and another scheduler takes it over."""

    def __init__(self, clock, takeover) -> None:
        self.clock, self.takeover, self.armed = clock, takeover, False

    def now(self):
        if self.armed:
            self.armed = False
            self.clock.advance(seconds=31)
            assert self.takeover()
        return self.clock.now()


def test_a_mail_claimed_by_a_scheduler_that_then_lost_its_lease_is_given_back_unsent(
    smtp_env, smtp_server
):
    """The lease lapsed and was taken over between the claim and the send: the old
    scheduler sends nothing and gives the row back, so the new one sends it at once."""
    env = smtp_env
    new = Lease(Database(env.config.database_url), env.clock, 30, 10)
    clock = Hangs(env.clock, new.try_acquire)
    old = Lease(env.db, clock, 30, 10)
    writer, claimed = Writer(env), []

    def write_then_hang(session, row) -> None:  # in the claim's transaction
        writer.write(session, row)
        claimed.append(row.id)
        clock.armed = True

    try:
        assert old.try_acquire()
        env.db.fence = old
        public_id = new_game(env)
        with pytest.raises(Fenced):
            deliver_due(
                env.db,
                env.clock,
                SmtpBackend(env.config),
                env.config.mail_from,
                write=write_then_hang,
                recover_after=timedelta(minutes=10),
            )
    finally:
        env.db.fence = None
    assert smtp_server.received == []
    row = next(m for m in mails(env, public_id) if m.id == claimed[0])
    assert (row.status, row.last_error) == ("pending", "not sent: the lease was lost")
    assert jobs.deliver_mail(env, SmtpBackend(env.config)) == 2  # at once, by the new holder
    new.release()
    new.db.dispose()
