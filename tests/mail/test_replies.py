"""Moves by email reply, through the project's own SMTP/LMTP receiver (``pbem inbound``)."""

from __future__ import annotations

import random
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from sqlalchemy import select

from pbem.engine import load_record, replay, verify
from pbem.mail.inbound import split_reply
from pbem.receiver import ReceiverController
from pbem.services.play import game_pages, replies
from pbem.services.records import game_records
from pbem.store.models import MoveRow
from tests.helpers import mails
from tests.mail.conftest import free_port
from tests.mail.play import new_game, to_move


@pytest.fixture
def receiver(smtp_env):
    port = free_port()
    controller = ReceiverController(smtp_env, "127.0.0.1", port)
    controller.start()
    yield port
    controller.stop()


def reply(
    to: str, body: str, sender: str = "ada@example.test", message_id: str | None = None
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = "Re: Jaipur"
    msg["Message-ID"] = message_id or make_msgid(domain="example.test")
    msg.set_content(body)
    return msg


def send(port: int, msg: EmailMessage, lmtp: bool = False) -> None:
    klass = smtplib.LMTP if lmtp else smtplib.SMTP
    with klass("127.0.0.1", port) as smtp:
        smtp.send_message(msg)


def reply_to_of(env, public_id: str, seat: int) -> str:
    """The Reply-To of the seat's latest mail that has one. Its newest mails are written
    first, more each time until one has it: writing every mail of the game for each move
    made a game played by replies quadratic."""
    newest = 4
    while True:
        written = mails(env, public_id, seat=seat, newest=newest)
        latest = [m for m in written if "Reply-To" in m.headers]
        if latest or len(written) < newest:
            return latest[-1].headers["Reply-To"]
        newest *= 4


def log_of(env, public_id: str) -> list[MoveRow]:
    data = game_records.operator_record(env, public_id)
    return data["moves"]


def state(env, public_id):
    return replay(load_record(game_records.operator_record(env, public_id)))


@pytest.mark.slow
def test_a_whole_game_played_by_email_replies_alone(smtp_env, receiver):
    env = smtp_env
    public_id = new_game(env)
    rnd = random.Random(7)
    count = 0
    while (seat := to_move(env, public_id)) is not None:
        legal = [str(m) for m in state(env, public_id).legal_moves()]
        move = rnd.choice(legal)
        body = (
            f"\n{move.upper()}\nnice one\n\n-- \nSent with love\n\n"
            f"On Monday Jaipur wrote:\n> It is your turn\n> take diamond\n"
        )
        send(
            receiver,
            reply(reply_to_of(env, public_id, seat), body, sender=f"someone-{seat}@elsewhere.test"),
        )
        count += 1
        assert len(log_of(env, public_id)) == count, mails(env, public_id)[-1].text_body
        assert count < 1000
    record = game_records.operator_record(env, public_id)
    assert verify(load_record(record)).ok
    with env.db.read() as session:
        rows = session.scalars(select(MoveRow).where(MoveRow.hash == record["moves"][0]["hash"]))
        first = rows.one()
    assert first.source == "email" and first.message == "nice one"
    assert not [m for m in mails(env, public_id) if m.kind == "refusal"]


def _refusals(env, public_id):
    return [m for m in mails(env, public_id) if m.kind == "refusal"]


def test_bad_replies_record_nothing_and_get_a_clear_answer(smtp_env, receiver):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    local, domain = address.split("@")
    legal = [str(m) for m in state(env, public_id).legal_moves()]

    def attempt(to: str, body: str, expect: str, sender: str = "ada@example.test") -> None:
        before_log = len(log_of(env, public_id))
        send(receiver, reply(to, body, sender=sender))
        assert len(log_of(env, public_id)) == before_log
        answers = [m for m in _all_refusals(env) if expect in m.text_body]
        assert answers, (expect, [m.text_body for m in _all_refusals(env)][-1:])

    attempt(address, "fly to the moon", "is not a move")
    attempt(address, "sell 1 diamond", "at least 2 at a time")
    flipped = local[:-1] + ("a" if local[-1] != "a" else "b")
    other_game = new_game(env)
    other = reply_to_of(env, other_game, to_move(env, other_game))
    tampered = other.replace(other_game, public_id)
    for forged in (f"{flipped}@{domain}", tampered, f"{local}x@{domain}", f"play+x@{domain}"):
        answered = len(_all_refusals(env))
        mail = reply(forged, legal[0], sender="mallory@evil.test")
        with pytest.raises(smtplib.SMTPRecipientsRefused):  # refused in the conversation
            send(receiver, mail)
        # an IMAP mailbox has no RCPT step: the use case itself answers nothing
        assert replies.handle_mail(env, mail.as_bytes(), [forged]).outcome == "ignored"
        assert len(log_of(env, public_id)) == 0
        assert len(_all_refusals(env)) == answered  # no mail at all, to anyone
    send(receiver, reply(address, legal[0]))  # accepted: move 1
    assert len(log_of(env, public_id)) == 1
    attempt(address, legal[0], "moved on")  # the same address again: stale move number
    late = _all_refusals(env)[-1]
    assert "the game has moved on since you loaded this page" not in late.text_body
    assert "now at move 2" in late.text_body and "The position now:" in late.text_body
    assert late.to_addr == "ada@example.test"


def _all_refusals(env):
    from pbem.store.models import OutboxMessage

    with env.db.read() as session:
        return list(
            session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.kind == "refusal")
                .order_by(OutboxMessage.id)
            )
        )


