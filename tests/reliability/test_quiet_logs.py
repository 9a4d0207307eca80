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

from pbem.services.play import games
from tests.conftest import own_database
from tests.mail.conftest import free_port
from tests.reliability.test_logs import start, stop, wait_for_port

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
    every = {
        f"PBEM_{job}_EVERY": "1"
        for job in ("DELIVER", "CLOCK", "DIGEST", "PURGE", "COMPUTER", "COMPUTER_SWEEP")
        + ("ANALYSE", "RETENTION")
    }
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
    finally:
        stop(proc)
    messages = [message for _, message in log_lines(log)]
    start_line = next(i for i, m in enumerate(messages) if "active scheduler" in m)
    assert messages[start_line + 1 :] == [], messages  # nothing after its start
