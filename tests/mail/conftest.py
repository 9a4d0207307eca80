"""A real SMTP server (aiosmtpd) on a free loopback port that collects what it receives,
and can be stopped and started again to play an outage; a database for each module.

The delivery and clock jobs look at every pending mail and every running game of their
database: on the run's shared one they would send or time out what every earlier test left
behind, so each module of these tests has a database of its own."""

from __future__ import annotations

import socket
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from aiosmtpd.controller import Controller

from tests.support import own_database

# A database of these modules' own (the mail jobs look at every game and mail there).
database_url, database = own_database("module")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Collector:
    def __init__(self) -> None:
        self.received: list[EmailMessage] = []
        self.peers: list[tuple[str, int]] = []  # the client's address of each mail's connection
        self.envelopes: list[list[str]] = []  # the RCPT TO addresses each mail was sent to

    async def handle_DATA(self, server, session, envelope) -> str:
        msg = BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        self.received.append(msg)  # type: ignore[arg-type]
        self.peers.append(session.peer)
        self.envelopes.append(list(envelope.rcpt_tos))
        return "250 OK"


class SmtpServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.collector = Collector()
        self.controller: Controller | None = None

    def start(self) -> None:
        self.controller = Controller(self.collector, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def received(self) -> list[EmailMessage]:
        return self.collector.received

    @property
    def connections(self) -> int:
        """How many connections the mails received so far came over."""
        return len(set(self.collector.peers))


@pytest.fixture
def smtp_server():
    server = SmtpServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def smtp_env(env, smtp_server):
    """The env, sending over SMTP to the test server."""
    env.config = env.config.with_(
        mail_backend="smtp",
        smtp_host="127.0.0.1",
        smtp_port=smtp_server.port,
        mail_from="Jaipur <jaipur@pbem.test>",
        reply_address="play@pbem.test",
    )
    return env
