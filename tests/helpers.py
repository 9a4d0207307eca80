"""Reading what the server sent: the outbox, the links in mails, forms in pages."""

from __future__ import annotations

import re
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from sqlalchemy import select

from pbem.services.core.env import Env
from pbem.services.mailing.writer import Writer
from pbem.store.models import Game, OutboxMessage

LINK = re.compile(r"http://pbem\.test(/s/[A-Za-z0-9_\-\.]+)")
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
NEXT_N = re.compile(r'name="n" value="(\d+)"')


def past_the_hold(env: Env) -> None:
    """Move the clock past the hold of "your turn" mails (``PBEM_TURN_MAIL_HOLD``): a
    move's mail is due only then, as it is for a player away from the page."""
    env.clock.advance(seconds=env.config.turn_mail_hold)


def mails(
    env: Env,
    public_id: str,
    seat: int | None = None,
    kind: str | None = None,
    newest: int | None = None,
) -> list[OutboxMessage]:
    """A game's mails, each with its words as it would be sent (a mail that tells of a
    move is written from the log only when it is sent; here, on a copy of the row).
    With ``newest``, only that many of the latest, still oldest first."""
    writer = Writer(env)
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        query = select(OutboxMessage).where(OutboxMessage.game_id == game.id)
        if seat is not None:
            query = query.where(OutboxMessage.seat == seat)
        if kind is not None:
            query = query.where(OutboxMessage.kind == kind)
        if newest is None:
            rows = list(session.scalars(query.order_by(OutboxMessage.id)))
        else:
            latest = query.order_by(OutboxMessage.id.desc()).limit(newest)
            rows = list(session.scalars(latest))[::-1]
        words = [writer.written(session, row) for row in rows]
        session.expunge_all()  # the words go on the copies, never into the database
    for row, w in zip(rows, words, strict=True):
        row.subject, row.text_body, row.html_body, row.headers = (
            w.subject,
            w.text,
            w.html,
            w.headers,
        )
    return rows


def link_in(message: OutboxMessage) -> str:
    """The seat link path (``/s/<token>``) of a mail."""
    found = LINK.search(message.text_body)
    assert found, message.text_body
    return found.group(1)


def csrf_of(html: str) -> str:
    found = CSRF.search(html)
    assert found, "no CSRF token on the page"
    return found.group(1)


def next_n_of(html: str) -> int:
    found = NEXT_N.search(html)
    assert found, "no move form on the page"
    return int(found.group(1))


def choose_reader(client, link: str, language: str, zone: str):
    """Set the seat page's language and time zone as its form does; the response."""
    page = client.get(link)
    return client.post(
        f"{link}/reader",
        data={"csrf_token": csrf_of(page.text), "language": language, "timezone": zone},
    )


def reply_headers(original: EmailMessage, sender: str) -> EmailMessage:
    """A new mail from ``sender`` answering ``original`` as mail clients do: to its
    Reply-To, "Re:" its subject, In-Reply-To its Message-ID, dated as it was."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = str(original["Reply-To"])
    msg["Subject"] = f"Re: {original['Subject']}"
    msg["Message-ID"] = make_msgid(domain="example.test")
    msg["In-Reply-To"] = str(original["Message-ID"])
    msg["Date"] = format_datetime(original["Date"].datetime)
    return msg
