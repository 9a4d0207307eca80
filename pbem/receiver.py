"""The inbound mail entry point, ``pbem inbound``: an SMTP or LMTP receiver (aiosmtpd) for
replies, handed mail by a mail server such as Postfix, and the optional IMAP mailbox poller.

It sits beside the web app, the CLI and the scheduler, above the services: it plays a
reply through ``services.play.replies``, so it cannot live in ``mail/``, which the services
call to compose and deliver (see docs/architecture.md, "Layers").

Only addresses of the reply form, and the bounce addresses of the mails this server
sent (``services.mailing.bounces``), are accepted at RCPT time; each accepted mail is
handled by ``services.play.replies.handle_mail`` (a bounce by ``bounces.handle_bounce``)
in a worker thread, so a slow database never stalls the SMTP conversation.

Its log says what it did, one line each: a mail handled, a recipient refused (forged or
expired), a mail refused as too large. aiosmtpd's line per command is kept below INFO,
and every line passes ``pbem.redact`` (``cli_env.command_env``), so no reply token shows.
"""

from __future__ import annotations

import asyncio
import imaplib
import logging
import time
from typing import Any, AnyStr

import click
from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from .cli_env import ready_env
from .services.core.env import Env
from .services.mailing import bounces
from .services.play.replies import accepts_recipient, handle_mail, refusal_reason

log = logging.getLogger("pbem.inbound")
#: Mail larger than this (or than PBEM_INBOUND_MAX_KB, if that is larger) is refused in
#: the SMTP conversation itself; smaller mail over PBEM_INBOUND_MAX_KB gets a polite answer.
SMTP_SIZE_LIMIT = 10 * 1024 * 1024
#: aiosmtpd's logger, which writes every command and connection at INFO.
AIOSMTPD_LOG = "mail.log"


class ReplyHandler:
    def __init__(self, env: Env, lmtp: bool = False) -> None:
        self.env = env
        self.lmtp = lmtp

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]
    ) -> str:
        """Only a reply address this server signed and that is still open: a forged or
        expired one is refused in the conversation, so it is never answered by mail (no
        backscatter). The check reads the database, in a worker thread."""
        bounce = bounces.accepts(self.env, address)
        if bounce is not None:  # a bounce address: its signature is all there is to check
            if not bounce:
                log.info("refused RCPT %s: not a bounce address", one_line(address))
                return "550 5.1.1 not a bounce address of this server"
            envelope.rcpt_tos.append(address)
            return "250 OK"
        loop = asyncio.get_running_loop()
        try:
            accepted = await loop.run_in_executor(None, accepts_recipient, self.env, address)
        except Exception:  # the database is down: let the sending server retry later
            log.exception("could not check a recipient")
            return "451 4.3.0 temporary failure, try again later"
        if not accepted:
            reason = await loop.run_in_executor(None, refusal_reason, self.env, address)
            log.info("refused RCPT %s: %s", one_line(address), reason)
            return "550 5.1.1 not a reply address of this server, or an expired one"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        """SMTP answers once for the mail; LMTP once per accepted recipient (RFC 2033 4.2),
        each handled as a delivery of its own."""
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        sender = envelope.mail_from  # "" for the null sender <>
        if not self.lmtp:
            return await self._handle(raw, list(envelope.rcpt_tos), sender)
        answers = [await self._handle(raw, [rcpt], sender) for rcpt in envelope.rcpt_tos]
        return "\r\n".join(answers)

    async def _handle(self, raw: bytes, rcpts: list[str], sender: str | None) -> str:
        """250 for every mail handled, an automatic one dropped included (RFC 3834: taken
        and not answered, so the sending server does not retry nor bounce it)."""
        loop = asyncio.get_running_loop()
        bounced = [r for r in rcpts if bounces.accepts(self.env, r)]
        replies = [r for r in rcpts if r not in bounced]
        if bounced:
            try:
                done = await loop.run_in_executor(
                    None, bounces.handle_bounce, self.env, raw, bounced
                )
            except Exception:  # the database is down: let the sending server retry later
                log.exception("could not handle a bounce")
                return "451 4.3.0 temporary failure, try again later"
            log.info("bounce %s: %s", done.outcome, one_line(done.detail))
        if not replies:
            return "250 OK"
        rcpts = replies
        try:
            outcome = await loop.run_in_executor(None, handle_mail, self.env, raw, rcpts, sender)
        except Exception:  # the database is down: let the sending server retry later
            log.exception("could not handle a reply")
            return "451 4.3.0 temporary failure, try again later"
        log.info("reply %s: %s", outcome.outcome, one_line(outcome.detail))
        return "250 OK"


