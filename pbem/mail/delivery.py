"""Hand due outbox rows to a backend: SMTP in production, console or file in development.

A failed send leaves the row pending with a later ``next_attempt_at``
(backoff), and after the last retry marks it failed with the error, so an SMTP
outage loses nothing.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Protocol, TextIO

from sqlalchemy.orm import Session

from ..clock import Clock, as_utc
from ..config import Config
from ..store import outbox
from ..store.db import Database
from ..store.models import OutboxMessage
from . import headers

log = logging.getLogger("pbem.mail")

#: Wait before each retry: about 1 min, 5 min, 30 min, 2 h, 12 h; then the row fails.
BACKOFF = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=12),
)


def build_message(row: OutboxMessage, mail_from: str) -> EmailMessage:
    """The mail of an outbox row, every header checked (``mail.headers``).

    Raises ``ValueError`` (``HeaderInjection`` among them) for a row that cannot become a
    safe message: it is generated once here, so nothing half-built reaches the relay.
    """
    if row.text_body is None or row.html_body is None or row.subject is None:
        raise ValueError("the row has no words: write it first")
    msg = EmailMessage(policy=headers.POLICY)
    msg["Message-ID"] = headers.text("Message-ID", row.message_id)
    msg["From"] = headers.text("From", mail_from)
    msg["To"] = headers.address(row.to_addr, row.to_name)
    msg["Subject"] = headers.text("Subject", row.subject)
    msg["Date"] = format_datetime(as_utc(row.created_at))
    msg.set_content(row.text_body)
    msg.add_alternative(row.html_body, subtype="html")
    # After the bodies: set_content moves Content-* headers (Content-Language) into a part.
    for name, value in (row.headers or {}).items():
        msg[name] = headers.text(name, value)
    msg.as_bytes()  # folds every header: one that would break out raises here
    return msg


class Backend(Protocol):
    def send(self, message: EmailMessage) -> None: ...

    def close(self) -> None:
        """Let go of anything held between sends (``deliver_due`` calls it after a run)."""


class ConsoleBackend:
    """Development: print each mail's text part, links and all, to the terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def send(self, message: EmailMessage) -> None:
        body = message.get_body(("plain",))
        text = body.get_content() if body is not None else ""
        bar = "-" * 72
        print(
            f"{bar}\nTo: {message['To']}\nSubject: {message['Subject']}\n\n{text}{bar}",
            file=self.stream,
            flush=True,
        )

    def close(self) -> None:
        pass


