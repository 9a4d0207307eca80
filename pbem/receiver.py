"""The inbound mail entry point, ``pbem inbound``: an SMTP or LMTP receiver (aiosmtpd) for
replies, handed mail by a mail server such as Postfix, and the optional IMAP mailbox poller.

It sits beside the web app, the CLI and the scheduler, above the services: it plays a
reply through ``services.play.replies``, so it cannot live in ``mail/``, which the services
call to compose and deliver (see docs/architecture.md, "Layers").

Only addresses of the reply form, and the bounce addresses of the mails this server
sent (``services.mailing.bounces``), are accepted at RCPT time; each accepted mail is
handled by ``services.play.replies.handle_mail`` (a bounce by ``bounces.handle_bounce``)
in a worker thread, so a slow database never stalls the SMTP conversation.
"""

from __future__ import annotations

import asyncio
import imaplib
import logging
import time
from typing import Any

import click
from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from .cli_env import ready_env
from .services.core.env import Env
from .services.mailing import bounces
from .services.play.replies import accepts_recipient, handle_mail

log = logging.getLogger("pbem.inbound")
#: Mail larger than this is refused in the SMTP conversation itself; smaller mail over
#: the configured limit gets a polite answer instead.
SMTP_SIZE_LIMIT = 10 * 1024 * 1024


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
            return "550 5.1.1 not a reply address of this server, or an expired one"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        """SMTP answers once for the mail; LMTP once per accepted recipient (RFC 2033 4.2),
        each handled as a delivery of its own."""
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        if not self.lmtp:
            return await self._handle(raw, list(envelope.rcpt_tos))
        answers = [await self._handle(raw, [rcpt]) for rcpt in envelope.rcpt_tos]
        return "\r\n".join(answers)

    async def _handle(self, raw: bytes, rcpts: list[str]) -> str:
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
            log.info("bounce %s: %s", done.outcome, done.detail)
        if not replies:
            return "250 OK"
        rcpts = replies
        try:
            outcome = await loop.run_in_executor(None, handle_mail, self.env, raw, rcpts)
        except Exception:  # the database is down: let the sending server retry later
            log.exception("could not handle a reply")
            return "451 4.3.0 temporary failure, try again later"
        log.info("reply %s: %s", outcome.outcome, outcome.detail)
        return "250 OK"


class ReceiverController(Controller):
    def __init__(self, env: Env, hostname: str, port: int, lmtp: bool = False) -> None:
        self.lmtp = lmtp
        super().__init__(
            ReplyHandler(env, lmtp), hostname=hostname, port=port, data_size_limit=SMTP_SIZE_LIMIT
        )

    def factory(self) -> SMTP:
        server_class = LMTP if self.lmtp else SMTP
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
        for number in (data[0] or b"").split()[:limit]:
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