def one_line(text: str, limit: int = 300) -> str:
    """A sender's words (a Message-ID, an address) as one log line can hold them: no
    control character (a CR/LF would forge a line of its own), at most ``limit`` long."""
    cleaned = "".join(c if c.isprintable() else "?" for c in text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


class _Refusals:
    """Logs the refusals aiosmtpd answers itself, before any hook: a mail too large."""

    async def push(self, status: AnyStr) -> None:
        if str(status).startswith("552"):
            log.info("refused a mail: larger than %d bytes", self.data_size_limit)  # type: ignore[attr-defined]
        await super().push(status)  # type: ignore[misc]


class _SMTP(_Refusals, SMTP):
    pass


class _LMTP(_Refusals, LMTP):
    pass


class ReceiverController(Controller):
    def __init__(self, env: Env, hostname: str, port: int, lmtp: bool = False) -> None:
        self.lmtp = lmtp
        super().__init__(
            ReplyHandler(env, lmtp),
            hostname=hostname,
            port=port,
            data_size_limit=max(SMTP_SIZE_LIMIT, env.config.inbound_max_bytes),
            server_hostname=env.config.inbound_hostname or None,
            ident="pbem",
        )

    def factory(self) -> SMTP:
        server_class = _LMTP if self.lmtp else _SMTP
        return server_class(self.handler, **self.SMTP_kwargs)


def poll_imap(env: Env, limit: int = 50) -> int:
    """Handle the unseen mails of the configured IMAP folder; returns how many were handled."""
    c = env.config
    if not c.imap_host:
        return 0
    imap_class = imaplib.IMAP4_SSL if c.imap_ssl else imaplib.IMAP4
    handled = 0
    with imap_class(c.imap_host, c.imap_port) as imap:
        imap.login(c.imap_user, c.imap_password)
        imap.select(c.imap_folder)
        _, data = imap.search(None, "UNSEEN")
        for number in (data[0] or b"").decode("ascii").split()[:limit]:  # message numbers
            _, parts = imap.fetch(number, "(RFC822)")
            raw = next((p[1] for p in parts if isinstance(p, tuple)), None)
            if raw is None:
                continue
            bounced = bounces.addressed(env, raw)
            if bounced:
                bounces.handle_bounce(env, raw, bounced)
            else:
                handle_mail(env, raw)
            imap.store(number, "+FLAGS", "\\Seen")
            handled += 1
    return handled


@click.command("inbound")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8025, show_default=True)
@click.option("--lmtp", is_flag=True, help="Speak LMTP (as Postfix's lmtp transport wants).")
def inbound_command(host: str, port: int, lmtp: bool) -> None:
    """Receive replies over SMTP or LMTP and play the moves they carry; and bounces."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger(AIOSMTPD_LOG).setLevel(logging.WARNING)
    env = ready_env()
    controller = ReceiverController(env, host, port, lmtp=lmtp)
    controller.start()
    click.echo(
        f"pbem inbound: {'LMTP' if lmtp else 'SMTP'} on {host}:{port} for "
        f"{env.config.reply_to('*')} and {env.config.bounce_to('*')}; Ctrl+C stops it"
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        controller.stop()
