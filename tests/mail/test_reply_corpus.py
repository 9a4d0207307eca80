"""Replies as real mail clients write them (``tests/mail/replies/*.eml``), and notes that
can never carry a seat link.

Every shape quotes the server's real "your turn" mail, seat link included; ``cases.toml``
says which move and which note the server must read from it.
"""

from __future__ import annotations

import re
import time
import tomllib
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from pbem.config import Config
from pbem.mail.inbound import parse_inbound, split_reply
from pbem.services.core.access import Client
from pbem.services.play import game_pages, moves, notes, replies
from tests.helpers import mails
from tests.mail.play import new_game, token

CORPUS = Path(__file__).parent / "replies"
CASES: dict[str, dict[str, str]] = tomllib.loads(
    (CORPUS / "cases.toml").read_text(encoding="utf-8")
)
#: The configuration the corpus's quoted mails were written with.
CONFIG = Config(
    base_url="http://pbem.test",
    reply_address="play@pbem.test",
    mail_from="Jaipur <jaipur@pbem.test>",
)
SERVER = notes.ServerText.of(CONFIG)
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_\-]{12,}\.[A-Za-z0-9_\-]{16,}")


def read(name: str) -> tuple[str, str | None]:
    """What the server reads from one corpus mail: the move line and the note it keeps."""
    mail = parse_inbound((CORPUS / f"{name}.eml").read_bytes())
    assert mail.problem is None, mail.problem
    language = CASES[name]["language"]
    move, note = split_reply(
        mail.text or "",
        is_move=lambda line: moves.reads_as_move(line, language),
        is_ours=SERVER.is_ours,
    )
    return move, notes.note_for_opponent(CONFIG, note)


def assert_nothing_of_the_server(note: str | None) -> None:
    if note is None:
        return
    assert "/s/" not in note and not TOKEN_SHAPE.search(note), note
    assert "pbem.test" not in note and "play+" not in note.lower(), note
    assert not any(SERVER.is_ours(part) for part in re.split(r"(?<=[.!?:])\s+", note)), note


def test_the_corpus_is_wide():
    files = {p.stem for p in CORPUS.glob("*.eml")}
    assert files == set(CASES), files ^ set(CASES)
    assert len(files) >= 50
    raw = b"".join((CORPUS / f"{name}.eml").read_bytes() for name in files).lower()
    for charset in (b"windows-1251", b"koi8-r", b"gb2312", b"iso-8859-7", b"iso-8859-1"):
        assert b'charset="' + charset + b'"' in raw, charset
    for encoding in (b"base64", b"quoted-printable", b"8bit"):
        assert b"content-transfer-encoding: " + encoding in raw, encoding


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_shape_gives_the_move_and_only_the_note(name):
    case = CASES[name]
    move, note = read(name)
    assert move == case["move"], case["client"]
    assert note == (case["note"] or None), case["client"]
    assert_nothing_of_the_server(note)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_quoted_original_holds_a_seat_link(name):
    """The corpus is only a test of the defence if each mail quotes a seat link."""
    text = parse_inbound((CORPUS / f"{name}.eml").read_bytes()).text or ""
    assert re.search(r"pbem\.test/s/Wy", text), name


@pytest.mark.parametrize(
    ("text", "move", "note"),
    [
        ("Hi,\n\ntake diamond\nthanks", "take diamond", "thanks"),
        ("Hello Bob\ncamels", "camels", None),
        ("Hi,\nhow are you\nI am fine\nsell 2 cloth", "Hi,", "how are you I am fine sell 2 cloth"),
        ("tkae diamond\nsee you", "tkae diamond", "see you"),
        ("camels\n\nJaipur\nwrote:\n\nIt is your turn:\nhttp://pbem.test/s/x.y", "camels", None),
        # quotes marked with », ›, : or initials, as > is: skipped before the move, ending the note
        ("» Your hand: gold, gold\ntake gold\ngg", "take gold", "gg"),
        ("take gold\ngg\n» Your hand: gold, gold", "take gold", "gg"),
        ("take gold\n»» Your hand: gold\nha", "take gold", None),
        ("take gold\n› Your hand: gold", "take gold", None),
        ("take gold\n＞ Your hand: gold", "take gold", None),
        ("camels\n: Your hand: gold, gold\n:\n: Your herd: 2 camels", "camels", None),
        ("camels\nok\nAB> Your hand: gold", "camels", "ok"),
        # a colon, a guillemet or a > within a line is the player's, and so is a smiley
        ("camels\nNote: your move was bold", "camels", "Note: your move was bold"),
        ("camels\n»Gut gespielt«, ehrlich", "camels", "»Gut gespielt«, ehrlich"),
        ("camels\n:-) 3 > 2, as they say", "camels", ":-) 3 > 2, as they say"),
        ("Hi:\ncamels", "camels", None),
    ],
)
def test_the_move_line_is_the_first_that_reads_as_a_move(text, move, note):
    got = split_reply(
        text, is_move=lambda line: moves.reads_as_move(line, "en"), is_ours=SERVER.is_ours
    )
    assert got == (move, note)


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("good game", "good game"),
        ("me: http://pbem.test/s/WyJhYmNkZWZnaCIsMCwxXQ.abcdefghijklmnopqrstuvwxyz0", "me: […]"),
        ("token WyJhYmNkZWZnaCIsMCwxXQ.abcdefghijklmnopqrstuvwxyz0 here", "token […] here"),
        ("proxy https://other.host/s/WyJhYmNkZWZnaCIsMCwxXQ.sig-sig-sig-sig ok", "proxy […] ok"),
        ("reply to PLAY+abcd1234-0-3-1-x@pbem.test", "reply to […]"),
        ("see you\nIt is your turn:\nhttp://pbem.test/s/abc.def", "see you"),
        ("http://pbem.test/s/WyJhYmNkZWZnaCIsMCwxXQ.abcdefghijklmnopqrstuvwxyz0", None),
        ("   ", None),
        ("x" * 600, "x" * 500),
        # a line of the server's mail, however it was quoted, ends the note
        ("gg\n» It is your turn:", "gg"),
        ("gg\n:   The position now:", "gg"),
        ("gg\n› Chain hash of move 3:", "gg"),
        ("gg\n＞ Your seat:", "gg"),
    ],
)
def test_a_note_never_carries_a_seat_link(typed, kept):
    assert notes.note_for_opponent(CONFIG, typed) == kept


