"""Delivery over real SMTP: every kind of mail, headers and threading, outages, retries."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from click.testing import CliRunner

from pbem.clock import as_utc
from pbem.mail.delivery import BACKOFF, SmtpBackend, build_message
from pbem.services.core import access
from pbem.services.play import game_clock, game_pages, link_recovery, moves, seat_settings
from pbem.services.scheduled import jobs
from tests.helpers import mails, past_the_hold
from tests.mail.play import new_game, play, to_move, token

LINK = re.compile(r"http://pbem\.test(/s/[A-Za-z0-9_\-\.]+)")


def deliver_all(env) -> int:
    sent = 0
    while n := jobs.deliver_mail(env, SmtpBackend(env.config), limit=10_000):
        sent += n
    return sent


def received_for(server, public_id: str) -> list:
    return [
        m
        for m in server.received
        if public_id in str(m.get_body(("plain",)).get_content())
        or public_id in str(m.get("In-Reply-To", "")) + str(m.get("Message-ID", ""))
    ]


def test_every_kind_of_mail_arrives_threaded_with_a_working_link(smtp_env, smtp_server, client):
    env = smtp_env
    clock = env.clock
    public_id = new_game(env, game_clock.GameClock(days_per_move=3))
    # a receipt of a web move only when asked for: Ada asks for every one
    seat_settings.set_receipts(env, token(env, public_id, 0), "all", access.Client())
    play(env, public_id, 3)  # your_turn, and Ada's receipts
    seat = to_move(env, public_id)
    link_recovery.request_link(env, public_id, "ada@example.test", access.Client(ip="10.0.0.1"))
    clock.advance(hours=25)  # a reminder
    jobs.run_clock(env)
    clock.advance(hours=24)  # the deadline warning (never in the same run as a reminder)
    jobs.run_clock(env)
    clock.advance(hours=24)  # the timeout
    jobs.run_clock(env)
    rows = len(mails(env, public_id))
    n = len(game_pages.public_page(env, public_id).entries) + 1
    moves.claim_win(env, token(env, public_id, 1 - seat), n, access.Client())  # game over
    assert deliver_all(env) >= rows

    kinds = {m.kind for m in mails(env, public_id)}
    assert {
        "invitation",
        "your_turn",
        "receipt",
        "link",
        "reminder",
        "deadline_warning",
        "timeout",
        "game_over",
    } <= kinds
    by_id = {m["Message-ID"]: m for m in smtp_server.received}
    for row in mails(env, public_id):
        assert row.status == "sent"
        got = by_id[row.message_id]  # the stable Message-ID reached the recipient
        assert got["Subject"] == row.subject
        assert got["To"].addresses[0].addr_spec == row.to_addr
        assert got["To"].addresses[0].display_name == row.to_name
        assert got.get_content_type() == "multipart/alternative"
        assert got.get_body(("plain",)) is not None and got.get_body(("html",)) is not None
        root = f"<game.{public_id}.seat{row.seat}@pbem.test>"
        if row.kind == "invitation":
            assert got["Message-ID"] == root
        else:
            assert got["In-Reply-To"] == root and got["References"] == root
        path = LINK.search(got.get_body(("plain",)).get_content()).group(1)
        assert client.get(path).status_code == 200, row.kind
    turn = next(m for m in mails(env, public_id) if m.kind == "your_turn")
    assert re.match(r"Jaipur vs \w+ — your turn \(move \d+\)", turn.subject)
    assert by_id[turn.message_id]["Reply-To"].startswith("play+")


def test_mail_waits_through_an_outage_and_is_delivered_once(smtp_env, smtp_server):
    env = smtp_env
    public_id = new_game(env)
    smtp_server.stop()
    assert deliver_all(env) == 0
    rows = mails(env, public_id)
    assert all(r.status == "pending" and r.attempts == 1 and r.last_error for r in rows)
    assert all(as_utc(r.next_attempt_at) > env.clock.now() for r in rows)
    assert deliver_all(env) == 0  # not due yet: nothing is retried early
    smtp_server.start()
    env.clock.advance(seconds=BACKOFF[0].total_seconds() + 1)
    assert deliver_all(env) >= len(rows)
    assert deliver_all(env) == 0
    ids = [m["Message-ID"] for m in smtp_server.received]
    assert sorted(r.message_id for r in rows) == sorted(
        i for i in ids if public_id in i or i in {r.message_id for r in rows}
    )
    assert len(ids) == len(set(ids))  # nothing twice


def test_one_delivery_run_sends_its_mails_over_one_connection(smtp_env, smtp_server):
    env = smtp_env
    public_id = new_game(env)
    play(env, public_id, 4)
    past_the_hold(env)
    queued = len(mails(env, public_id))
    # two invitations and one "your turn" per move (no receipt of a web move by default)
    assert jobs.deliver_mail(env, SmtpBackend(env.config), limit=10_000) == queued == 6
    assert len(smtp_server.received) == queued and smtp_server.connections == 1
    play(env, public_id, 1)
    past_the_hold(env)
    deliver_all(env)  # the next run opens a connection of its own
    assert smtp_server.connections == 2


def test_a_connection_the_relay_dropped_is_replaced_before_sending(smtp_env, smtp_server):
    env = smtp_env
    public_id = new_game(env)
    play(env, public_id, 1)
    first, second, *_ = mails(env, public_id)
    backend = SmtpBackend(env.config)
    backend.send(build_message(first, env.config.mail_from))
    smtp_server.stop()  # the relay restarts: the connection held is dead
    smtp_server.start()
    backend.send(build_message(second, env.config.mail_from))
    backend.close()
    assert [m["Message-ID"] for m in smtp_server.received] == [first.message_id, second.message_id]
    assert smtp_server.connections == 2


def test_outbox_command_lists_and_retries_failed_mail(smtp_env, smtp_server, monkeypatch):
    env = smtp_env
    public_id = new_game(env)
    smtp_server.stop()
    for _ in range(len(BACKOFF) + 1):
        deliver_all(env)
        env.clock.advance(hours=13)
    failed = mails(env, public_id)
    assert all(r.status == "failed" for r in failed)

    monkeypatch.setenv("PBEM_DATABASE_URL", env.config.database_url)
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(env.config.instance_path))
    from pbem.cli import main

    listing = CliRunner().invoke(main, ["outbox"])
    assert listing.exit_code == 0
    assert str(failed[0].id) in listing.output and "failed" in listing.output
    retried = CliRunner().invoke(main, ["outbox", "retry", str(failed[0].id)])
    assert retried.exit_code == 0, retried.output
    smtp_server.start()
    # The command ran on the real clock and put the row in line "now"; the test's frozen
    # clock (13 hours a round above) may stand before that, so move it there.
    real_now = datetime.now(UTC)
    if env.clock.now() < real_now:
        env.clock.advance(seconds=(real_now - env.clock.now()).total_seconds() + 1)
    deliver_all(env)
    statuses = {r.id: r.status for r in mails(env, public_id)}
    assert statuses[failed[0].id] == "sent"
    assert CliRunner().invoke(main, ["outbox", "retry", "999999"]).exit_code == 1


def test_digest_seats_get_one_daily_mail_instead_of_each_turn(env):
    public_id = new_game(env)
    for seat in (0, 1):
        seat_settings.set_mail_mode(env, token(env, public_id, seat), "digest", access.Client())
    before = len(mails(env, public_id))
    play(env, public_id, 2)
    assert len(mails(env, public_id)) == before  # no per-turn mail
    env.clock._now = env.clock.now().replace(hour=5)
    assert jobs.send_digests(env) == 0  # before the digest hour
    env.clock.advance(hours=3)
    assert jobs.send_digests(env) >= 1
    assert jobs.send_digests(env) == 0  # once a day
    env.clock.advance(days=1)
    assert jobs.send_digests(env) >= 1
    assert env.clock.now() - timedelta(days=2) < env.clock.now()
