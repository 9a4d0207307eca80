"""The account's "only invitations" mail mode is written on every seat of the account,
PostgreSQL included (``seats.mail_mode`` holds it since migration 0018), and those seats
get no "your turn" mail and no digest."""

from __future__ import annotations

from sqlalchemy import select

from pbem.services.accounts import account_settings
from pbem.services.core import access
from pbem.services.scheduled import jobs
from pbem.store.models import Game, OutboxMessage, Player
from tests.mail.play import new_game, play

EMAILS = ("only-inv-ada@example.test", "only-inv-bo@example.test")


def test_only_invitations_reaches_every_seat_and_stops_their_turn_mail(env):
    public_id = new_game(env, first=0, emails=EMAILS)
    with env.db.read() as session:
        bo = session.scalars(select(Player).where(Player.email == EMAILS[1])).one()
    changed = account_settings.update_settings(
        env, bo.id, mail_mode="invitations", client=access.Client()
    )
    assert changed == ["mail_mode"]
    play(env, public_id, 1)  # Ada moves: Bo's turn
    env.clock.advance(days=1)
    jobs.send_digests(env)
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        assert game.seats[1].mail_mode == "invitations"
        kinds = [
            row.kind
            for row in session.scalars(
                select(OutboxMessage).where(OutboxMessage.to_addr == EMAILS[1])
            )
        ]
    assert kinds == ["invitation"]
