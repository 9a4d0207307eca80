"""Bounces reach the players (docs/deploy.md, "Bounces"): each mail's own return path, a
permanent refusal at the first hop or a delivery status notification marks it bounced,
its address bouncing (mail to it held), and the other player is told by mail and page.

A real SMTP server (aiosmtpd) refuses some recipients with 550 or 450; real DSNs are fed
to the receiver (``pbem inbound``) over LMTP, as Postfix's lmtp transport hands them."""

from __future__ import annotations

import re
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from aiosmtpd.controller import Controller

from pbem.mail.delivery import SmtpBackend
from pbem.receiver import ReceiverController
from pbem.services.accounts import sign_in
from pbem.services.core import access
from pbem.services.play import game_clock, game_pages, new_games
from pbem.services.scheduled import jobs
from pbem.store import bounces as bounce_rows
from pbem.store.models import OutboxMessage
from tests.helpers import mails
from tests.mail.conftest import free_port
from tests.mail.lmtp import lmtp_exchange
from tests.mail.play import new_game, play, to_move, token

ADA, BO = "ada@example.test", "bo@example.test"  # each test's own: see ``benv``


class Refusing:
    """Collects what it accepts; refuses the recipients in ``permanent`` with 550 and those
    in ``temporary`` with 450 at RCPT, as a first hop does for an unknown or a busy box."""

    def __init__(self) -> None:
        self.permanent: set[str] = set()
        self.temporary: set[str] = set()
        self.data_refused: set[str] = set()  # 554 after DATA, as for a mail refused as spam
        self.sender_refused = False  # 553 to MAIL FROM: the server's own setting
        self.received: list[tuple[str, list[str], EmailMessage]] = []

    async def handle_MAIL(self, server, session, envelope, address, mail_options) -> str:
        if self.sender_refused:
            return f"553 5.7.1 <{address}>: Sender address rejected: not owned by user"
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:
        if address.lower() in self.permanent:
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        if address.lower() in self.temporary:
            return f"450 4.2.1 <{address}>: mailbox busy, try later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        if self.data_refused & {r.lower() for r in envelope.rcpt_tos}:
            return "554 5.7.1 message refused"
        msg = BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), msg))
        return "250 OK"

    def to(self, address: str) -> list[tuple[str, EmailMessage]]:
        return [(sender, m) for sender, rcpts, m in self.received if address in rcpts]


@pytest.fixture
def relay():
    handler = Refusing()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    handler.port = controller.port  # type: ignore[attr-defined]
    yield handler
    controller.stop()


@pytest.fixture
def benv(env, relay, request):
    """The env sending to ``relay``; ADA and BO are this test's own addresses (the module's
    database is shared, and a bounce tells the opponents in every game of an address)."""
    global ADA, BO
    tag = re.sub(r"[^a-z0-9]", "", request.node.name.lower())[-40:]
    ADA, BO = f"ada.{tag}@example.test", f"bo.{tag}@example.test"
    env.config = env.config.with_(
        mail_backend="smtp",
        smtp_host="127.0.0.1",
        smtp_port=relay.port,
        mail_from="Jaipur <jaipur@pbem.test>",
        reply_address="play@pbem.test",
        bounce_address="bounce@pbem.test",
    )
    return env


def deliver(env) -> int:
    return jobs.deliver_mail(env, SmtpBackend(env.config))


def row(env, public_id, seat, kind) -> OutboxMessage:
    return mails(env, public_id, seat=seat, kind=kind)[-1]


def page(env, public_id, seat):
    return game_pages.seat_page(env, token(env, public_id, seat), access.Client())


def test_every_mail_goes_out_with_a_return_path_of_its_own(benv, relay):
    public_id = new_game(benv, emails=(ADA, BO))
    deliver(benv)
    senders = {}
    for seat, address in ((0, ADA), (1, BO)):
        [(sender, msg)] = relay.to(address)
        r = row(benv, public_id, seat, "invitation")
        assert sender == f"bounce+{benv.links.bounce_token(r.id)}@pbem.test"
        assert sender == sender.lower() and len(sender.partition("@")[0]) <= 64
        assert msg["From"] == "Jaipur <jaipur@pbem.test>"  # the From is unchanged
        senders[seat] = sender
    assert senders[0] != senders[1]


