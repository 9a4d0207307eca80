"""A whole match played by email replies, as players on everyday mail clients write them.

Every turn the server's real "your turn" mail goes out over SMTP (aiosmtpd), and the
player answers it through the real LMTP receiver, in the seat's own language, in the
shape of one mail client after another: quoting with and without ``>``, Outlook's header
block, a Chinese or German attribution, HTML only, a greeting before the move, a legacy
charset, a note that pastes the player's own seat link. Checked at every move: the move
recorded is the one written, no clear move is refused, and no seat link ever reaches the
other seat's mail or the public page.
"""

from __future__ import annotations

import html
import random
import re
from email.message import EmailMessage

import pytest
from sqlalchemy import func, select

from pbem.i18n.notation import written
from pbem.mail.delivery import SmtpBackend
from pbem.receiver import ReceiverController
from pbem.services.play import game_pages, new_games
from pbem.services.records import game_records
from pbem.services.scheduled import jobs
from pbem.store.models import Game, MoveRow, OutboxMessage
from tests.helpers import past_the_hold, reply_headers
from tests.mail.conftest import free_port
from tests.mail.lmtp import lmtp_exchange

pytestmark = pytest.mark.slow

SEAT_LINK = re.compile(r"/s/[A-Za-z0-9_\-\.]+")


