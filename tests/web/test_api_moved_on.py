"""The API's 409 ("the game has moved on: here is the current position") sends the position."""

from __future__ import annotations

from pbem.services.play import game_pages
from tests.mail.play import new_game, play, token


def _bearer(t: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {t}"}


def test_a_stale_move_gets_the_current_position(client, env):
    public_id = new_game(env, first=0)
    play(env, public_id, 2)  # seat 0 is to move again, at move 3
    t0 = token(env, public_id, 0)
    current = client.get("/api/seat", headers=_bearer(t0)).get_json()
    assert current["next_n"] == 3
    move = game_pages.legal_moves(env, t0)[0]
    for url in ("/api/seat/moves", "/api/seat/preview"):
        stale = client.post(url, json={"n": 2, "move": move}, headers=_bearer(t0))
        assert stale.status_code == 409, stale.get_json()
        body = stale.get_json()
        assert "here is the current position" in body["error"]
        assert body["position"] == current  # what GET /api/seat says, the seat's view only
    assert client.get("/api/seat", headers=_bearer(t0)).get_json()["next_n"] == 3  # no move


def test_other_refusals_carry_no_position(client, env):
    public_id = new_game(env, first=0)
    t1 = token(env, public_id, 1)  # not seat 1's turn
    refused = client.post("/api/seat/moves", json={"n": 1, "move": "camels"}, headers=_bearer(t1))
    assert refused.status_code != 409 and "position" not in refused.get_json()
