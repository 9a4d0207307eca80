"""Automatic mail to a reply address (an out-of-office reply, a list's mail, a null
sender) is taken with 250, logged in one line, and dropped: never read as a move, never
answered (RFC 3834). The shapes are those real responders write, each carrying a legal
move in its text that a person's reply would have played."""

from __future__ import annotations

import logging
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from pbem.engine import load_record, replay
from pbem.mail.automatic import why_automatic
from pbem.receiver import ReceiverController
from pbem.services.play import replies
from pbem.services.records import game_records
from tests.helpers import mails
from tests.mail.conftest import free_port
from tests.mail.lmtp import lmtp_exchange
from tests.mail.play import new_game
from tests.mail.test_replies import reply_to_of


@pytest.fixture
def lmtp_receiver(smtp_env):
    port = free_port()
    controller = ReceiverController(smtp_env, "127.0.0.1", port, lmtp=True)
    controller.start()
    yield port
    controller.stop()


def _mail(to: str, body: str, subject: str = "Re: Jaipur", **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "ada@example.test"
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain="example.test")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg


#: (what it is, subject, headers, envelope sender)
SHAPES = [
    ("Gmail's vacation responder", "Re: Jaipur", {"Auto_Submitted": "auto-replied"}, ""),
    (
        "Exchange's out-of-office reply",
        "Automatic reply: Jaipur vs Bo — your turn (move 1)",
        {"Auto_Submitted": "auto-generated", "X_Auto_Response_Suppress": "All"},
        "ada@example.test",
    ),
    (
        "Debian's vacation(1)",
        "away from my mail",
        {"Precedence": "junk", "X_Autoreply": "yes"},
        "ada@example.test",
    ),
    ("Precedence: bulk alone", "Re: Jaipur", {"Precedence": "bulk"}, "ada@example.test"),
    ("a mailing list", "[games] Re: Jaipur", {"Precedence": "list"}, "ada@example.test"),
    ("Precedence: auto_reply", "Re: Jaipur", {"Precedence": "auto_reply"}, "ada@example.test"),
    ("procmail's autoresponder", "Re: Jaipur", {"X_Autorespond": "yes"}, "ada@example.test"),
    (
        "Auto-Submitted with a parameter",
        "Re: Jaipur",
        {"Auto_Submitted": 'auto-replied; owner-email="ada@example.test"'},
        "ada@example.test",
    ),
    ("a null sender alone", "Re: Jaipur", {}, ""),
    ("Out of Office (en)", "Out of Office: Jaipur vs Bo", {}, "ada@example.test"),
    ("Auto-Reply (en)", "Auto-Reply: Re: Jaipur", {}, "ada@example.test"),
    ("Greek Outlook", "Αυτόματη απάντηση: Jaipur vs Bo", {}, "ada@example.test"),
    ("Greek: out of the office", "Εκτός γραφείου έως Δευτέρα", {}, "ada@example.test"),
    ("Persian Outlook", "پاسخ خودکار: Jaipur vs Bo", {}, "ada@example.test"),
    ("Ukrainian Outlook", "Автоматична відповідь: Jaipur vs Bo", {}, "ada@example.test"),
    ("Ukrainian: out of office", "Поза офісом до понеділка", {}, "ada@example.test"),
    ("Chinese (Simplified) Outlook", "自动答复: Jaipur vs Bo", {}, "ada@example.test"),
    ("Chinese auto reply", "自动回复：Jaipur vs Bo", {}, "ada@example.test"),
]