def test_a_550_at_the_first_hop_bounces_the_invitation_at_once_and_tells_the_opponent(benv, relay):
    relay.permanent.add(BO)
    public_id = new_game(benv, emails=(ADA, BO))
    deliver(benv)  # one scheduler run
    bounced = row(benv, public_id, 1, "invitation")
    assert bounced.status == "bounced" and bounced.attempts == 1
    assert "550" in (bounced.last_error or "")
    with benv.db.read() as session:
        assert bounce_rows.bouncing(session, [BO]) == {BO}
    # the opponent's mail went out in the same run, and their page says it
    [(_, told)] = [(s, m) for s, m in relay.to(ADA) if "bounces" in str(m["Subject"])]
    text = told.get_body(("plain",)).get_content()
    assert "Mail to Bo bounces" in text and "Their link still works" in text
    assert "Their clock runs as usual: 3 days per move" in text
    assert page(benv, public_id, 0).bouncing == (False, True)
    # no retry: a later run sends it no more
    benv.clock.advance(hours=24)
    deliver(benv)
    assert relay.to(BO) == []
    assert row(benv, public_id, 1, "invitation").attempts == 1


def test_a_450_keeps_the_mail_and_retries_with_back_off(benv, relay):
    relay.temporary.add(BO)
    public_id = new_game(benv, emails=(ADA, BO))
    deliver(benv)
    waiting = row(benv, public_id, 1, "invitation")
    assert (waiting.status, waiting.attempts) == ("pending", 1)
    waited = waiting.next_attempt_at.replace(tzinfo=None) - benv.clock.now().replace(tzinfo=None)
    assert waited == timedelta(minutes=1)  # the first step of the back-off
    with benv.db.read() as session:
        assert bounce_rows.bouncing(session, [BO]) == set()
    relay.temporary.clear()
    benv.clock.advance(minutes=1)
    deliver(benv)
    assert row(benv, public_id, 1, "invitation").status == "sent"
    assert len(relay.to(BO)) == 1


def test_a_bounced_your_turn_reaches_the_opponent_within_one_run_and_later_mail_is_held(
    benv, relay
):
    public_id = new_game(benv, first=0, emails=(ADA, BO))
    deliver(benv)
    invited = len(relay.to(BO))
    relay.permanent.add(BO)
    play(benv, public_id, 1)  # Ada moves: Bo's "your turn" is queued
    benv.clock.advance(seconds=benv.config.turn_mail_hold + 1)
    deliver(benv)  # one scheduler run
    assert row(benv, public_id, 1, "your_turn").status == "bounced"
    told = [m for _, m in relay.to(ADA) if "bounces" in str(m["Subject"])]
    assert len(told) == 1
    assert page(benv, public_id, 0).bouncing == (False, True)
    mine = page(benv, public_id, 1)
    assert mine.bouncing == (False, True)
    # Bo moves on the web; Ada moves; the next mail to Bo is held, not sent, not lost
    relay.permanent.clear()
    play(benv, public_id, 2)
    assert to_move(benv, public_id) == 1
    benv.clock.advance(seconds=benv.config.turn_mail_hold + 1)
    deliver(benv)
    held = row(benv, public_id, 1, "your_turn")
    assert held.status == "pending" and held.attempts == 0
    assert len(relay.to(BO)) == invited
    # Bo signs in: the sign-in mail goes out even now, and its link clears the mark
    sign_in.request_sign_in(benv, BO, access.Client())
    deliver(benv)
    [(_, signin)] = relay.to(BO)[invited:]
    link = re.search(r"/signin/(\S+)", signin.get_body(("plain",)).get_content()).group(1)
    sign_in.use_link(benv, link, access.Client())
    deliver(benv)
    assert row(benv, public_id, 1, "your_turn").status in ("sent", "dropped")
    assert page(benv, public_id, 0).bouncing == (False, False)


