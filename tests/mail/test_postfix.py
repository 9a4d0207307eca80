"""docs/deploy.md's Postfix configuration, run: Debian's Postfix on loopback in front of
``pbem inbound --lmtp`` (issue 37).

An invitation goes out through Postfix to the players' stand-in mail server (aiosmtpd);
the player's reply comes in through Postfix's SMTP port and is played; a forged reply
address gets 550 at RCPT, from Postfix, to the sending server; mail the stand-in server
refuses bounces, Postfix delivers the bounce to that mail's ``bounce+…`` return path,
and the receiver marks the mail bounced and tells the opponent. The configuration is
``deploy/postfix/``'s files, which the doc quotes word for word (checked here too, without Postfix).
"""

from __future__ import annotations

import os
import re
import smtplib
import time
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from pbem.mail.delivery import SmtpBackend
from pbem.services.core import access
from pbem.services.mailing import bounces
from pbem.services.play import game_pages, new_games
from pbem.services.scheduled import jobs
from pbem.store.models import OutboxMessage
from tests.mail import postfix as pf
from tests.mail.conftest import free_port
from tests.reliability.test_logs import start, stop, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_DOC = ROOT / "docs" / "deploy.md"
#: The players' mail server refuses this address (as a remote server refuses a mailbox
#: that does not exist): the mail is bounced by Postfix to the envelope sender.
GHOST = "ghost@remote.test"
REPLY_DOMAIN = "reply.example.org"


def documented_blocks() -> list[str]:
    """The fenced blocks of docs/deploy.md, as written."""
    return re.findall(r"```[a-z]*\n(.*?)```", DEPLOY_DOC.read_text(), re.S)


@pytest.mark.parametrize("name", ["main.cf", *pf.TABLES])
def test_the_doc_shows_each_postfix_file_word_for_word(name):
    """What the doc tells an operator to write is what the Postfix test runs."""
    text = (pf.SNIPPETS / name).read_text()
    blocks = [dedent_block(b) for b in documented_blocks()]
    assert text in blocks, f"docs/deploy.md does not quote deploy/postfix/{name}"
    assert f"deploy/postfix/{name}" in DEPLOY_DOC.read_text()


def dedent_block(block: str) -> str:
    """A fenced block inside a list item is indented; the file's text is not."""
    lines = block.splitlines(keepends=True)
    indent = min((len(x) - len(x.lstrip(" ")) for x in lines if x.strip()), default=0)
    return "".join(x[indent:] for x in lines)


def test_the_compose_file_hands_replies_to_the_receiver_where_the_doc_says():
    """docs/deploy.md, "With Docker Compose": the host's Postfix delivers the reply domain
    to the receiver's published LMTP port, the one deploy/postfix/pbem_transport names."""
    compose = (ROOT / "deploy" / "docker-compose.yml").read_text()
    entry = (ROOT / "deploy" / "entrypoint.sh").read_text()
    transport = (pf.SNIPPETS / "pbem_transport").read_text()
    assert f"lmtp:inet:{pf.DOCUMENTED_RECEIVER}" in transport
    assert f'"{pf.DOCUMENTED_RECEIVER}:8025"' in compose  # published on the host's loopback
    assert "inbound) exec pbem inbound --lmtp --host 0.0.0.0 --port 8025" in entry


class StandIn:
    """The players' mail server: takes every mail but refuses ``GHOST`` at RCPT."""

    def __init__(self) -> None:
        self.received: list[tuple[list[str], EmailMessage]] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:
        if address.lower() == GHOST:
            return "550 5.1.1 <ghost@remote.test>: no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        msg = BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        self.received.append((list(envelope.rcpt_tos), msg))  # type: ignore[arg-type]
        return "250 OK"

    def wait_for(self, to: str, deadline: float = 60) -> EmailMessage:
        end = time.monotonic() + deadline
        while True:
            for rcpts, msg in self.received:
                if to in rcpts:
                    return msg
            if time.monotonic() > end:
                raise AssertionError(f"no mail to {to}: {[r for r, _ in self.received]}")
            time.sleep(0.1)