def test_a_refusal_quotes_what_was_read_and_lists_legal_moves(smtp_env):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    raw = bytes(reply(address, "take the banana\n\n> quoted").as_bytes())
    outcome = replies.handle_mail(env, raw, [address])
    assert outcome.outcome == "refused"
    answer = _refusals(env, public_id)[-1]
    assert "> take the banana" in answer.text_body
    assert "'banana' is not a card" in answer.text_body
    assert "Moves you could make now" in answer.text_body
    assert (answer.to_name, answer.to_addr) == ("Ada", "ada@example.test")  # the seat's, not From


def test_the_same_mail_delivered_twice_is_applied_once(smtp_env, receiver):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    move = str(state(env, public_id).legal_moves()[0])
    msg = reply(address, move, message_id="<same-mail-1@example.test>")
    send(receiver, msg)
    send(receiver, msg)
    assert len(log_of(env, public_id)) == 1
    assert not _refusals(env, public_id)


def test_oversized_and_non_text_mail_get_a_polite_refusal(smtp_env, receiver):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    big = reply(address, "camels\n" + "x" * (300 * 1024))
    send(receiver, big)
    image_only = EmailMessage()
    image_only["From"], image_only["To"], image_only["Subject"] = "ada@example.test", address, "x"
    image_only.add_attachment(
        b"\x89PNG\r\n\x1a\n" + bytes(200), maintype="image", subtype="png", filename="move.png"
    )
    send(receiver, image_only)
    with smtplib.SMTP("127.0.0.1", receiver) as smtp:  # not even headers: still no crash
        smtp.sendmail("x@example.test", [address], b"\xff\xfe garbage \x00 with no headers")
    assert log_of(env, public_id) == []
    texts = [m.text_body for m in _refusals(env, public_id)]
    assert any("larger than" in t for t in texts)
    assert any("no text in it" in t for t in texts)


def test_lmtp_and_unknown_recipients(smtp_env):
    env = smtp_env
    port = free_port()
    controller = ReceiverController(env, "127.0.0.1", port, lmtp=True)
    controller.start()
    try:
        public_id = new_game(env, first=0)
        address = reply_to_of(env, public_id, 0)
        send(port, reply(address, str(state(env, public_id).legal_moves()[0])), lmtp=True)
        assert len(log_of(env, public_id)) == 1
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            send(port, reply("postmaster@pbem.test", "hello"), lmtp=True)
    finally:
        controller.stop()


@pytest.mark.parametrize(
    ("text", "move", "note"),
    [
        ("camels", "camels", None),
        ("\n\n  take gold \nthanks!\n", "take gold", "thanks!"),
        ("sell 2 silver\n\nsee you\n--\nAda", "sell 2 silver", "see you"),
        ("> quoted\n> more\n\ntake leather", "take leather", None),
        ("On Tue, 1 Dec 2026, Jaipur wrote:\n> your turn\n", "", None),
        ("camels\nSent from my phone", "camels", None),
        (
            "exchange spice spice for camel camel\n\n-----Original Message-----\nFrom: x",
            "exchange spice spice for camel camel",
            None,
        ),
    ],
)
def test_split_reply(text, move, note):
    assert split_reply(text) == (move, note)


def test_reply_addresses_survive_case_folding(smtp_env):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0).upper()
    move = str(state(env, public_id).legal_moves()[0])
    outcome = replies.handle_mail(env, reply(address, move).as_bytes(), [address])
    assert outcome.outcome == "accepted", outcome
    assert game_pages.public_page(env, public_id).entries[0].source == "email"
