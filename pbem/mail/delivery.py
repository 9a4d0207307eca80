"""Hand due outbox rows to a backend: SMTP in production, console or file in development.

A row is committed as ``sending`` before the relay is spoken to, and marked sent
after. A failed send puts the row back to pending with a later ``next_attempt_at``
(backoff), and after the last retry marks it failed with the error, so an SMTP
outage loses nothing. A permanent refusal (5xx) of the recipient or of the mail marks
it bounced at once, never tried again (docs/deploy.md, "Bounces"). What a crash can
send twice: ``deliver_due``.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
import sys
import time
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
from ..store.db import Database, DatabaseUnavailable, Fenced
from ..store.models import OutboxMessage
from . import headers

log = logging.getLogger("pbem.mail")

#: Seconds to wait before each new try to record what the relay said, when the database
#: did not answer: the row stays ``sending`` (sent again after the recovery time) only if
#: it is still away after these.
RECORD_RETRIES = (0.2, 1.0, 3.0)

#: Wait before each retry: about 1 min, 5 min, 30 min, 2 h, 12 h; then the row fails.
BACKOFF = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=12),
)


#: A run looks for due rows again after one that bounced (the opponent's mail it queued),
#: at most this many times in all.
PASSES = 3


def build_message(row: OutboxMessage, mail_from: str) -> EmailMessage:
    """The mail of an outbox row, every header checked (``mail.headers``).

    Raises ``ValueError`` (``HeaderInjection`` among them) for a row that cannot become a
    safe message: it is generated once here, so nothing half-built reaches the relay.
    """
    if row.text_body is None or row.html_body is None or row.subject is None:
        raise ValueError("the row has no words: write it first")
    msg = EmailMessage(policy=headers.POLICY)
    msg["Message-ID"] = headers.text("Message-ID", row.message_id)
    msg["From"] = headers.mailbox(mail_from)
    msg["To"] = headers.address(row.to_addr, row.to_name)
    msg["Subject"] = headers.text("Subject", row.subject)
    msg["Date"] = format_datetime(as_utc(row.created_at))
    msg.set_content(row.text_body)
    msg.add_alternative(row.html_body, subtype="html")
    # After the bodies: set_content moves Content-* headers (Content-Language) into a part.
    for name, value in (row.headers or {}).items():
        msg[name] = headers.text(name, value)
    if "Auto-Submitted" not in (row.headers or {}):  # every mail of the server (RFC 3834)
        msg["Auto-Submitted"] = headers.auto_submitted(row.kind)
    msg.as_bytes()  # folds every header: one that would break out raises here
    return msg


class Backend(Protocol):
    def send(self, message: EmailMessage, sender: str | None = None) -> None:
        """Send it; ``sender``: the envelope's return path (SMTP only; else the From)."""

    def close(self) -> None:
        """Let go of anything held between sends (``deliver_due`` calls it after a run)."""


class ConsoleBackend:
    """Development: print each mail's text part, links and all, to the terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def send(self, message: EmailMessage, sender: str | None = None) -> None:
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

    def send(self, message: EmailMessage, sender: str | None = None) -> None:
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

    def send(self, message: EmailMessage, sender: str | None = None) -> None:
        try:
            self._connection().send_message(message, from_addr=sender)
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


#: Writes an unwritten row's words into it (``services.mailing.writer.Writer.write``).
Write = Callable[[Session, OutboxMessage], None]
#: Why a due row is no longer to be sent, or None (``services.mailing.writer.Writer.unwanted``).
Unwanted = Callable[[Session, OutboxMessage], str | None]
#: The return path of a row's mail, by its id (``services.mailing.bounces.return_path``).
ReturnPath = Callable[[int], str | None]
#: What follows a row's bounce, in the transaction that marks it bounced
#: (``services.mailing.bounces.bounced``).
Bounced = Callable[[Session, int], None]


def _wanted(session: Session, row: OutboxMessage) -> str | None:
    return None


def _no_return_path(row_id: int) -> str | None:
    return None


def _nothing(session: Session, row_id: int) -> None:
    return None


def permanent(exc: BaseException) -> bool:
    """Whether the first hop refused the recipient or the mail for good (a 5xx reply).

    A refused sender or login (5xx too) is the server's own setting, not the player's
    address: that row backs off like a temporary failure, and the operator sees why."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()]
        return bool(codes) and all(500 <= code < 600 for code in codes)
    if isinstance(exc, smtplib.SMTPDataError):
        return 500 <= exc.smtp_code < 600
    return False


