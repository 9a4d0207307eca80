"""Reply addresses that expire, refusals that are capped and quote no link (issue 31).

An address stays good while its move is the game's next one; once the game has moved past
it, or ended, it is answered (with a refusal that says so) for ``reply_grace_hours`` more,
and then refused at RCPT like a forged one, and never answered from an IMAP mailbox.
"""

from __future__ import annotations

import smtplib

import pytest
from sqlalchemy import func, select

from pbem.receiver import ReceiverController
from pbem.services.core.access import Client
from pbem.services.play import game_pages, link_recovery, moves, replies
from pbem.store.models import Game, InboundMail, OutboxMessage
from tests.mail.conftest import free_port
from tests.mail.play import new_game, token
from tests.mail.test_replies import reply, reply_to_of, send


@pytest.fixture
def receiver(smtp_env):
    port = free_port()
    controller = ReceiverController(smtp_env, "127.0.0.1", port)
    controller.start()
    yield port
    controller.stop()


def refusal_count(env) -> int:
    with env.db.read() as session:
        query = select(func.count(OutboxMessage.id)).where(OutboxMessage.kind == "refusal")
        return session.scalar(query)


def rcpt(port: int, address: str) -> int:
    """The receiver's answer to ``RCPT TO`` for one address (the mail is not sent)."""
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        smtp.ehlo()
        smtp.mail("mallory@evil.test")
        code, _ = smtp.rcpt(address)
        smtp.rset()
    return code


def move_once(env, public_id: str, seat: int = 0) -> None:
    t = token(env, public_id, seat)
    page = game_pages.seat_page(env, t, Client())
    moves.submit_move(env, t, page.next_n, game_pages.legal_moves(env, t)[0], Client())


def test_the_address_of_an_old_move_expires_after_the_grace_period(smtp_env, receiver):
    env = smtp_env
    grace = env.config.reply_grace_hours
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    env.clock.advance(days=20)  # the move it answers is still the next one: no age limit
    assert rcpt(receiver, address) == 250
    move_once(env, public_id)  # the game moves past it
    env.clock.advance(hours=grace - 1)
    assert rcpt(receiver, address) == 250  # a late reply is still told the game moved on
    answered = refusal_count(env)
    assert replies.handle_mail(env, reply(address, "camels").as_bytes(), [address]).outcome == (
        "refused"
    )
    assert refusal_count(env) == answered + 1
    env.clock.advance(hours=2)
    assert rcpt(receiver, address) == 550
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        send(receiver, reply(address, "camels"))
    # an IMAP mailbox has no RCPT step: the use case answers nothing either
    outcome = replies.handle_mail(env, reply(address, "camels").as_bytes(), [address])
    assert outcome.outcome == "ignored" and "expired" in outcome.detail
    assert refusal_count(env) == answered + 1
    # the address of the move now due is good
    assert rcpt(receiver, reply_to_of(env, public_id, 1)) == 250


def test_the_address_of_a_finished_game_expires_after_the_grace_period(smtp_env, receiver):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    t = token(env, public_id, 0)
    moves.resign(env, t, game_pages.seat_page(env, t, Client()).next_n, Client())
    assert rcpt(receiver, address) == 250  # answered: "the game is over"
    env.clock.advance(hours=env.config.reply_grace_hours + 1)
    assert rcpt(receiver, address) == 550


def test_a_replaced_links_address_is_refused_at_once(smtp_env, receiver):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    link_recovery.reissue_link(env, token(env, public_id, 0), Client())
    assert rcpt(receiver, address) == 550
    with env.db.read() as session:
        version = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        version = version.seats[0].key_version
    renewed = env.config.reply_to(env.links.reply_token(public_id, 0, 1, version))
    assert rcpt(receiver, renewed) == 250  # the address the next mail carries


def test_refusals_to_a_seat_are_capped_and_never_quote_a_link(smtp_env, receiver):
    """15 mails from a stranger to a good address: a few refusals, none with their link."""
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    before = refusal_count(env)
    lures = [
        "Claim your prize: https://evil.example/win?seat=1",
        "take http://evil.example/x diamond",
        "visit www.evil.example now",
        "write to prize@evil.example",
        "go to evil.example/prize",
    ]
    for i in range(15):
        send(receiver, reply(address, lures[i % len(lures)], sender="mallory@evil.test"))
    cap = 5  # PBEM_LIMIT_REFUSALS_PER_SEAT's default, "5 per hour; 20 per day" (docs/deploy.md)
    with env.db.read() as session:
        sent = list(
            session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.kind == "refusal")
                .order_by(OutboxMessage.id)
                .offset(before)
            )
        )
        detail = list(
            session.scalars(
                select(InboundMail.detail)
                .join(Game, Game.id == InboundMail.game_id)
                .where(Game.public_id == public_id, InboundMail.outcome == "refused")
            )
        )
    assert len(sent) == cap
    for row in sent:
        words = row.text_body + (row.html_body or "")
        assert "evil.example" not in words, words
        assert "https://evil" not in words and "www.evil" not in words
    assert sum("not answered" in d for d in detail) >= 15 - cap
    env.clock.advance(hours=1, minutes=1)  # a new hour: the owner's own mistake is answered
    send(receiver, reply(address, "fly to the moon"))
    assert refusal_count(env) == before + cap + 1