def test_a_new_address_takes_the_held_mail_and_leaves_the_mark(benv, relay):
    from pbem.services.accounts import address_change
    from pbem.services.core.identity import player_for
    from pbem.services.play import link_recovery

    public_id = new_game(benv, first=1, emails=(ADA, BO))  # Bo moves first
    relay.permanent.add(BO)
    deliver(benv)
    assert page(benv, public_id, 1).bouncing == (False, True)
    link_recovery.request_link(benv, public_id, BO, access.Client())  # held: not sent
    deliver(benv)
    assert row(benv, public_id, 1, "link").status == "pending"
    # Bo, signed in elsewhere, moves to a new address and confirms it there
    new = BO.replace("bo.", "bo2.")
    with benv.db.write() as session:
        player_id = player_for(session, BO, "Bo", benv.clock.now()).id
    with benv.db.write() as session:  # the new address bounced once too: its confirmation goes
        bounce_rows.mark(session, new, benv.clock.now(), None, "an old bounce")
    address_change.request_email_change(benv, player_id, new, access.Client())
    deliver(benv)
    [(_, confirm)] = relay.to(new)
    link = re.search(r"/signin/(\S+)", confirm.get_body(("plain",)).get_content()).group(1)
    sign_in.use_link(benv, link, access.Client())
    assert page(benv, public_id, 1).bouncing == (False, False)
    with benv.db.read() as session:
        assert bounce_rows.bouncing(session, [BO, new]) == set()
    deliver(benv)  # the held mail goes to the new address
    assert row(benv, public_id, 1, "link").status == "sent"
    assert [str(m["Subject"]) for _, m in relay.to(new)][1:] == ["Jaipur vs Ada — your link"]


def test_the_clock_runs_as_usual_for_a_seat_whose_mail_bounces(benv, relay):
    public_id = new_game(benv, game_clock.GameClock(days_per_move=1), first=1, emails=(ADA, BO))
    relay.permanent.add(BO)
    deliver(benv)
    assert page(benv, public_id, 0).bouncing == (False, True)
    benv.clock.advance(days=1, seconds=1)
    jobs.run_clock(benv)
    from pbem.services.records import game_records

    logged = game_records.operator_record(benv, public_id)["moves"]
    assert [m for m in logged if "timeout" in str(m)], logged


def test_no_clock_and_a_waiting_invitation_are_said_as_they_are(benv, relay):
    relay.permanent.add(BO)
    new_game(benv, game_clock.GameClock(days_per_move=None), first=0, emails=(ADA, BO))
    deliver(benv)
    [told] = [m for _, m in relay.to(ADA) if "bounces" in str(m["Subject"])]
    assert (
        "This game has no clock: it waits for their move."
        in told.get_body(("plain",)).get_content()
    )


# ---------------------------------------------------------------- DSNs to the receiver


def dsn(bounce_to: str, recipient: str, action: str, status: str) -> bytes:
    """A delivery status notification as Postfix writes one (RFC 3464)."""
    return (
        "From: MAILER-DAEMON@mx.example.test (Mail Delivery System)\r\n"
        f"To: {bounce_to}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n"
        "Auto-Submitted: auto-replied\r\n"
        "Message-ID: <dsn.1@mx.example.test>\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n'
        "\r\n"
        "--B\r\n"
        "Content-Type: text/plain; charset=us-ascii\r\n"
        "\r\n"
        "I'm sorry to have to inform you that your message could not be delivered.\r\n"
        "\r\n"
        "--B\r\n"
        "Content-Type: message/delivery-status\r\n"
        "\r\n"
        "Reporting-MTA: dns; mx.example.test\r\n"
        "Arrival-Date: Mon,  7 Dec 2026 00:00:00 +0000 (UTC)\r\n"
        "\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\n"
        f"Original-Recipient: rfc822;{recipient}\r\n"
        f"Action: {action}\r\n"
        f"Status: {status}\r\n"
        f"Diagnostic-Code: smtp; {status[0]}50 {status} <{recipient}>: no such user\r\n"
        "\r\n"
        "--B\r\n"
        "Content-Type: text/rfc822-headers\r\n"
        "\r\n"
        f"To: Bo <{recipient}>\r\n"
        "Subject: Jaipur\r\n"
        "\r\n"
        "--B--\r\n"
    ).encode()


@pytest.fixture
def receiver(benv):
    port = free_port()
    controller = ReceiverController(benv, "127.0.0.1", port, lmtp=True)
    controller.start()
    yield port
    controller.stop()


def _sent_invitation(benv, relay) -> tuple[str, str]:
    public_id = new_game(benv, emails=(ADA, BO))
    deliver(benv)
    [(sender, _)] = relay.to(BO)
    return public_id, sender


