"""A move's mails are queued unwritten and written from the log as they are sent.

What a mail says must not depend on when it is written: the log is append-only,
so entry ``n`` and the position after it are the same at any later time.
"""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select

from pbem.mail import outbox_row
from pbem.mail.delivery import SmtpBackend
from pbem.services.core import access
from pbem.services.play import game_pages, moves
from pbem.services.scheduled import jobs
from pbem.store import outbox as outbox_store
from pbem.store.models import Game, OutboxMessage
from tests.helpers import mails, past_the_hold
from tests.mail.play import ask_receipts, new_game, play, to_move, token
from tests.mail.test_delivery import deliver_all

TOLD = {"your_turn", "receipt", "game_over", "timeout"}


def stored(env, public_id: str) -> list[OutboxMessage]:
    """The game's outbox rows exactly as the database holds them."""
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        query = select(OutboxMessage).where(OutboxMessage.game_id == game.id)
        return list(session.scalars(query.order_by(OutboxMessage.id)))


def words(rows: list[OutboxMessage]) -> dict[str, tuple]:
    return {r.message_id: (r.subject, r.text_body, r.html_body, r.headers) for r in rows}


def test_a_move_queues_its_mails_without_words(env):
    public_id = new_game(env)
    ask_receipts(env, public_id)  # a web move's receipt is sent only when asked for
    play(env, public_id, 1)
    rows = stored(env, public_id)
    told = [r for r in rows if r.about_n == 1]
    assert sorted(r.kind for r in told) == ["receipt", "your_turn"]
    assert all(r.subject is None and r.text_body is None and r.html_body is None for r in told)
    # mails that do not tell of a move are written when queued, as before
    assert all(r.text_body and r.about_n is None for r in rows if r.kind not in TOLD)


def test_what_a_mail_says_does_not_depend_on_when_it_is_written(env):
    public_id = new_game(env)
    ask_receipts(env, public_id)
    play(env, public_id, 2)
    early = words([m for m in mails(env, public_id) if m.about_n in (1, 2)])
    play(env, public_id, 8)  # the game moves on; each mails() call writes with a new Writer
    late = words([m for m in mails(env, public_id) if m.about_n in (1, 2)])
    assert early == late and len(early) == 4
    turn = next(text for subject, text, *_ in early.values() if "your turn (move 3)" in subject)
    assert "move 2" in turn.lower()


@pytest.mark.slow
def test_a_sent_mail_keeps_the_words_that_went_out(smtp_env, smtp_server):
    env = smtp_env
    public_id = new_game(env)
    ask_receipts(env, public_id)
    play(env, public_id, 3)
    past_the_hold(env)
    assert deliver_all(env) >= 6
    by_id = {m["Message-ID"]: m for m in smtp_server.received}
    told = [r for r in stored(env, public_id) if r.kind in TOLD]
    assert len(told) == 6
    for row in told:
        assert row.status == "sent" and row.text_body and row.html_body
        got = by_id[row.message_id]
        assert got["Subject"] == row.subject
        assert got.get_body(("plain",)).get_content().replace("\r\n", "\n") == row.text_body
        assert got["Content-Language"] == row.headers["Content-Language"] == "en"
    assert any("Reply-To" in r.headers for r in told if r.kind == "your_turn")


def test_a_mail_that_cannot_be_written_waits_with_the_reason_and_the_rest_go_out(
    smtp_env, smtp_server
):
    env = smtp_env
    public_id = new_game(env)
    play(env, public_id, 1)
    with env.db.write() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        broken = outbox_row.message(
            now=env.clock.now(),
            mail_from=env.config.mail_from,
            kind="your_turn",
            to="Ada <ada@example.test>",
            game_id=game.id,
            seat=0,
            about_n=40,  # no such move in the log
        )
        outbox_store.queue(session, broken)
    past_the_hold(env)
    deliver_all(env)
    rows = {r.message_id: r for r in stored(env, public_id)}
    row = rows[broken["message_id"]]
    assert row.status == "pending" and row.attempts == 1 and row.text_body is None
    assert row.last_error.startswith("not written:") and "no logged move 40" in row.last_error
    others = [r for r in rows.values() if r is not row]
    assert others and all(r.status == "sent" for r in others)
    assert broken["message_id"] not in {m["Message-ID"] for m in smtp_server.received}
    assert jobs.deliver_mail(env, SmtpBackend(env.config)) == 0  # it backs off


def test_the_dev_inbox_shows_an_unwritten_mail_and_writes_nothing(client, env):
    public_id = new_game(env)
    play(env, public_id, 1)
    inbox = client.get("/dev/inbox")
    assert inbox.status_code == 200 and "your turn (move 2)" in inbox.text
    row = next(r for r in stored(env, public_id) if r.kind == "your_turn")
    page = client.get(f"/dev/inbox/{row.id}")
    assert page.status_code == 200 and "http://pbem.test/s/" in page.text
    html = client.get(f"/dev/inbox/{row.id}/html")
    assert html.status_code == 200 and "Hello Bo," in html.text
    assert next(r for r in stored(env, public_id) if r.id == row.id).text_body is None


def play_out(env, public_id: str, rnd: random.Random) -> None:
    """Random legal moves to the game's end (always the first would never end it)."""
    while (seat := to_move(env, public_id)) is not None:
        t = token(env, public_id, seat)
        n = len(game_pages.public_page(env, public_id).entries) + 1
        move = rnd.choice(game_pages.legal_moves(env, t))
        moves.submit_move(env, t, n, move, access.Client())


@pytest.mark.slow  # a whole match
def test_the_mails_of_the_move_that_ends_a_round_tell_of_the_round(env):
    public_id = new_game(env)
    play_out(env, public_id, random.Random(3))
    told = [m for m in mails(env, public_id) if m.kind in ("your_turn", "receipt")]
    over = mails(env, public_id, seat=0, kind="game_over")[0]
    rounds = over.html_body.count(" is over:")  # the game-over mail lists every round
    assert rounds >= 2
    assert {m.kind for m in told} == {"your_turn"}  # no receipt of a web move by default
    for number in range(1, rounds):  # the last round's end is told by the game-over mail
        ending = [m for m in told if f"Round {number} is over" in m.text_body]
        # both seats, once each: the next "your turn" of each seat after the move that
        # ended it (its mover hears of it with the other player's next move, or at once
        # if the mover starts the next round)
        assert sorted(m.seat for m in ending) == [0, 1]
        assert max(m.about_n for m in ending) - min(m.about_n for m in ending) <= 1