def _quoted(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def _plain(original: EmailMessage) -> str:
    return original.get_body(("plain",)).get_content()


def _html(original: EmailMessage) -> str:
    return original.get_body(("html",)).get_content()


def _stamp(original: EmailMessage) -> str:
    return str(original["Date"])


# Each style: (client, charset, is_html, body(move, original, link) -> text); NOTES says
# which note the server must keep from it (None: no note).
STYLES = [
    (
        "Gmail, quoted with >",
        "utf-8",
        False,
        lambda move, o, _l: (
            f"{move}\n\nGood game so far!\n\nOn {_stamp(o)}, Jaipur "
            f"<jaipur@pbem.test> wrote:\n{_quoted(_plain(o))}\n"
        ),
    ),
    (
        "Outlook desktop, German, no >",
        "iso-8859-1",
        False,
        lambda move, o, _l: (
            f"{move}\r\n\r\n-----Ursprüngliche Nachricht-----\r\n"
            f"Von: Jaipur <jaipur@pbem.test>\r\nGesendet: {_stamp(o)}\r\nAn: player\r\n"
            f"Betreff: {o['Subject']}\r\n\r\n{_plain(o)}"
        ),
    ),
    (
        "Outlook web, header block, no separator",
        "utf-8",
        False,
        lambda move, o, _l: (
            f"{move}\n\n________________________________\nFrom: Jaipur "
            f"<jaipur@pbem.test>\nSent: {_stamp(o)}\nTo: player\nSubject: {o['Subject']}\n\n"
            f"{_plain(o)}"
        ),
    ),
    (
        "QQ Mail, Chinese, gb18030",
        "gb18030",
        False,
        lambda move, o, _l: (
            f"{move}\n\n\n------------------ 原始邮件 ------------------\n"
            f'发件人: "Jaipur"<jaipur@pbem.test>;\n发送时间: {_stamp(o)}\n收件人: player;\n'
            f"主题: {o['Subject']}\n\n{_plain(o)}"
        ),
    ),
    (
        "Gmail, HTML only, greeting first",
        "utf-8",
        True,
        lambda move, o, _l: (
            f'<div dir="auto">Hi,</div><div dir="auto">{html.escape(move)}'
            f'</div><div dir="auto"><br></div><div class="gmail_quote"><div dir="ltr" '
            f'class="gmail_attr">On {_stamp(o)} Jaipur &lt;jaipur@pbem.test&gt;\nwrote:<br></div>'
            f'<blockquote class="gmail_quote">{_html(o)}</blockquote></div>'
        ),
    ),
    (
        "Zoho, dashed attribution, greeting line",
        "utf-8",
        False,
        lambda move, o, _l: (
            f"Hello,\n{move}\n\nthanks\n\n---- On {_stamp(o)} Jaipur "
            f"<jaipur@pbem.test> wrote ----\n\n{_plain(o)}"
        ),
    ),
    (
        "Apple Mail on iPhone, bidi marks and a byte-order mark",
        "utf-8",
        False,
        lambda move, o, _l: (
            f"\ufeff\u200f{move}\u200f.\n\nSent from my iPhone\n\n> On "
            f"{_stamp(o)}, Jaipur <jaipur@pbem.test> wrote:\n>\n{_quoted(_plain(o))}\n"
        ),
    ),
    (
        "Thunderbird, the player pastes their own seat link into the note",
        "utf-8",
        False,
        lambda move, o, link: (
            f"{move}\n\nmy page is {link} if you want to look\n\n"
            f"{_stamp(o)}, Jaipur:\n{_quoted(_plain(o))}\n"
        ),
    ),
    (
        "Yandex, Russian interface, koi8-r where it fits",
        "koi8-r",
        False,
        lambda move, o, _l: f"{move}\n\n{_stamp(o)}, Jaipur <jaipur@pbem.test>:\n{_plain(o)}",
    ),
    (
        "Windows Mail, 'wrote:' alone on its line",
        "utf-8",
        False,
        lambda move, o, _l: f"{move}\n\nJaipur <jaipur@pbem.test>\nwrote:\n\n{_plain(o)}",
    ),
]


NOTES = {
    "Gmail, quoted with >": "Good game so far!",
    "Zoho, dashed attribution, greeting line": "thanks",
}  # the Thunderbird note has a link to this server: a mail cannot tell it from the quote,
# so the note ends before it (and a web note loses just the link: test_reply_corpus)


def _note_of(env, public_id: str, n: int) -> str | None:
    with env.db.read() as session:
        return session.scalar(
            select(MoveRow.message)
            .join(Game, Game.id == MoveRow.game_id)
            .where(Game.public_id == public_id, MoveRow.n == n)
        )


def _reply(style: int, move: str, original: EmailMessage, link: str, sender: str) -> bytes:
    client, charset, is_html, body = STYLES[style % len(STYLES)]
    content = body(move, original, link)
    msg = reply_headers(original, sender)
    msg["X-Mailer"] = client
    try:
        content.encode(charset)
    except UnicodeEncodeError:
        charset = "utf-8"
    msg.set_content(content, subtype="html" if is_html else "plain", charset=charset)
    return msg.as_bytes()


def _pick(rnd: random.Random, legal: list[str]) -> str:
    """A player in a hurry: sells when it can half the time, else anything legal."""
    sells = [m for m in legal if m.startswith("sell")]
    return rnd.choice(sells) if sells and rnd.random() < 0.6 else rnd.choice(legal)


@pytest.mark.parametrize(
    ("players", "seed"),
    [
        ((("Ελένη", "el", "Europe/Athens"), ("王小明", "zh", "Asia/Shanghai")), 7),
        ((("مریم\u200cسادات", "fa", "Asia/Tehran"), ("Олена", "uk", "Europe/Kyiv")), 11),
    ],
    ids=["el-zh", "fa-uk"],
)
def test_a_whole_match_by_replies_in_mixed_clients(smtp_env, smtp_server, client, players, seed):
    env = smtp_env
    rnd = random.Random(seed)
    emails = ("one@example.test", "two@example.test")
    created = new_games.create_game(
        env,
        tuple(
            new_games.PlayerIn(name, email, language, zone)
            for (name, language, zone), email in zip(players, emails, strict=True)
        ),
        first_player=0,
    )
    public_id, tokens = created.public_id, created.tokens
    port = free_port()
    receiver = ReceiverController(env, "127.0.0.1", port, lmtp=True)
    receiver.start()
    seen_by = {0: 0, 1: 0}  # how many received mails of each seat were checked
    try:
        for turn in range(400):
            past_the_hold(env)
            while jobs.deliver_mail(env, SmtpBackend(env.config), limit=1000):
                pass
            _check_no_seat_link_crosses(smtp_server, emails, tokens, seen_by)
            page = game_pages.public_page(env, public_id)
            seat = page.view.table.to_move if page.view is not None else None
            if seat is None:
                break
            asks = [
                m
                for m in smtp_server.received
                if m["To"].addresses[0].addr_spec == emails[seat] and m["Reply-To"]
            ]
            original = asks[-1]
            legal = game_pages.legal_moves(env, tokens[seat])
            canonical = _pick(rnd, legal)
            language = players[seat][1]
            move_text = written(canonical, language)
            before = len(game_records.operator_record(env, public_id)["moves"])
            raw = _reply(turn, move_text, original, env.seat_url(tokens[seat]), emails[seat])
            answers = lmtp_exchange(port, [str(original["Reply-To"])], raw, emails[seat])
            assert answers[0].startswith("250") and answers[-1].startswith("250"), answers
            logged = game_records.operator_record(env, public_id)["moves"]
            style = STYLES[turn % len(STYLES)][0]
            assert len(logged) == before + 1, (style, move_text, _why_refused(env))
            assert logged[-1]["move"] == canonical, (style, move_text)
            note = _note_of(env, public_id, len(logged))
            assert note == NOTES.get(style), (style, note)
            public = client.get(f"/g/{public_id}").text
            assert not any(t in public for t in tokens), style
        else:
            pytest.fail("the match did not end in 400 moves")
    finally:
        receiver.stop()
    assert _refusals(env, public_id) == 0  # no clear move was refused
    assert game_pages.public_page(env, public_id).view.table.to_move is None
    over = [m for m in smtp_server.received if public_id in str(m["References"] or "")]
    assert {m["To"].addresses[0].addr_spec for m in over} == set(emails)


def _refusals(env, public_id: str) -> int:
    """Refusals mailed about this game (the test database is shared by all tests)."""
    with env.db.read() as session:
        return session.scalar(
            select(func.count(OutboxMessage.id))
            .join(Game, Game.id == OutboxMessage.game_id)
            .where(OutboxMessage.kind == "refusal", Game.public_id == public_id)
        )


def _why_refused(env) -> str:
    """The words of the last refusal, for an assertion's message."""
    with env.db.read() as session:
        row = session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.kind == "refusal")
            .order_by(OutboxMessage.id.desc())
        ).first()
        return row.text_body[:600] if row is not None else "no refusal"


def _check_no_seat_link_crosses(smtp_server, emails, tokens, seen_by) -> None:
    """Every mail a seat received holds no link (nor token) of the other seat."""
    for seat in (0, 1):
        mine = [m for m in smtp_server.received if m["To"].addresses[0].addr_spec == emails[seat]]
        for message in mine[seen_by[seat] :]:
            whole = message.as_string()
            for part in message.walk():
                if part.get_content_maintype() == "text":
                    whole += part.get_content()
            assert tokens[1 - seat] not in whole, (seat, str(message["Subject"]))
        seen_by[seat] = len(mine)
