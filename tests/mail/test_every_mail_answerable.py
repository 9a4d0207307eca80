"""Every kind of mail the server sends, as it goes out (``build_message``): a mail a
player may answer carries a Reply-To that is that seat's own open reply address (read,
and played or answered); one that cannot be answered says so and has no Reply-To. Every
mail is marked ``Auto-Submitted`` (``auto-replied`` for the answer to a player's mail),
and every mail about games carries a one-click ``List-Unsubscribe`` (RFC 8058)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from pbem.mail.delivery import build_message
from pbem.mail.inbound import reply_tokens
from pbem.services.accounts import address_change, sign_in
from pbem.services.core import access
from pbem.services.mailing import bounces
from pbem.services.mailing.writer import Writer
from pbem.services.play import (
    game_clock,
    game_pages,
    link_recovery,
    moves,
    new_games,
    replies,
    seat_settings,
)
from pbem.services.scheduled import jobs
from pbem.store import players as player_rows
from pbem.store.models import Game, OutboxMessage
from tests.mail.play import new_game, play, to_move, token

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "mail"
#: Every kind of mail there is: a template of its own each.
KINDS = {p.stem for p in TEMPLATES.glob("*.txt") if not p.stem.startswith("_")}
#: An event's notices to a player who joined it (a bye, the final standings): checked by
#: tests/events/test_event_runs.py with ``check_event_notice`` below, on a whole event.
EVENT_NOTICES = {"event_bye", "event_over", "event_cancelled"}
#: Mails that cannot be answered: the game is over, several games at once, or an
#: account's one-time link; each says so in its text.
UNANSWERABLE = {"game_over", "digest", "sign_in", "change_email", "address_taken", "bounced"}
#: Mails a person asked for just now, on the web, to reach their account: switching
#: them off would lock the person out, so they carry no List-Unsubscribe.
ACCOUNT_LINKS = {"sign_in", "change_email", "address_taken"}
NOT_READ = "This mail was sent automatically: a reply to it is not read."
CLOCK = game_clock.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)


class Inspector:
    """Checks each mail as soon as it is queued: a reply address is checked while the
    mail is new, as a player answering it would find it."""

    def __init__(self, env) -> None:
        self.env = env
        self.seen: set[int] = set()
        self.kinds: set[str] = set()
        self.unanswerable: set[str] = set()
        self.mailed_move = False  #: the receipts checked next answer a move mailed in

    def check_new(self) -> None:
        env = self.env
        writer = Writer(env)
        with env.db.read() as session:
            rows = [
                r
                for r in session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))
                if r.id not in self.seen
            ]
            built = []
            for row in rows:
                written = writer.written(session, row)
                row.subject, row.text_body, row.html_body = (
                    written.subject,
                    written.text,
                    written.html,
                )
                row.headers = written.headers
                game = session.get(Game, row.game_id) if row.game_id else None
                built.append((row, build_message(row, env.config.mail_from), game))
            session.expunge_all()
        for row, message, game in built:
            self.seen.add(row.id)
            self.kinds.add(row.kind)
            self._check(row, message, game)

    def _check(self, row, message, game) -> None:
        env = self.env
        replied = row.kind == "refusal" or (row.kind == "receipt" and self.mailed_move)
        expected = "auto-replied" if replied else "auto-generated"
        assert message["Auto-Submitted"] == expected, row.kind
        if row.kind in ACCOUNT_LINKS:
            assert message["List-Unsubscribe"] is None, row.kind
        else:
            assert message["List-Unsubscribe"].startswith("<http://pbem.test/u/"), row.kind
            assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
            token = message["List-Unsubscribe"].strip("<>").rsplit("/", 1)[1]
            assert env.links.open_unsubscribe(token) is not None
            assert env.links.open_seat(token) is None  # it opens no seat
        reply_to = message["Reply-To"]
        if row.kind in UNANSWERABLE or (row.kind == "refusal" and reply_to is None):
            assert reply_to is None, row.kind
            self.unanswerable.add(row.kind)
            assert NOT_READ in row.text_body and NOT_READ in row.html_body, row.kind
            return
        assert reply_to is not None, (row.kind, row.text_body)
        assert NOT_READ not in row.text_body
        (box,) = message["Reply-To"].addresses
        tokens = reply_tokens([box.addr_spec], env.config.reply_address)
        claim = env.links.open_reply(tokens[0]) if tokens else None
        assert claim is not None, (row.kind, reply_to)
        assert (claim.public_id, claim.seat) == (game.public_id, row.seat), row.kind
        assert replies.accepts_recipient(env, box.addr_spec), (row.kind, reply_to)


def _reply(to: str, text: str, mid: str) -> bytes:
    return (
        f"From: someone@example.test\r\nTo: {to}\r\nSubject: Re: Jaipur\r\n"
        f"Message-ID: <{mid}@example.test>\r\n\r\n{text}\r\n"
    ).encode()


def _n(env, public_id: str) -> int:
    return len(game_pages.public_page(env, public_id).entries) + 1


def test_every_kind_of_mail_is_answerable_or_says_it_is_not(env):
    seen = Inspector(env)
    emails = ("ans-ada@example.test", "ans-bo@example.test")
    # a waiting game: both invitations, then the deal
    waiting = new_games.create_game(
        env,
        (new_games.PlayerIn("Ada", emails[0]), new_games.PlayerIn("Bo", emails[1])),
        await_players=True,
    ).public_id
    seen.check_new()
    # a reply to a waiting game's invitation is read, and answered that the game waits
    for seat in (0, 1):
        invited = env.config.reply_to(env.links.reply_token(waiting, seat, 1, 1))
        answer = replies.handle_mail(env, _reply(invited, "take gold", f"wait.{seat}"), [invited])
        assert answer.outcome == "refused", answer
    seen.check_new()
    tokens = game_pages.seat_tokens(env, waiting)
    new_games.accept(env, tokens[0], b"a" * 32, access.Client())
    new_games.accept(env, tokens[1], b"b" * 32, access.Client())
    seen.check_new()
    # a game with a clock: invitations, your turn, receipts, a refusal, a link
    public_id = new_game(env, CLOCK, first=0, emails=emails)
    seen.check_new()
    for seat in (0, 1):
        seat_settings.set_receipts(env, token(env, public_id, seat), "all", access.Client())
    play(env, public_id, 3)
    seen.check_new()
    seat = to_move(env, public_id)
    with env.db.read() as session:
        mover = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        address = env.config.reply_to(
            env.links.reply_token(
                public_id, seat, _n(env, public_id), mover.seats[seat].key_version
            )
        )
    raw = (
        f"From: someone@example.test\r\nTo: {address}\r\nSubject: Re: Jaipur\r\n"
        "Message-ID: <refused.1@example.test>\r\n\r\nfly to the moon\r\n"
    ).encode()
    assert replies.handle_mail(env, raw, [address]).outcome == "refused"
    seen.check_new()
    # a move mailed in: its receipt answers the player's own mail
    legal = game_pages.legal_moves(env, token(env, public_id, seat))[0]
    assert replies.handle_mail(env, _reply(address, legal, "mailed.1"), [address]).outcome == (
        "accepted"
    )
    seen.mailed_move = True
    seen.check_new()
    seen.mailed_move = False
    link_recovery.request_link(env, public_id, emails[1], access.Client())
    seen.check_new()
    # the clock: a reminder, the warning, the timeout
    for hours in (25, 23, 25):
        env.clock.advance(hours=hours)
        jobs.run_clock(env)
        seen.check_new()
    # a daily digest
    digest_game = new_game(env, first=0, emails=emails)
    seat_settings.set_mail_mode(env, token(env, digest_game, 0), "digest", access.Client())
    env.clock.advance(days=1)
    jobs.send_digests(env)
    seen.check_new()
    # game over, and a reply to it refused without a Reply-To
    late = to_move(env, public_id)
    moves.resign(env, token(env, public_id, late), _n(env, public_id), access.Client())
    seen.check_new()
    address = env.config.reply_to(env.links.reply_token(public_id, late, _n(env, public_id) - 1, 1))
    raw = raw.replace(b"<refused.1@", b"<refused.2@").replace(
        raw.split(b"\r\n")[1], f"To: {address}".encode()
    )
    assert replies.handle_mail(env, raw, [address]).outcome == "refused"
    seen.check_new()
    # an account's mails: sign in, a new address, an address already taken
    sign_in.request_sign_in(env, emails[0], access.Client())
    with env.db.read() as session:
        ada = player_rows.by_email(session, emails[0])
        assert ada is not None
        ada_id = ada.id
    address_change.request_email_change(env, ada_id, "ans-new@example.test", access.Client())
    address_change.request_email_change(env, ada_id, emails[1], access.Client())
    seen.check_new()
    # a mail to Bo bounces: Ada, in the game still running, is told
    with env.db.read() as session:
        to_bo = session.scalars(
            select(OutboxMessage.id).where(OutboxMessage.to_addr == emails[1])
        ).all()[-1]
    bounce = (
        b"From: MAILER-DAEMON@example.test\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        b"\r\nThe mail could not be delivered: user unknown.\r\n"
    )
    address = bounces.return_path(env)(to_bo)
    assert bounces.handle_bounce(env, bounce, [address]).outcome == "bounced"
    seen.check_new()
    assert seen.unanswerable == UNANSWERABLE | {"refusal"}  # the refusal of a finished game
    assert seen.kinds == KINDS - EVENT_NOTICES, (
        sorted(KINDS - seen.kinds),
        sorted(seen.kinds - KINDS),
    )


def check_event_notice(env, row) -> None:
    """An event's bye or final standings, as it goes out: automatic, not answerable (it
    says so and has no Reply-To) and, like an account's mail, one the person asked for by
    joining the event, so it carries no List-Unsubscribe."""
    assert row.kind in EVENT_NOTICES
    message = build_message(row, env.config.mail_from)
    assert message["Auto-Submitted"] == "auto-generated"
    assert message["Reply-To"] is None and message["List-Unsubscribe"] is None
    assert NOT_READ in row.text_body and NOT_READ in row.html_body


#: What a mail that carries a Reply-To but asks for no move yet says a reply does.
ANSWERED = (
    "A reply to this mail is read and answered with what the game waits for; to move by "
    "mail, reply to the mail that says it is your turn."
)


def test_a_mail_that_asks_for_no_move_yet_says_what_a_reply_does(env):
    """The invitations of a waiting game and the deal's mail to the player who does not
    move first carry a Reply-To: each says, in text and HTML, what a reply does, and a
    reply does that (answered, even with a move once it is that seat's turn: the move is
    played from the "your turn" mail). A mail that asks for the move says how to move by
    mail instead."""
    from tests.helpers import mails

    emails = ("said-ada@example.test", "said-bo@example.test")
    public_id = new_games.create_game(
        env,
        (new_games.PlayerIn("Ada", emails[0]), new_games.PlayerIn("Bo", emails[1])),
        await_players=True,
        first_player=0,
    ).public_id
    for seat in (0, 1):
        (invitation,) = mails(env, public_id, seat, "invitation")
        assert invitation.headers.get("Reply-To"), seat
        flat = " ".join(invitation.text_body.split())
        assert ANSWERED in flat and ANSWERED in " ".join(invitation.html_body.split()), seat
    tokens = game_pages.seat_tokens(env, public_id)
    new_games.accept(env, tokens[0], b"a" * 32, access.Client())
    new_games.accept(env, tokens[1], b"b" * 32, access.Client())
    (first,) = mails(env, public_id, 0, "dealt")
    (second,) = mails(env, public_id, 1, "dealt")
    assert ANSWERED not in " ".join(first.text_body.split())
    assert "To move by mail" in first.text_body
    for body in (second.text_body, second.html_body):
        assert ANSWERED in " ".join(body.split())
    address = second.headers["Reply-To"]
    early = replies.handle_mail(env, _reply(address, "take camels", "said.1"), [address])
    assert early.outcome == "refused"  # read, and answered: it is not Bo's turn
    play(env, public_id, 1)  # Ada's first move: now it is Bo's turn
    legal = game_pages.legal_moves(env, tokens[1])
    late = replies.handle_mail(env, _reply(address, legal[0], "said.2"), [address])
    assert late.outcome == "refused" and "position as it is now" in late.detail, late
    (turn,) = mails(env, public_id, 1, "your_turn")
    there = turn.headers["Reply-To"]
    played = replies.handle_mail(env, _reply(there, legal[0], "said.3"), [there])
    assert played.outcome == "accepted", played