def deliver_due(
    db: Database,
    clock: Clock,
    backend: Backend,
    mail_from: str,
    limit: int = 50,
    *,
    write: Write,
    recover_after: timedelta,
    unwanted: Unwanted = _wanted,
    return_path: ReturnPath = _no_return_path,
    bounced: Bounced = _nothing,
) -> int:
    """Send the rows that are due; returns how many were sent.

    Each row is claimed (and, queued without its words, written by ``write``) in a
    transaction committed as ``sending`` before the relay is spoken to, and its outcome
    recorded in a second one. So a crash between the relay's 250 and that record leaves
    the row ``sending``, and it is sent again, with the same Message-ID, only after
    ``recover_after`` (docs/scaling.md, "Mail"). A row that cannot be written is kept
    with the error, like one the relay refused. A row that ``unwanted`` gives a reason
    against is marked dropped with it, and never sent.

    A row the relay refuses for good is marked bounced and handed to ``bounced`` in the
    same transaction; the mails that queues (the opponent told) go out in this same run.
    """
    todo = _Run(write, recover_after, unwanted, return_path, bounced)
    seen: set[int] = set()
    sent = 0
    try:
        for _pass in range(PASSES):
            with db.read() as session:
                due = [i for i in outbox.due(session, clock.now(), limit) if i not in seen]
            seen.update(due)
            bounces_before = todo.bounces
            sent += _deliver(db, clock, backend, mail_from, due, todo)
            if todo.bounces == bounces_before or not due:
                break
        return sent
    finally:
        backend.close()


class _Run:
    """What one delivery run is given, and how many of its rows bounced."""

    def __init__(
        self,
        write: Write,
        recover_after: timedelta,
        unwanted: Unwanted,
        return_path: ReturnPath,
        bounced: Bounced,
    ) -> None:
        self.write, self.recover_after, self.unwanted = write, recover_after, unwanted
        self.return_path, self.bounced = return_path, bounced
        self.bounces = 0


def _deliver(
    db: Database,
    clock: Clock,
    backend: Backend,
    mail_from: str,
    due: list[int],
    run: _Run,
) -> int:
    sent = 0
    for row_id in due:
        try:
            claimed = _claim(
                db, clock.now(), mail_from, row_id, run.write, run.recover_after, run.unwanted
            )
            if claimed is not None:
                sent += _send(db, clock, backend, row_id, *claimed, run)
        except DatabaseUnavailable:
            raise  # no row can be claimed or recorded: the next run tries again
        except Exception:  # one row's transaction failed: the others still go out
            log.exception("outbox row %s: its transaction failed; it is tried again later", row_id)
    return sent


def _claim(
    db: Database,
    now: datetime,
    mail_from: str,
    row_id: int,
    write: Write,
    recover_after: timedelta,
    unwanted: Unwanted,
) -> tuple[EmailMessage, int] | None:
    """Claim, write and build one row, committed as ``sending``: its message and attempt
    number, or None if it is not to be sent (taken, unwanted and dropped, or refused and
    recorded so)."""
    with db.write() as session:
        # A second sender skips a row being claimed (PostgreSQL's SKIP LOCKED), or waits for
        # the write lock (SQLite's BEGIN IMMEDIATE); then it finds it sending and not due.
        row = outbox.claim(session, row_id, now)
        if row is None:
            return None
        reason = unwanted(session, row)
        if reason is not None:  # its reader saw what it tells: never sent
            outbox.mark_dropped(row, reason)
            return None
        if outbox.held(session, row):  # its address bounced since the run began: it waits
            return None
        if row.status == "sending":
            log.warning(
                "outbox row %s: its sender stopped after claiming it at %s (lease token %s);"
                " sending it again with the same Message-ID",
                row_id,
                row.sending_at,
                row.sending_token,
            )
        attempt = outbox.mark_sending(row, now, now + recover_after, _token(db))
        if outbox.undeliverable(row.to_addr):  # queued before its account was erased
            _failed(
                session, row_id, attempt, now, "refused: an address that takes no mail", final=True
            )
            return None
        try:
            write(session, row)
        except Exception as exc:  # a template or a log that no longer replays: keep the row
            log.exception("outbox row %s could not be written", row_id)
            _failed(session, row_id, attempt, now, f"not written: {type(exc).__name__}: {exc}")
            return None
        try:
            message = build_message(row, mail_from)
        except Exception as exc:  # a header that would break out: no retry can mend it
            log.error("outbox row %s refused: %s: %s", row_id, type(exc).__name__, exc)
            _failed(
                session, row_id, attempt, now, f"refused: {type(exc).__name__}: {exc}", final=True
            )
            return None
        return message, attempt


