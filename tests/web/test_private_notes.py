"""A note to the opponent is the two players' own: their pages, replays and audits show it,
no public page, replay, audit, record or evidence file does."""

from __future__ import annotations

from pbem.services.core import access
from pbem.services.play import game_pages, moves
from tests.mail.play import new_game, token
from tests.support import play_random

NOTE = "Psst, Bo: the oasis at dawn"


def test_a_note_is_shown_to_both_seats_and_never_publicly(client, env):
    public_id = new_game(env, first=0)
    first_move = game_pages.legal_moves(env, token(env, public_id, 0))[0]
    moves.submit_move(env, token(env, public_id, 0), 1, first_move, access.Client(), message=NOTE)

    for seat in (0, 1):  # while the game runs
        assert NOTE in client.get(f"/s/{token(env, public_id, seat)}").text
    assert NOTE not in client.get(f"/g/{public_id}").text
    assert all(e.message is None for e in game_pages.public_page(env, public_id).entries)

    play_random(env, public_id)
    public = [
        f"/g/{public_id}",
        f"/g/{public_id}/replay?n=1",
        f"/g/{public_id}/replay?n=1&as=1",
        f"/g/{public_id}/audit/1",
        f"/g/{public_id}/audit/1/evidence.json",
        f"/g/{public_id}/record.json",
    ]
    for url in public:
        response = client.get(url)
        assert response.status_code == 200, url
        assert NOTE not in response.get_data(as_text=True), url
    for seat in (0, 1):
        link = f"/s/{token(env, public_id, seat)}"
        for url in (f"{link}/replay?n=1", f"{link}/audit/1"):
            response = client.get(url)
            assert response.status_code == 200, url
            assert NOTE in response.text, url