@pytest.mark.parametrize(
    ("what", "subject", "headers", "sender"), SHAPES, ids=[s[0] for s in SHAPES]
)
def test_an_automatic_reply_is_taken_logged_once_and_never_answered(
    smtp_env, lmtp_receiver, caplog, what, subject, headers, sender
):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    record = game_records.operator_record(env, public_id)
    legal = str(replay(load_record(record)).legal_moves()[0])
    before = len(mails(env, public_id))
    msg = _mail(address, f"I am away until Monday.\n\n{legal}\n", subject, **headers)
    with caplog.at_level(logging.INFO, logger="pbem.inbound"):
        answers = lmtp_exchange(lmtp_receiver, [address], msg.as_bytes(), sender=sender)
    assert [a[:3] for a in answers] == ["250", "250"], answers  # RCPT, then the delivery
    assert game_records.operator_record(env, public_id)["moves"] == []
    assert len(mails(env, public_id)) == before  # no refusal, no receipt: nothing
    lines = [r.getMessage() for r in caplog.records if r.name == "pbem.inbound"]
    dropped = [line for line in lines if line.startswith("reply dropped")]
    assert len(dropped) == 1 and address.split("@")[0] not in dropped[0], lines


def test_a_person_s_reply_with_auto_submitted_no_is_played(smtp_env, lmtp_receiver):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    legal = str(replay(load_record(game_records.operator_record(env, public_id))).legal_moves()[0])
    msg = _mail(address, legal, "Re: Out of the way", Auto_Submitted="no")
    answers = lmtp_exchange(lmtp_receiver, [address], msg.as_bytes())
    assert answers[-1].startswith("250")
    assert len(game_records.operator_record(env, public_id)["moves"]) == 1


def test_any_auto_submitted_value_but_no_is_automatic():
    assert why_automatic(b"Auto-Submitted: =?x?q?\r\n\r\nx\r\n", "a@b") is not None
    assert why_automatic(b"Auto-Submitted: No\r\n\r\nx\r\n", "a@b") is None


def test_over_imap_a_return_path_of_the_null_sender_is_an_automatic_mail(smtp_env):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = reply_to_of(env, public_id, 0)
    msg = _mail(address, "take gold", Return_Path="<>")
    outcome = replies.handle_mail(env, msg.as_bytes(), [address])  # no envelope: IMAP
    assert outcome.outcome == "dropped"
    assert game_records.operator_record(env, public_id)["moves"] == []


@pytest.mark.parametrize(
    "raw",
    [
        b"Subject: Re: Jaipur\r\nFrom: a@b\r\n\r\ntake gold\r\n",
        b"Subject: Re: auto-tune your herd\r\nFrom: a@b\r\n\r\ntake gold\r\n",
        b"Subject: =?utf-8?q?Re:_=CE=A4=CE=B6=CE=B1=CF=8A=CF=80=CE=BF=CF=8D=CF=81?=\r\n\r\nx\r\n",
        b"Auto-Submitted: no\r\nPrecedence: first-class\r\n\r\nx\r\n",
        b"Subject: =?bogus?q?=ZZ?=\r\nX-Autoreplies-Seen: 0\r\n\r\nx\r\n",
        b"\x00\xff\r\n\r\n",
    ],
)
def test_a_person_s_mail_and_unreadable_headers_are_not_taken_for_automatic(raw):
    assert why_automatic(raw, "ada@example.test") is None


def test_over_smtp_a_bounce_of_the_null_sender_is_taken_and_dropped(smtp_env, caplog):
    """The SMTP receiver (not LMTP) reads the null sender from its own MAIL FROM too."""
    env = smtp_env
    port = free_port()
    controller = ReceiverController(env, "127.0.0.1", port)
    controller.start()
    try:
        public_id = new_game(env, first=0)
        address = reply_to_of(env, public_id, 0)
        before = len(mails(env, public_id))
        msg = _mail(address, "take gold\n", "Delivery Status Notification")
        with (
            caplog.at_level(logging.INFO, logger="pbem.inbound"),
            smtplib.SMTP("127.0.0.1", port) as smtp,
        ):
            assert smtp.sendmail("", [address], msg.as_bytes()) == {}  # 250
        assert game_records.operator_record(env, public_id)["moves"] == []
        assert len(mails(env, public_id)) == before
        lines = [r.getMessage() for r in caplog.records if r.name == "pbem.inbound"]
        assert [line for line in lines if "dropped" in line] == [
            "reply dropped: an automatic mail (null sender): not answered"
        ]
    finally:
        controller.stop()