def test_a_dsn_over_lmtp_bounces_the_mail_it_names_and_tells_the_opponent(benv, relay, receiver):
    public_id, bounce_to = _sent_invitation(benv, relay)
    assert row(benv, public_id, 1, "invitation").status == "sent"
    answers = lmtp_exchange(receiver, [bounce_to], dsn(bounce_to, BO, "failed", "5.1.1"), "")
    assert answers[0].startswith("250") and answers[-1].startswith("250")
    bounced = row(benv, public_id, 1, "invitation")
    assert bounced.status == "bounced" and "5.1.1" in (bounced.last_error or "")
    deliver(benv)  # the next scheduler run tells Ada
    assert any("bounces" in str(m["Subject"]) for _, m in relay.to(ADA))
    assert page(benv, public_id, 0).bouncing == (False, True)
    # the same DSN again changes nothing more
    lmtp_exchange(receiver, [bounce_to], dsn(bounce_to, BO, "failed", "5.1.1"), "")
    deliver(benv)
    assert len([m for _, m in relay.to(ADA) if "bounces" in str(m["Subject"])]) == 1


def test_a_delay_report_and_an_out_of_office_answer_change_nothing(benv, relay, receiver):
    public_id, bounce_to = _sent_invitation(benv, relay)
    lmtp_exchange(receiver, [bounce_to], dsn(bounce_to, BO, "delayed", "4.4.1"), "")
    away = (
        f"From: Bo <{BO}>\r\nTo: {bounce_to}\r\nSubject: Out of office\r\n"
        "Auto-Submitted: auto-replied\r\nMessage-ID: <ooo@example.test>\r\n\r\n"
        "I am away until Monday.\r\n"
    ).encode()
    lmtp_exchange(receiver, [bounce_to], away, "")
    assert row(benv, public_id, 1, "invitation").status == "sent"
    assert page(benv, public_id, 0).bouncing == (False, False)


def test_a_plain_bounce_without_a_report_bounces_the_mail(benv, relay, receiver):
    public_id, bounce_to = _sent_invitation(benv, relay)
    plain = (
        f"From: MAILER-DAEMON@old.example.test\r\nTo: {bounce_to}\r\n"
        "Subject: failure notice\r\nMessage-ID: <qmail@old.example.test>\r\n\r\n"
        f"Sorry, I wasn't able to deliver your message to <{BO}>.\r\n"
    ).encode()
    lmtp_exchange(receiver, [bounce_to], plain, "")
    assert row(benv, public_id, 1, "invitation").status == "bounced"


@pytest.mark.parametrize(
    "address",
    [
        "bounce+1-aaaaaaaaaaaaaaaa@pbem.test",  # a made-up signature
        "bounce+99999-{sig}@pbem.test",  # a genuine signature of another row
        "bounce@pbem.test",
        "bounce+@pbem.test",
    ],
)
def test_a_forged_bounce_address_is_refused_with_550(benv, relay, receiver, address):
    public_id, bounce_to = _sent_invitation(benv, relay)
    sig = bounce_to.partition("@")[0].rpartition("-")[2]
    answers = lmtp_exchange(
        receiver, [address.format(sig=sig)], dsn(bounce_to, BO, "failed", "5.1.1"), ""
    )
    assert answers[0].startswith("550")
    assert row(benv, public_id, 1, "invitation").status == "sent"


def test_a_bounce_token_opens_only_its_own_row(benv):
    t = benv.links.bounce_token(42)
    assert t == t.lower() and len(t) < 40
    assert benv.links.open_bounce(t) == 42
    assert benv.links.open_bounce(t.upper()) == 42  # a server may fold the case
    assert benv.links.open_bounce(t.replace("42-", "43-")) is None
    assert benv.links.open_bounce(t[:-1] + ("a" if t[-1] != "a" else "b")) is None


def test_a_bounce_is_recorded_in_the_outbox_for_the_operator(benv, relay):
    relay.permanent.add(BO)
    new_game(benv, emails=(ADA, BO))
    deliver(benv)
    with benv.db.read() as session:
        statuses = [r.status for r in session.query(OutboxMessage).filter_by(to_addr=BO)]
    assert "bounced" in statuses


