"""What ``pbem scheduler`` and ``pbem inbound`` write to their logs (issue 37).

A quiet server's scheduler writes nothing at INFO for its idle ticks (it wrote two lines
for every run of every job); the receiver writes one line for each thing it did (a reply
handled, a recipient refused as forged or expired, a mail refused as too large), no line
per SMTP command, and no reply token.
"""

from __future__ import annotations

import os
import re
import smtplib
import time
from email.message import EmailMessage
from pathlib import Path

from pbem.receiver import one_line
from pbem.services.play import game_pages, new_games
from tests.mail.conftest import free_port
from tests.mail.lmtp import lmtp_exchange
from tests.reliability.test_logs import start, stop, wait_for_port
from tests.support import own_database

# The scheduler's jobs look at every game and mail of their database: one of its own.
database_url, database = own_database("module")

#: A log line as ``basicConfig``'s format writes it: date, time, logger, message.
LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (\S+) (.*)$")


def server_environ(database_url: str, folder: Path, **more: str) -> dict[str, str]:
    return {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_ENV": "testing",
        "PBEM_SECRET_KEY": "test-secret-key",
        "PBEM_BASE_URL": "http://pbem.test",
        "PBEM_INSTANCE_PATH": str(folder),
        "PBEM_MAIL_BACKEND": "file",
        **more,
    }


def log_lines(path: Path) -> list[tuple[str, str]]:
    """(logger, message) of each line the process logged (not what it echoed)."""
    found = (LINE.match(line) for line in path.read_text(errors="replace").splitlines())
    return [(m.group(1), m.group(2)) for m in found if m]


def test_an_idle_scheduler_logs_nothing_for_its_ticks(database_url, tmp_path):
    jobs = "DELIVER CLOCK DIGEST PURGE COMPUTER COMPUTER_SWEEP ANALYSE RETENTION"
    every = {f"PBEM_{job}_EVERY": "1" for job in jobs.split()}
    environ = server_environ(
        database_url, tmp_path, PBEM_LEASE_SECONDS="5", PBEM_LEASE_RENEW_EVERY="1", **every
    )
    log = tmp_path / "scheduler.log"
    proc = start(["scheduler"], environ, log, tmp_path)
    try:
        end = time.monotonic() + 30
        while "active scheduler" not in log.read_text(errors="replace"):
            assert proc.poll() is None and time.monotonic() < end, log.read_text()[-2000:]
            time.sleep(0.1)
        time.sleep(6)  # six ticks of each of nine jobs: 100 lines at INFO before
        assert proc.poll() is None, log.read_text()[-2000:]
        messages = [message for _, message in log_lines(log)]  # before it is stopped
    finally:
        stop(proc)
    start_line = next(i for i, m in enumerate(messages) if "active scheduler" in m)
    assert messages[start_line + 1 :] == [], messages  # nothing after its start


def test_the_receiver_logs_one_line_for_each_thing_it_did_and_no_token(env, tmp_path):
    created = new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    )
    seat = game_pages.public_page(env, created.public_id).view.table.to_move
    legal = game_pages.legal_moves(env, created.tokens[seat])
    token = env.links.reply_token(created.public_id, seat, 1, 1)
    good = f"play+{token}@pbem.test"
    forged_token = token[:-1] + ("a" if token[-1] != "a" else "b")
    forged = f"play+{forged_token}@pbem.test"
    port = free_port()
    log = tmp_path / "inbound.log"
    environ = server_environ(
        env.config.database_url,
        tmp_path,
        PBEM_REPLY_ADDRESS="play@pbem.test",
        PBEM_REPLY_GRACE_HOURS="0",  # a spent address is an expired one at once
        PBEM_INBOUND_HOSTNAME="mx.pbem.test",
    )
    proc = start(["inbound", "--lmtp", "--port", str(port)], environ, log, tmp_path)
    try:
        wait_for_port(port, proc, log)
        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = "a@example.test", good, "Re: Jaipur"
        mail["Message-ID"] = "<reply-1@example.test>"
        mail.set_content(f"{legal[0]}\ngood luck")
        answers = lmtp_exchange(port, [good, forged], mail.as_bytes())
        assert [a[:3] for a in answers] == ["250", "550", "250"], answers
        assert len(game_pages.public_page(env, created.public_id).entries) == 1  # played
        # the same address again, now spent; a name that is no reply address at all
        assert [a[:3] for a in lmtp_exchange(port, [good, "nobody@pbem.test"], b"")] == [
            "550",
            "550",
        ]
        # a mail the other seat's address reads no move in, twice, its Message-ID
        # followed by what would be a log line of its own: refused once, then a duplicate
        other = f"play+{env.links.reply_token(created.public_id, 1 - seat, 2, 1)}@pbem.test"
        forged_line = "2026-12-07 00:00:00,000 pbem.inbound reply accepted: move 9: forged"
        hello = EmailMessage()
        hello["From"], hello["To"], hello["Subject"] = "b@example.test", other, "Re: Jaipur"
        hello["Message-ID"] = "<hello@example.test>"
        hello.set_content("hello there")
        raw = hello.as_bytes().replace(
            b"<hello@example.test>", b"<hello@example.test>\r\n " + forged_line.encode()
        )
        for _ in range(2):
            assert [a[:3] for a in lmtp_exchange(port, [other], raw)] == ["250", "250"]
        with smtplib.LMTP("127.0.0.1", port) as lmtp:
            lmtp.ehlo_or_helo_if_needed()  # the greeting name is PBEM_INBOUND_HOSTNAME's
            assert (lmtp.ehlo_resp or b"").startswith(b"mx.pbem.test"), lmtp.ehlo_resp
            code, _ = lmtp.docmd("MAIL", "FROM:<a@example.test> SIZE=99999999")
            assert code == 552  # larger than the receiver takes: refused before DATA
    finally:
        stop(proc)
    text = log.read_text(errors="replace")
    for secret in (token, forged_token):
        assert secret not in text, text
    inbound = [m for name, m in log_lines(log) if name == "pbem.inbound"]
    assert [m.split(":")[0] for m in inbound] == [
        "refused RCPT play+[token]@pbem.test",
        "reply accepted",
        "refused RCPT play+[token]@pbem.test",
        "refused RCPT nobody@pbem.test",
        "reply refused",
        "reply duplicate",
        "refused a mail",
    ], text
    assert inbound[:4] == [
        "refused RCPT play+[token]@pbem.test: not a reply address of this server",
        f"reply accepted: move 1: {legal[0]}",
        "refused RCPT play+[token]@pbem.test: an expired reply address",
        "refused RCPT nobody@pbem.test: not a reply address of this server",
    ], text
    assert inbound[-1] == f"refused a mail: larger than {10 * 1024 * 1024} bytes"
    assert not any(m.startswith("reply accepted: move 9") for m in inbound)

    # no line per command or connection (aiosmtpd's), nothing else but the schema check
    assert {name for name, _ in log_lines(log)} <= {"pbem.inbound", "alembic.runtime.migration"}


def test_a_senders_words_make_one_log_line():
    assert one_line("<a@b>\r\n2026-12-07 pbem.inbound reply accepted") == (
        "<a@b>??2026-12-07 pbem.inbound reply accepted"
    )
    assert len(one_line("x" * 1000)) == 300