def _send(
    db: Database,
    clock: Clock,
    backend: Backend,
    row_id: int,
    message: EmailMessage,
    attempt: int,
    run: _Run,
) -> int:
    """Hand a claimed row's message to the backend and record the outcome; 1 if sent.

    The record is not fenced: a scheduler that lost its lease meanwhile still writes down
    what the relay accepted, so its successor does not send it again."""
    try:
        db.ensure_live()  # a scheduler woken from a hang after a takeover sends nothing
    except Fenced:
        _unclaim(db, clock.now(), row_id, attempt)
        raise
    error = None
    final = False
    try:
        backend.send(message, run.return_path(row_id))
    except (OSError, smtplib.SMTPException) as exc:
        error = f"{type(exc).__name__}: {exc}"
        final = permanent(exc)
    except Exception as exc:  # anything else a backend raises fails this row alone
        log.exception("outbox row %s could not be sent", row_id)
        error = f"{type(exc).__name__}: {exc}"
    for wait in (*RECORD_RETRIES, None):
        try:
            return _record(db, clock.now(), row_id, attempt, error, run if final else None)
        except DatabaseUnavailable as exc:
            if wait is None:
                log.error(
                    "outbox row %s: what the relay said could not be recorded (%s);"
                    " it is sent again after PBEM_MAIL_RECOVER_AFTER",
                    row_id,
                    exc,
                )
                raise
            time.sleep(wait)  # a cut connection is replaced at once; a restart takes longer
    raise AssertionError("unreachable")


def _record(
    db: Database,
    now: datetime,
    row_id: int,
    attempt: int,
    error: str | None,
    bounced: _Run | None = None,
) -> int:
    """Record the relay's answer: sent, failed (to retry), or, with ``bounced``, refused
    for good: marked bounced, and what follows a bounce done in the same transaction."""
    with db.write(fenced=False) as session:
        if error is None:
            if not outbox.mark_sent(session, row_id, attempt, now):
                log.warning("outbox row %s was sent, but claimed again meanwhile", row_id)
            return 1
        if bounced is not None:
            if outbox.mark_bounced(session, row_id, f"bounced: {error}", attempt):
                bounced.bounced(session, row_id)
                bounced.bounces += 1
            return 0
        _failed(session, row_id, attempt, now, error)
        return 0


def _unclaim(db: Database, now: datetime, row_id: int, attempt: int) -> None:
    """Give back a row claimed but not sent, so the next scheduler sends it at once
    rather than after the recovery time (if the database answers; else it waits for it)."""
    try:
        with db.write(fenced=False) as session:
            outbox.mark_failed(session, row_id, attempt, "not sent: the lease was lost", now)
    except DatabaseUnavailable:
        pass


def _token(db: Database) -> int | None:
    """The sender's lease token, kept with the claim (None outside ``pbem scheduler``)."""
    return getattr(db.fence, "token", None)


def _failed(
    session: Session,
    row_id: int,
    attempt: int,
    now: datetime,
    error: str,
    *,
    final: bool = False,
) -> None:
    """Back off and try again later, or (after the last retry, or ``final``) give up."""
    session.flush()  # the claim's UPDATE first: the outcome's is written against it
    retry = None if final or attempt > len(BACKOFF) else now + BACKOFF[attempt - 1]
    outbox.mark_failed(session, row_id, attempt, error, retry)