def test_a_bounced_invitation_to_a_game_not_dealt_yet_says_so_on_the_inviters_page(benv, relay):
    relay.permanent.add(BO)
    created = new_games.create_game(
        benv,
        (new_games.PlayerIn("Ada", ADA, "en", "UTC"), new_games.PlayerIn("Bo", BO, "en", "UTC")),
        await_players=True,
    )
    deliver(benv)
    [told] = [m for _, m in relay.to(ADA) if "bounces" in str(m["Subject"])]
    assert "Their invitation did not reach them" in told.get_body(("plain",)).get_content()
    waiting = game_pages.seat_page(benv, created.tokens[0], access.Client())
    assert isinstance(waiting, game_pages.WaitingPage) and waiting.bouncing == (False, True)


def test_a_mail_refused_for_good_after_data_bounces_too(benv, relay):
    relay.data_refused.add(BO)
    public_id = new_game(benv, emails=(ADA, BO))
    deliver(benv)
    assert row(benv, public_id, 1, "invitation").status == "bounced"
    assert page(benv, public_id, 0).bouncing == (False, True)


def test_a_refused_sender_is_the_servers_setting_and_is_retried(benv, relay):
    relay.sender_refused = True
    public_id = new_game(benv, emails=(ADA, BO))
    deliver(benv)
    for seat in (0, 1):
        r = row(benv, public_id, seat, "invitation")
        assert r.status == "pending" and "553" in (r.last_error or "")
    assert page(benv, public_id, 0).bouncing == (False, False)


def test_the_outbox_command_lists_a_bounced_mail(benv, relay, monkeypatch):
    from click.testing import CliRunner

    from pbem.cli import main

    relay.permanent.add(BO)
    public_id = new_game(benv, emails=(ADA, BO))
    deliver(benv)
    bounced = row(benv, public_id, 1, "invitation")
    monkeypatch.setenv("PBEM_DATABASE_URL", benv.config.database_url)
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(benv.config.instance_path))
    listing = CliRunner().invoke(main, ["outbox"])
    assert listing.exit_code == 0
    line = next(x for x in listing.output.splitlines() if x.split()[0] == str(bounced.id))
    assert "bounced" in line and "550" in line


def test_every_opponent_of_the_address_is_told_in_their_own_language(benv, relay):
    relay.permanent.add(BO)
    carla = ADA.replace("ada.", "carla.")
    first = new_games.create_game(
        benv,
        (new_games.PlayerIn("Ada", ADA, "el", "UTC"), new_games.PlayerIn("Bo", BO, "en", "UTC")),
        first_player=0,
    )
    new_games.create_game(
        benv,
        (
            new_games.PlayerIn("Carla", carla, "zh", "UTC"),
            new_games.PlayerIn("Bo", BO, "en", "UTC"),
        ),
        first_player=0,
    )
    deliver(benv)
    [greek] = [m for _, m in relay.to(ADA) if "επιστρέφονται" in str(m["Subject"])]
    greek_text = greek.get_body(("plain",)).get_content()
    assert "Τα μηνύματα προς Bo επιστρέφονται" in greek_text
    assert "Το ρολόι του τρέχει κανονικά: 3 ημέρες ανά κίνηση" in greek_text
    chinese = [m for _, m in relay.to(carla) if "退回" in str(m["Subject"])]
    assert len(chinese) == 1
    assert "发给 Bo 的邮件被退回" in chinese[0].get_body(("plain",)).get_content()
    assert game_pages.seat_page(benv, first.tokens[0], access.Client()).bouncing == (False, True)


def test_erasing_the_account_takes_the_bounce_mark_with_the_address(benv, relay):
    from pbem.services.accounts import erasure
    from pbem.services.core.identity import player_for

    relay.permanent.add(BO)
    new_game(benv, emails=(ADA, BO))
    deliver(benv)
    with benv.db.write() as session:
        player_id = player_for(session, BO, "Bo", benv.clock.now()).id
    erasure.erase(benv, player_id, access.Client())
    with benv.db.read() as session:
        assert bounce_rows.bouncing(session, [BO]) == set()


