"""No mail can be turned against its reader: names checked where they enter, headers that
cannot break out, a bad row that fails alone, LMTP that answers once per recipient."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from email import policy
from email.parser import BytesParser

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select, text, update

from pbem.engine.names import BadName, clean_name, sanitized
from pbem.mail import headers, outbox_row
from pbem.mail.delivery import SmtpBackend, build_message
from pbem.receiver import ReceiverController
from pbem.services.accounts import account_settings
from pbem.services.core.access import Client
from pbem.services.core.errors import InvalidInput
from pbem.services.play import game_pages, new_games
from pbem.services.scheduled import jobs
from pbem.store import outbox as outbox_store
from pbem.store.models import Game, OutboxMessage, Player, Seat
from tests.helpers import mails
from tests.mail.conftest import free_port
from tests.mail.lmtp import lmtp_exchange
from tests.mail.play import new_game

#: Names an attacker (or a careless opponent) types, each refused where it enters.
HOSTILE_NAMES = [
    "Bob <other@example.net>, Bob",
    "=?utf-8?q?=0D=0ABcc:_x@example.net?=",
    "=?UTF-8?B?DQpCY2M6IHhAZXhhbXBsZS5uZXQ=?=",
    "Bob\r\nBcc: x@example.net",
    "Bob\nBcc: x@example.net",
    "Bob\x00",
    "\u202eboB",  # a right-to-left override that reverses what follows
    "Bob\u2028Bcc: x@example.net",
    "",
    "   ",
    "x" * 81,
    # read as addresses in the recipient's mail client (issue 31)
    "X Bcc: other@example.net",
    "x@evil.example, y@evil.example",
    "Bob \uff1cx@evil.example\uff1e",  # full-width < >
    "Bob \ufe64x\ufe6bevil\ufe65",  # small < @ >
    "Bob \u2039x@evil.example\u203a",  # single angle quotes
    "Bob \uff20 evil\uff0eexample",  # full-width @ and dot
    "Bob\uff0c Alice",  # full-width comma
    "Bob\uff1b Alice\ufe55",  # full-width semicolon, small colon
    # nothing visible
    "\u200d\u200c\u200d",  # joiners only
    "\u3164\u3164",  # Hangul fillers
    "\ufe0f\u034f",  # a variation selector, the combining grapheme joiner
    "\u2800",  # the blank braille pattern
    "\u0301\u0308",  # combining marks with nothing to combine with
]

#: Names that look odd to a header parser but are fine as names: kept as typed.
ODD_BUT_FINE = [
    "Bob, Jr.",
    "Bob: the elder; 2nd",
    "..bob",
    'a"b\\c',
    "O'Brien (the elder)",
    "Ελένη Παπαδοπούλου",
    "مریم\u200cالسادات",  # the zero-width non-joiner is part of the Persian spelling
    "Олена",
    "王小明",
    "👩\u200d💻 Ada",
    "\u2764\ufe0f",  # a heart, with its emoji variation selector
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_name_is_refused_where_a_game_is_created(env, name):
    before = _counts(env)
    with pytest.raises(InvalidInput) as refused:
        new_games.create_game(
            env,
            (
                new_games.PlayerIn("Ada", "ada@example.test"),
                new_games.PlayerIn(name, "bo@example.test"),
            ),
        )
    assert "Second player" in refused.value.english
    assert _counts(env) == before  # nothing was created, nothing queued


def _counts(env) -> tuple[int, int]:
    """How many games and mails the (shared) test database holds."""
    with env.db.read() as session:
        return (
            session.scalar(select(func.count(Game.id))),
            session.scalar(select(func.count(OutboxMessage.id))),
        )


def _last_mail_id(env) -> int:
    with env.db.read() as session:
        return session.scalar(select(func.max(OutboxMessage.id))) or 0


@pytest.mark.parametrize("name", ODD_BUT_FINE)
def test_an_odd_name_is_kept_and_its_mail_goes_to_its_own_seat_only(smtp_env, smtp_server, name):
    env = smtp_env
    public_id = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn(name, "bo@example.test"),
        ),
        first_player=0,
    ).public_id
    assert game_pages.public_page(env, public_id).game.names[1] == name
    while jobs.deliver_mail(env, SmtpBackend(env.config), limit=1000):
        pass
    ours = [
        (m, e)
        for m, e in zip(smtp_server.received, smtp_server.collector.envelopes, strict=True)
        if public_id in str(m["Message-ID"])
    ]
    assert len(ours) == 2
    for message, envelope in ours:
        (to,) = message["To"].addresses
        assert envelope == [to.addr_spec]
        assert message.get_all("Bcc") is None and message.get_all("Cc") is None
        if to.addr_spec == "bo@example.test":
            assert to.display_name == name
        else:  # Ada's mail names Bo in its subject: one line, nothing more
            assert to.addr_spec == "ada@example.test"
            assert name in str(message["Subject"])


def test_the_home_page_refuses_a_hostile_name_and_quotes_it_harmlessly(client):
    page = client.get("/")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    form = {
        "my_name": "Ada",
        "my_email": "ada@example.test",
        "their_name": "Bob <script>x</script>",
        "their_email": "bo@example.test",
    }
    if csrf:
        form["csrf_token"] = csrf.group(1)
    answer = client.post("/", data=form)
    assert answer.status_code == 400
    assert "a name cannot hold &lt; or &gt;" in answer.text
    assert "<script>x" not in answer.text


@pytest.mark.parametrize(
    "name", ["Eve <eve@example.net>", "Eve\r\nBcc: x@example.net", "=?us-ascii?q?x?="]
)
def test_settings_refuse_a_hostile_display_name(env, name):
    public_id = new_game(env)
    with env.db.read() as session:
        owner = session.scalars(select(Player.id).where(Player.email == "ada@example.test")).one()
    with pytest.raises(InvalidInput) as refused:
        account_settings.update_settings(
            env, owner, name=name, mail_mode="each", language="en", timezone="UTC", client=Client()
        )
    assert "Display name" in refused.value.english
    assert game_pages.public_page(env, public_id).game.names[0] == "Ada"


def test_the_cli_refuses_a_hostile_name(env, monkeypatch):
    from pbem.admin import games as game_commands

    monkeypatch.setattr(game_commands, "ready_env", lambda: env)
    before = _counts(env)
    result = CliRunner().invoke(
        game_commands.new_game,
        ["--player", "Ada <ada@example.test>", "--player", "Bo\u202e <bo@example.test>"],
    )
    assert result.exit_code != 0
    assert "invisible formatting characters" in result.output
    assert _counts(env) == before


def _built(name: str):
    """The mail of a row addressed to ``name``, parsed back as a recipient reads it; None if
    the sender refuses to build it."""
    row = OutboxMessage(
        message_id="<x.1@pbem.test>",
        kind="invitation",
        to_addr="bo@example.test",
        to_name=name,
        subject=f"Jaipur vs {name} — a new game",
        text_body="t",
        html_body="<p>t</p>",
        headers={},
        created_at=datetime(2026, 12, 5, tzinfo=UTC),
    )
    try:
        message = build_message(row, "Jaipur <jaipur@pbem.test>")
    except ValueError:
        return None
    return BytesParser(policy=policy.default).parsebytes(message.as_bytes())


@given(st.text(max_size=100))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
def test_any_name_is_either_refused_or_one_display_name_of_one_recipient(name):
    """Whatever text a name holds, a mail either is not built or goes to one address; and
    every name the check lets in is built, with that name as it was typed."""
    parsed = _built(name)
    if parsed is not None:
        names = [k.lower() for k in parsed]
        assert "bcc" not in names and "cc" not in names
        assert names.count("to") == 1 and names.count("subject") == 1
        assert [a.addr_spec for a in parsed["To"].addresses] == ["bo@example.test"]
    try:
        kept = clean_name(name)
    except BadName:
        return
    parsed = _built(kept)
    assert parsed is not None

    def letters(value: object) -> str:
        # Where CPython folds a long name or subject into several encoded words, a space
        # between two of them may be lost or added (RFC 2047 decoders ignore it); the
        # characters themselves always arrive, in order.
        return "".join(str(value).split())

    assert letters(parsed["To"].addresses[0].display_name) == letters(kept)
    assert letters(parsed["Subject"]) == letters(f"Jaipur vs {kept} — a new game")


@given(st.text(max_size=120))
@settings(max_examples=300, deadline=None)
def test_a_sanitized_name_always_passes_the_check(raw):
    assert clean_name(sanitized(raw)) == sanitized(raw)


def _queue(env, **fields):
    values = dict(
        now=env.clock.now(),
        mail_from=env.config.mail_from,
        kind="sign_in",
        to="ok@example.test",
        subject="Jaipur: hello",
        text="hello",
        html="<p>hello</p>",
    )
    values.update(fields)
    with env.db.write() as session:
        outbox_store.queue(session, outbox_row.message(**values))


def test_one_poisoned_row_fails_alone_and_every_other_mail_goes_out(smtp_env, smtp_server):
    """Rows that no sender can build (stored before names were checked, or written wrong)
    are marked failed with their error; the delivery run goes on with the rest."""
    env = smtp_env
    jobs.deliver_mail(env, SmtpBackend(env.config), limit=10_000)  # earlier tests' mail
    start, earlier = _last_mail_id(env), len(smtp_server.received)
    public_id = new_game(env)
    with env.db.write() as session:  # a name stored before this release's checks
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        session.execute(
            update(Seat)
            .where(Seat.game_id == game.id, Seat.seat == 1)
            .values(name="=?utf-8?q?=0D=0ABcc:_x@example.net?=")
        )
    _queue(env, to="a@example.test", to_name="=?utf-8?q?=0D=0ABcc:_x@example.net?=")
    _queue(env, to="b@example.test", subject="Hi\r\nBcc: x@example.net")
    _queue(env, to="c@example.test", headers={"X-Note": "a\nBcc: x@example.net"})
    _queue(env, to="not an address")
    _queue(env, to="d@example.test", to_name="..d")
    _queue(env, to="e@example.test", to_name="Eve <eve@example.net>, Eve")
    with env.db.write() as session:  # an invitation queued before the name was poisoned
        session.execute(
            text("UPDATE outbox SET to_name = :n WHERE to_addr = 'bo@example.test' AND id > :s"),
            {"n": "Bo\r\nBcc: x@example.net", "s": start},
        )
    sent = jobs.deliver_mail(env, SmtpBackend(env.config), limit=1000)
    with env.db.read() as session:
        rows = list(session.scalars(select(OutboxMessage).where(OutboxMessage.id > start)))
    failed = [r for r in rows if r.status == "failed"]
    assert {r.to_addr for r in failed} == {
        "a@example.test",
        "b@example.test",
        "c@example.test",
        "not an address",
        "bo@example.test",
    }
    assert all(r.last_error.startswith("refused: ") for r in failed)
    assert all(r.status == "sent" for r in rows if r not in failed)
    assert {r.to_addr for r in rows if r.status == "sent"} == {
        "ada@example.test",
        "d@example.test",
        "e@example.test",
    }
    assert sent == len(rows) - len(failed) == len(smtp_server.received) - earlier
    for envelope in smtp_server.collector.envelopes[earlier:]:
        assert len(envelope) == 1 and "example.net" not in envelope[0]
    # a failed row is not tried again, and the next run sends what is queued after it
    _queue(env, to="f@example.test")
    env.clock.advance(hours=13)
    assert jobs.deliver_mail(env, SmtpBackend(env.config), limit=1000) == 1


def test_every_mail_of_a_game_is_addressed_with_an_address_object(smtp_env):
    env = smtp_env
    public_id = new_game(env)
    for row in mails(env, public_id):
        message = build_message(row, env.config.mail_from)
        assert isinstance(message.policy, headers.StrictPolicy)
        (to,) = message["To"].addresses
        assert (to.display_name, to.addr_spec) == (row.to_name, row.to_addr)


# ------------------------------------------------------------------ LMTP


def test_lmtp_answers_each_recipient_after_data(smtp_env):
    from tests.mail.test_replies import reply, reply_to_of

    env = smtp_env
    first, second = new_game(env), new_game(env)
    a, b = reply_to_of(env, first, 0), reply_to_of(env, second, 0)
    local, _, domain = a.partition("@")
    forged = f"{local[:-1]}{'a' if local[-1] != 'a' else 'b'}@{domain}"
    legal = game_pages.legal_moves(env, game_pages.seat_tokens(env, first)[0])[0]
    with env.db.read() as session:  # the test database is shared: only rows queued here count
        last_before = session.scalar(select(func.max(OutboxMessage.id))) or 0
    port = free_port()
    controller = ReceiverController(env, "127.0.0.1", port, lmtp=True)
    controller.start()
    try:
        msg = reply(a, str(legal))
        del msg["To"]
        msg["To"] = f"{a}, {b}"
        answers = lmtp_exchange(port, [a, forged, b], msg.as_bytes())
    finally:
        controller.stop()
    rcpt, data = answers[:3], answers[3:]
    assert rcpt[0].startswith("250") and rcpt[2].startswith("250")
    assert rcpt[1].startswith("550")  # forged: refused in the conversation, never answered
    assert len(data) == 2 and all(d.startswith("250") for d in data)
    with env.db.read() as session:
        refusals = list(
            session.scalars(
                select(OutboxMessage).where(
                    OutboxMessage.kind == "refusal", OutboxMessage.id > last_before
                )
            )
        )
    assert all(r.to_addr == "ada@example.test" for r in refusals)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("x@evil.example, y@evil.example", "cannot look like an email address"),
        ("Bob \uff1cx@evil.example\uff1e", "cannot look like an email address"),
        ("\u200d\u200c", "this one shows as blank"),
        ("me@home", "no @ at all"),
        ("\u00a0", "this one shows as blank"),
        ("\u2003", "this one shows as blank"),
        ("Zalgo" + "\u0300" * 30, "at most 3 accents or marks on one letter"),
    ],
)
def test_the_home_page_says_why_a_name_reads_as_an_address_or_blank(client, env, name, says):
    page = client.get("/")
    form = {
        "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1),
        "my_name": "Ada",
        "my_email": "ada@example.test",
        "their_name": name,
        "their_email": "bo@example.test",
    }
    before = _counts(env)
    answer = client.post("/", data=form)
    assert answer.status_code == 400 and says in answer.text
    assert _counts(env) == before
    greek = client.post("/", data=form, headers={"Accept-Language": "el"})
    # named as the form heads it ("Your opponent"), in the reader's language
    assert greek.status_code == 400 and says not in greek.text and "Ο αντίπαλός σας" in greek.text


#: What makes text read as addresses in a mail client's ``To`` line.
_ADDRESS_CHARACTERS = set("<>@,;:")


@given(st.text(max_size=60))
@settings(max_examples=300, deadline=None)
def test_a_kept_name_shows_something_and_reads_as_no_address(raw):
    try:
        kept = clean_name(raw)
    except BadName:
        return
    assert any(unicodedata.category(ch)[0] in "LNPS" for ch in kept)
    for ch in kept:  # no look-alike that folds into one of them
        if not ch.isascii():
            assert not set(unicodedata.normalize("NFKC", ch)) & _ADDRESS_CHARACTERS, ch
    assert not re.search(r"@\s*[\w-]+\s*\.\s*[\w-]+", unicodedata.normalize("NFKC", kept))


def test_every_look_alike_that_folds_into_an_address_character_is_refused():
    """Every character of this Unicode whose NFKC form holds one of ``< > @ , ; :``."""
    for code in range(0x80, 0x30000):
        ch = chr(code)
        if set(unicodedata.normalize("NFKC", ch)) & _ADDRESS_CHARACTERS:
            if unicodedata.normalize("NFC", ch).isascii():
                continue  # the Greek question mark is a semicolon once a name is kept
            with pytest.raises(BadName):
                clean_name(f"Bob {ch} Alice")