class FileBackend:
    """Development: write each mail as an ``.eml`` file into a folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def send(self, message: EmailMessage) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        name = message["Message-ID"].strip("<>").replace("@", "_").replace("/", "_")
        (self.folder / f"{name}.eml").write_bytes(message.as_bytes())

    def close(self) -> None:
        pass


class SmtpBackend:
    """One SMTP connection per delivery run, not per mail.

    Opening one (TCP, STARTTLS or SSL, login) costs more than sending a mail over
    it. Before each reuse a NOOP checks that the relay still holds it (relays drop
    idle or long-lived connections), and a dead one is replaced before anything is
    sent. A failed send drops the connection: the row backs off, and the next row
    starts on a fresh one.
    """

    def __init__(self, config: Config, timeout: float = 30) -> None:
        self.config = config
        self.timeout = timeout
        self._smtp: smtplib.SMTP | None = None

    def send(self, message: EmailMessage) -> None:
        try:
            self._connection().send_message(message)
        except (OSError, smtplib.SMTPException):
            self.close()
            raise

    def _connection(self) -> smtplib.SMTP:
        if self._smtp is not None:
            try:
                if self._smtp.noop()[0] == 250:
                    return self._smtp
            except (OSError, smtplib.SMTPException):
                pass
            self.close()
        self._smtp = self._connect()
        return self._smtp

    def _connect(self) -> smtplib.SMTP:
        c = self.config
        if c.smtp_tls == "ssl":
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(
                c.smtp_host, c.smtp_port, timeout=self.timeout, context=ssl.create_default_context()
            )
        else:
            smtp = smtplib.SMTP(c.smtp_host, c.smtp_port, timeout=self.timeout)
        try:
            if c.smtp_tls == "starttls":
                smtp.starttls(context=ssl.create_default_context())
            if c.smtp_user:
                smtp.login(c.smtp_user, c.smtp_password)
        except BaseException:
            smtp.close()
            raise
        return smtp

    def close(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is None:
            return
        try:
            smtp.quit()
        except (OSError, smtplib.SMTPException):
            smtp.close()


def backend_for(config: Config) -> Backend:
    if config.mail_backend == "console":
        return ConsoleBackend()
    if config.mail_backend == "file":
        return FileBackend(config.instance_path / "mail")
    return SmtpBackend(config)


#: Writes an unwritten row's words into it (``services.game_mails.Writer.write``).
Write = Callable[[Session, OutboxMessage], None]
#: Why a due row is no longer to be sent, or None (``services.game_mails.Writer.unwanted``).
Unwanted = Callable[[Session, OutboxMessage], str | None]


def _wanted(session: Session, row: OutboxMessage) -> str | None:
    return None


def deliver_due(
    db: Database,
    clock: Clock,
    backend: Backend,
    mail_from: str,
    limit: int = 50,
    *,
    write: Write,
    unwanted: Unwanted = _wanted,
) -> int:
    """Send the rows that are due; returns how many were sent.

    A row queued without its words gets them from ``write`` first, in the
    transaction that marks it sent, so the outbox keeps what went out. A row that
    cannot be written is kept with the error, like one the relay refused. A row that
    ``unwanted`` gives a reason against is marked dropped with it, and never sent.
    """
    now = clock.now()
    with db.read() as session:
        due = outbox.due(session, now, limit)
    try:
        return _deliver(db, now, backend, mail_from, due, write, unwanted)
    finally:
        backend.close()


def _deliver(
    db: Database,
    now: datetime,
    backend: Backend,
    mail_from: str,
    due: list[int],
    write: Write,
    unwanted: Unwanted,
) -> int:
    sent = 0
    for row_id in due:
        try:
            sent += _deliver_one(db, now, backend, mail_from, row_id, write, unwanted)
        except Exception:  # one row's transaction failed: the others still go out
            log.exception("outbox row %s: its transaction failed; it is tried again later", row_id)
    return sent


def _deliver_one(
    db: Database,
    now: datetime,
    backend: Backend,
    mail_from: str,
    row_id: int,
    write: Write,
    unwanted: Unwanted,
) -> int:
    """Write, build and send one row in its own transaction; 1 if it was sent."""
    with db.write() as session:
        # Claim the row: a second sender skips a row that is being sent (PostgreSQL), or
        # waits for the write lock and then finds it sent (SQLite's BEGIN IMMEDIATE).
        row = outbox.claim(session, row_id)
        if row is None:
            return 0
        if outbox.undeliverable(row.to_addr):  # queued before its account was erased
            _failed(row, now, "refused: an address that takes no mail", final=True)
            return 0
        reason = unwanted(session, row)
        if reason is not None:
            outbox.mark_dropped(row, reason)
            return 0
        try:
            write(session, row)
        except Exception as exc:  # a template or a log that no longer replays: keep the row
            log.exception("outbox row %s could not be written", row_id)
            _failed(row, now, f"not written: {type(exc).__name__}: {exc}")
            return 0
        try:
            message = build_message(row, mail_from)
        except Exception as exc:  # a header that would break out: no retry can mend it
            log.error("outbox row %s refused: %s: %s", row_id, type(exc).__name__, exc)
            _failed(row, now, f"refused: {type(exc).__name__}: {exc}", final=True)
            return 0
        try:
            backend.send(message)
        except (OSError, smtplib.SMTPException) as exc:
            _failed(row, now, f"{type(exc).__name__}: {exc}")
            return 0
        except Exception as exc:  # anything else a backend raises fails this row alone
            log.exception("outbox row %s could not be sent", row_id)
            _failed(row, now, f"{type(exc).__name__}: {exc}")
            return 0
        outbox.mark_sent(row, now)
        return 1


def _failed(row: OutboxMessage, now: datetime, error: str, *, final: bool = False) -> None:
    """Back off and try again later, or (after the last retry, or ``final``) give up."""
    tries = row.attempts + 1
    outbox.mark_failed(
        row, error, None if final or tries > len(BACKOFF) else now + BACKOFF[tries - 1]
    )
