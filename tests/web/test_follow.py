"""A seat page that waits for the other player follows the game (issue 32, 7): it asks the
log's length, public and cheap, and asks for itself once the log has moved past it."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from pbem.services.core import access
from pbem.services.play import computer, game_pages, moves, new_games
from pbem.store.models import AccessLog, OutboxMessage
from tests.mail.play import new_game, to_move, token

FOLLOW = re.compile(
    r'<div id="follow" hidden data-url="([^"]+)" data-n="(\d+)"'
    r' data-page="([^"]+)" data-every="(\d+)">'
)


def rows(env, table) -> int:
    with env.db.read() as session:
        return session.scalar(select(func.count()).select_from(table)) or 0


def test_the_log_length_is_public_cheap_and_writes_nothing(env, client):
    public_id = new_game(env)
    assert client.get(f"/g/{public_id}/n").get_json() == {"n": 0, "dealt": True}
    seat = to_move(env, public_id)
    t = token(env, public_id, seat)
    moves.submit_move(env, t, 1, game_pages.legal_moves(env, t)[0], access.Client())
    written = rows(env, AccessLog), rows(env, OutboxMessage)
    answer = client.get(f"/g/{public_id}/n")
    assert answer.get_json() == {"n": 1, "dealt": True}
    assert answer.headers["Cache-Control"] == "no-store"
    assert (rows(env, AccessLog), rows(env, OutboxMessage)) == written  # GET changes nothing
    assert client.get("/g/nosuchgame/n").status_code == 404


def test_the_page_that_waits_for_a_person_follows_and_the_one_to_move_does_not(env, client):
    public_id = new_game(env)
    seat = to_move(env, public_id)
    waiting = client.get(f"/s/{token(env, public_id, 1 - seat)}").text
    assert "Waiting for" in waiting
    url, n, page, every = FOLLOW.search(waiting).groups()
    assert (url, n, every) == (f"/g/{public_id}/n", "0", "2000")
    assert page == f"/s/{token(env, public_id, 1 - seat)}"
    assert "/static/follow.js" in waiting and "/static/swap.js" in waiting
    mine = client.get(f"/s/{token(env, public_id, seat)}").text
    assert 'id="follow"' not in mine and "follow.js" not in mine
    assert "/static/seat.js" in mine and "/static/swap.js" in mine


def test_the_computers_turn_is_followed_more_closely(env, client):
    created = computer.start(
        env, new_games.PlayerIn("Ada", "follow@example.test"), "easy", contribution=bytes(32)
    )
    t = created.tokens[0]
    page = game_pages.seat_page(env, t, access.Client())
    if not page.thinking:
        moves.submit_move(env, t, page.next_n, game_pages.legal_moves(env, t)[0], access.Client())
    shown = client.get(f"/s/{t}").text
    assert "The computer is thinking…" in shown
    assert FOLLOW.search(shown).group(4) == "250"