@pytest.fixture
def postfix_ports():
    reason = pf.missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the Postfix test: {reason}")
        pytest.skip(reason)
    return free_port(), free_port(), free_port()


def _status(env, row_id: int) -> str:
    with env.db.read() as session:
        return session.get(OutboxMessage, row_id).status


@pytest.mark.slow
def test_replies_and_bounces_through_the_documented_postfix(env, postfix_ports, tmp_path):
    smtp_port, relay_port, receiver_port = postfix_ports
    stand_in = StandIn()
    relay = Controller(stand_in, hostname="127.0.0.1", port=relay_port)
    relay.start()
    log = tmp_path / "inbound.log"
    environ = {
        **os.environ,
        "PBEM_DATABASE_URL": env.config.database_url,
        "PBEM_ENV": "testing",
        "PBEM_SECRET_KEY": env.config.secret_key,
        "PBEM_BASE_URL": env.config.base_url,
        "PBEM_INSTANCE_PATH": str(tmp_path),
        "PBEM_REPLY_ADDRESS": f"play@{REPLY_DOMAIN}",
    }
    receiver = start(["inbound", "--lmtp", "--port", str(receiver_port)], environ, log, tmp_path)
    postfix = pf.Postfix(smtp_port, relay_port, receiver_port)
    try:
        wait_for_port(receiver_port, receiver, log)
        postfix.start()
        env.config = env.config.with_(
            mail_backend="smtp",
            smtp_host="127.0.0.1",
            smtp_port=smtp_port,
            mail_from="Jaipur by mail <jaipur@example.org>",
            reply_address=f"play@{REPLY_DOMAIN}",
            bounce_address=f"bounce@{REPLY_DOMAIN}",  # the default the receiver derives
        )
        created = new_games.create_game(
            env,
            (
                new_games.PlayerIn("Ann", "ann@remote.test"),
                new_games.PlayerIn("Bo", "bo@remote.test"),
            ),
        )
        seat = game_pages.public_page(env, created.public_id).view.table.to_move
        mover = ("ann@remote.test", "bo@remote.test")[seat]

        # the invitations go out through Postfix to the players' server
        assert jobs.deliver_mail(env, SmtpBackend(env.config)) >= 2
        invitation = stand_in.wait_for(mover)
        reply_to = str(invitation["Reply-To"])
        assert reply_to.startswith("play+") and reply_to.endswith(f"@{REPLY_DOMAIN}")

        # the player's reply comes in through Postfix's SMTP port and is played
        legal = game_pages.legal_moves(env, created.tokens[seat])
        reply = EmailMessage()
        reply["From"], reply["To"], reply["Subject"] = mover, reply_to, "Re: Jaipur"
        reply["In-Reply-To"] = str(invitation["Message-ID"])
        reply.set_content(f"{legal[0]}\n\nOn Monday, Jaipur by mail wrote:\n> Your move")
        forged = reply_to.replace("play+", "play+x", 1)
        with smtplib.SMTP("127.0.0.1", smtp_port) as smtp:
            smtp.ehlo("mx.remote.test")
            smtp.mail(mover)
            # Postfix asks the receiver about the reply domain only, and says 550 for a
            # forged address to the sending server: nothing is queued, nobody is bounced to
            code, text = smtp.rcpt(forged)
            assert code == 550, text
            code, text = smtp.rcpt(f"someone@{REPLY_DOMAIN}")  # not play+ or bounce+
            assert code == 550, text
            assert smtp.rcpt(reply_to)[0] == 250
            assert smtp.data(reply.as_bytes())[0] == 250
        end = time.monotonic() + 60
        while len(game_pages.public_page(env, created.public_id).entries) < 1:
            assert time.monotonic() < end, postfix.log()[-4000:] + log.read_text()[-2000:]
            time.sleep(0.2)
        assert str(game_pages.public_page(env, created.public_id).entries[0].move) == legal[0]

        # outgoing mail is never probed: only the reply domain's recipients were verified
        maillog = postfix.log()
        probed = re.findall(r"to=<([^>]+)>.*status=deliverable", maillog)
        assert probed and all(a.endswith(f"@{REPLY_DOMAIN}") for a in probed), probed

        # a mail the players' server refuses bounces: the bounce goes to the mail's own
        # return path (bounce+<signed row id>@reply domain), Postfix hands it to the
        # receiver, the mail is marked bounced and the opponent told
        ghost_game = new_games.create_game(
            env,
            (
                new_games.PlayerIn("Cy", "cy@remote.test"),
                new_games.PlayerIn("Ghost", GHOST),
            ),
            first_player=0,
        )
        assert jobs.deliver_mail(env, SmtpBackend(env.config)) >= 2
        with env.db.read() as session:
            lost_id = session.scalars(
                select(OutboxMessage.id).where(OutboxMessage.to_addr == GHOST)
            ).one()
        bounce_address = bounces.return_path(env)(lost_id)
        assert bounce_address.startswith("bounce+") and bounce_address.endswith(REPLY_DOMAIN)
        end = time.monotonic() + 60
        while _status(env, lost_id) != "bounced":
            assert time.monotonic() < end, postfix.log()[-4000:] + log.read_text()[-2000:]
            time.sleep(0.2)
        with env.db.read() as session:
            told = session.scalars(
                select(OutboxMessage).where(OutboxMessage.kind == "bounced")
            ).one()
            assert told.to_addr == "cy@remote.test" and told.game_id is not None
        page = game_pages.seat_page(env, ghost_game.tokens[0], access.Client())
        assert page.bouncing == (False, True)
        # (an unknown user of the host's own domains is refused to pbem at RCPT instead,
        # a permanent 5xx at the first hop, with no bounce)
        with smtplib.SMTP("127.0.0.1", smtp_port) as smtp:
            smtp.ehlo("pbem.example.org")
            smtp.mail(bounce_address)
            code, text = smtp.rcpt("nobody-here@localhost")
            assert code == 550 and b"User unknown" in text, text
        postfix.wait_for_log(f"to=<{GHOST}>, relay=127.0.0.1[127.0.0.1]:{relay_port}")
        # the delivery status notification, from MAILER-DAEMON, to the receiver's port
        maillog = postfix.wait_for_log(
            f"to=<{bounce_address}>, relay=127.0.0.1[127.0.0.1]:{receiver_port}"
        )
        assert re.search(r"from=<>, size=\d+, nrcpt=1", maillog), maillog[-3000:]
        assert "bounce bounced: outbox rows" in log.read_text(), log.read_text()

        # the local sendmail command skips smtpd's checks; only root and postfix may give it
        # another envelope sender, so a reply it hands over is bounced to its own user
        assert postfix.senders_allowed("root") == "*"
        assert postfix.senders_allowed("nobody") == "nobody nobody@example.org"
        postfix.sendmail("root@example.org", forged, b"Subject: x\n\ncamels\n")
        postfix.wait_for_log(f"to=<{forged}>, relay=127.0.0.1[127.0.0.1]:{receiver_port}")
        stand_in.wait_for("root@example.org")  # the bounce, to the one who sent it
        assert len(game_pages.public_page(env, created.public_id).entries) == 1
    finally:
        try:
            postfix.stop()
        finally:
            stop(receiver)
            relay.stop()


def test_ci_installs_postfix_unconfigured():
    """The Postfix test runs in CI: .ci/run installs the package when it is missing,
    answering its question with "No configuration", so no system Postfix is set up."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "[ -x /usr/sbin/postfix ] || missing+=(postfix)" in ci
    assert "postfix postfix/main_mailer_type select No configuration" in ci
