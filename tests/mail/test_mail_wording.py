"""A refused reply is told about the mail, never about a web page it never loaded (issue
31, follow-up): "This game has moved on since that mail was sent", "This game is over",
in the refusal mail, the operator's inbound log and the access log the audit shows."""

from __future__ import annotations

from sqlalchemy import select

from pbem.services.core.access import Client
from pbem.services.play import game_pages, moves, replies
from pbem.store.models import AccessLog, InboundMail, OutboxMessage
from tests.mail.play import new_game, token
from tests.mail.test_replies import reply, reply_to_of

WEB = "since you loaded this page"


def _said(env) -> str:
    with env.db.read() as session:
        texts = list(session.scalars(select(AccessLog.detail)).all())
        texts += session.scalars(select(InboundMail.detail)).all()
        texts += session.scalars(
            select(OutboxMessage.text_body).where(OutboxMessage.kind == "refusal")
        ).all()
    return "\n".join(str(t) for t in texts)


def _move(env, public_id: str, seat: int) -> None:
    t = token(env, public_id, seat)
    moves.submit_move(
        env,
        t,
        game_pages.seat_page(env, t, Client()).next_n,
        game_pages.legal_moves(env, t)[0],
        Client(),
    )


def test_a_reply_to_a_finished_game_is_told_the_game_is_over(smtp_env):
    env = smtp_env
    public_id = new_game(env, first=0)
    old = reply_to_of(env, public_id, 0)  # the address of move 1
    _move(env, public_id, 0)
    t = token(env, public_id, 1)
    moves.resign(env, t, game_pages.seat_page(env, t, Client()).next_n, Client())
    outcome = replies.handle_mail(env, bytes(reply(old, "camels")))
    assert outcome.outcome == "refused"
    said = _said(env)
    assert WEB not in said and WEB not in outcome.detail
    assert "This game is over" in outcome.detail and "This game is over" in said


def test_a_reply_to_an_old_mail_is_told_the_game_moved_on_since_that_mail(smtp_env):
    env = smtp_env
    public_id = new_game(env, first=0)
    old = reply_to_of(env, public_id, 0)
    _move(env, public_id, 0)
    _move(env, public_id, 1)
    outcomes = [replies.handle_mail(env, bytes(reply(old, "camels"))) for _ in range(7)]
    assert all(o.outcome == "refused" for o in outcomes)
    said = _said(env) + "\n".join(o.detail for o in outcomes)
    assert WEB not in said
    assert "moved on since that mail was sent" in outcomes[-1].detail  # beyond the cap too