def test_a_web_note_with_a_seat_link_loses_the_link(env):
    public_id = new_game(env, first=0)
    seat_token = token(env, public_id, 0)
    move = game_pages.legal_moves(env, seat_token)[0]
    leak = f"gg {env.config.base_url}/s/{seat_token} bye"
    moves.submit_move(env, seat_token, 1, move, Client(), message=leak)
    opponent = game_pages.seat_page(env, token(env, public_id, 1), Client())  # the note's reader
    shown = opponent.entries[0].message
    assert shown == "gg […] bye"
    assert seat_token not in shown


def _reply(address: str, text: str | None = None, html: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = "ada@example.test"
    msg["To"] = address
    msg["Subject"] = "Re: your turn"
    msg["Message-ID"] = make_msgid(domain="example.test")
    msg.set_content(text or "")
    if html is not None:
        msg.add_alternative(html, subtype="html")
    return msg.as_bytes()


def test_an_unquoted_outlook_reply_plays_and_its_note_leaks_nothing(smtp_env):
    """End to end: the real mail, quoted the way Outlook in German does, without ``>``."""
    env = smtp_env
    public_id = new_game(env, first=0)
    sent = [m for m in mails(env, public_id, seat=0) if "Reply-To" in m.headers][-1]
    address = sent.headers["Reply-To"]
    move = game_pages.legal_moves(env, token(env, public_id, 0))[0]
    body = (
        f"Hallo,\n\n{move}\nViel Glück!\n\n-----Ursprüngliche Nachricht-----\n"
        f"Von: Jaipur <jaipur@pbem.test>\nGesendet: Montag, 1. Dezember 2026 10:00\n"
        f"An: Ada\nBetreff: {sent.subject}\n\n{sent.text_body}"
    )
    assert "/s/" in sent.text_body
    outcome = replies.handle_mail(env, _reply(address, body), [address])
    assert outcome.outcome == "accepted", outcome
    entry = game_pages.seat_page(env, token(env, public_id, 1), Client()).entries[0]
    assert entry.message == "Viel Glück!"


def test_html_beside_an_empty_text_part_is_read(smtp_env):
    env = smtp_env
    public_id = new_game(env, first=0)
    address = [m for m in mails(env, public_id, seat=0) if "Reply-To" in m.headers][-1].headers[
        "Reply-To"
    ]
    move = game_pages.legal_moves(env, token(env, public_id, 0))[0]
    wrapped = move.replace(" ", "\n", 1)  # the client wrapped the source of the line
    html = f"<div>{wrapped}</div><div>nice<br>one</div><blockquote>It is your turn:</blockquote>"
    outcome = replies.handle_mail(env, _reply(address, " \n", html), [address])
    assert outcome.outcome == "accepted", outcome
    opponent = game_pages.seat_page(env, token(env, public_id, 1), Client())
    assert opponent.entries[0].message == "nice one"


@pytest.mark.parametrize(
    "text",
    [
        "camels\n" + "a" * 60_000,
        "camels\nok\n" + ("a-" * 500 + "\n") * 100,
        "a" * 60_000,
        "camels\n" + "play+" * 12_000,
    ],
    ids=["one long note line", "many long lines", "one long first line", "address-like"],
)
def test_a_huge_reply_is_read_in_bounded_time(text):
    """A reply's lines are read up to a bound, and a note up to another, so a mail of long
    lines costs a fraction of a second, not minutes (the patterns that find the server's
    text and links try every position of a line)."""
    start = time.process_time()
    _move, note = split_reply(
        text, is_move=lambda line: moves.reads_as_move(line, "en"), is_ours=SERVER.is_ours
    )
    kept = notes.note_for_opponent(CONFIG, note)
    assert kept is None or len(kept) <= notes.MESSAGE_LIMIT
    assert time.process_time() - start < 3