def test_a_dsn_over_smtp_bounces_the_mail_too(benv, relay):
    import smtplib

    port = free_port()
    controller = ReceiverController(benv, "127.0.0.1", port, lmtp=False)
    controller.start()
    try:
        public_id, bounce_to = _sent_invitation(benv, relay)
        with smtplib.SMTP("127.0.0.1", port) as smtp:
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                smtp.sendmail("<>", ["bounce+1-aaaaaaaaaaaaaaaa@pbem.test"], b"Subject: x\r\n\r\nx")
            smtp.sendmail("<>", [bounce_to], dsn(bounce_to, BO, "failed", "5.1.1"))
    finally:
        controller.stop()
    assert row(benv, public_id, 1, "invitation").status == "bounced"


@pytest.mark.slow
def test_a_hostile_dsn_is_read_without_harm(benv, relay, receiver):
    public_id, bounce_to = _sent_invitation(benv, relay)
    nested = b"".join(
        b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (i, i)
        for i in range(1200)
    )
    answers = lmtp_exchange(receiver, [bounce_to], b"Subject: deep\r\n" + nested, "")
    assert answers[-1].startswith("250")
    assert row(benv, public_id, 1, "invitation").status == "bounced"  # read as plain


def test_a_dsns_control_characters_never_reach_the_operators_terminal(benv, relay, receiver):
    public_id, bounce_to = _sent_invitation(benv, relay)
    hostile = dsn(bounce_to, BO, "failed", "5.1.1").replace(
        b"no such user", b"\x1b[2J\x1b]0;pwned\x07 no such user"
    )
    lmtp_exchange(receiver, [bounce_to], hostile, "")
    error = row(benv, public_id, 1, "invitation").last_error or ""
    assert "\x1b" not in error and "\x07" not in error and "no such user" in error


def test_a_dsn_in_the_polled_imap_mailbox_bounces_the_mail(benv, relay):
    import threading

    from pbem.receiver import poll_imap
    from tests.mail.test_imap import Mailbox, make_server

    box = Mailbox()
    server = make_server(box)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        benv.config = benv.config.with_(
            imap_host="127.0.0.1",
            imap_port=server.server_address[1],
            imap_ssl=False,
            imap_user="play",
            imap_password="secret",
        )
        public_id, bounce_to = _sent_invitation(benv, relay)
        box.messages.append(dsn(bounce_to, BO, "failed", "5.1.1"))
        assert poll_imap(benv) == 1
    finally:
        server.shutdown()
    assert row(benv, public_id, 1, "invitation").status == "bounced"
    deliver(benv)
    assert any("bounces" in str(m["Subject"]) for _, m in relay.to(ADA))


def test_a_mail_queued_before_the_bounce_is_held_too(benv, relay):
    from pbem.services.play import link_recovery

    relay.permanent.add(BO)
    public_id = new_game(benv, emails=(ADA, BO))
    link_recovery.request_link(benv, public_id, BO, access.Client())  # queued before any run
    deliver(benv)
    assert row(benv, public_id, 1, "invitation").status == "bounced"
    link = row(benv, public_id, 1, "link")
    assert (link.status, link.attempts) == ("pending", 0)  # held, not tried: not bounced


def test_no_reminder_is_queued_for_a_bouncing_seat_until_its_address_works(benv, relay):
    public_id = new_game(benv, game_clock.GameClock(days_per_move=3), first=1, emails=(ADA, BO))
    relay.permanent.add(BO)
    deliver(benv)
    benv.clock.advance(hours=25)  # the first reminder is due after 24 hours
    jobs.run_clock(benv)
    assert mails(benv, public_id, seat=1, kind="reminder") == []
    with benv.db.write() as session:  # verified again (a sign-in link used)
        bounce_rows.clear(session, [BO])
    jobs.run_clock(benv)
    assert len(mails(benv, public_id, seat=1, kind="reminder")) == 1


def test_no_deadline_warning_is_queued_for_a_bouncing_seat(benv, relay):
    public_id = new_game(benv, game_clock.GameClock(days_per_move=3), first=1, emails=(ADA, BO))
    relay.permanent.add(BO)
    deliver(benv)
    benv.clock.advance(days=3, seconds=-60)  # a minute before the deadline: past the warning
    jobs.run_clock(benv)
    assert mails(benv, public_id, seat=1, kind="deadline_warning") == []
    with benv.db.write() as session:
        bounce_rows.clear(session, [BO])
    jobs.run_clock(benv)
    assert len(mails(benv, public_id, seat=1, kind="deadline_warning")) == 1
