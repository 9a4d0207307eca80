"""Seat links as capabilities; GET changes nothing; every refusal records nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from pbem.services.core import errors
from pbem.services.records import game_records
from pbem.store.models import AccessLog, Game, MoveRow, OutboxMessage
from tests.helpers import csrf_of, link_in, mails, next_n_of
from tests.web.test_play import omniscient, start_game


def counts(env, public_id) -> tuple[int, int, int]:
    """(moves, outbox rows, key versions) of a game: what a refused request must not change."""
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        moves = session.scalar(select(func.count()).where(MoveRow.game_id == game.id))
        outbox = session.scalar(select(func.count()).where(OutboxMessage.game_id == game.id))
        return moves, outbox, sum(s.key_version for s in game.seats)


def seat_link(env, public_id, seat: int) -> str:
    return link_in(mails(env, public_id, seat=seat)[-1])


def mover_link(env, public_id) -> tuple[str, int]:
    seat = omniscient(env, public_id).to_move
    return seat_link(env, public_id, seat), seat


@pytest.fixture
def game(client, env) -> str:
    return start_game(client)


def flip(token: str, i: int) -> str:
    c = token[i]
    return token[:i] + ("A" if c != "A" else "B") + token[i + 1 :]


def assert_forbidden_and_silent(response, env, public_id) -> None:
    assert response.status_code == 403
    body = response.get_data(as_text=True)
    assert public_id not in body
    assert "Ada" not in body and "Bo" not in body  # nothing about the game it claims
    assert "This link does not open a game" in body


def test_forged_altered_revoked_and_cross_game_tokens_get_403(client, env, game):
    link = seat_link(env, game, 0)
    token = link.split("/")[-1]
    other = start_game(client, ("Cy", "cy@example.test"), ("Di", "di@example.test"))
    before = counts(env, game)

    forged = env.links.__class__("another-secret").seat_token(game, 0, 1)
    payload_flipped = flip(token, 3)
    signature_flipped = flip(token, len(token) - 3)
    too_long = token + "A" * 300  # refused before any signature check (and never cached)
    for bad in (forged, payload_flipped, signature_flipped, "nonsense", "a.b.c", too_long):
        assert_forbidden_and_silent(client.get(f"/s/{bad}"), env, game)
        assert (
            client.get("/api/seat", headers={"Authorization": f"Bearer {bad}"}).status_code == 403
        )

    # a genuine token of another game opens that game only, never this one's export
    other_token = seat_link(env, other, 0).split("/")[-1]
    response = client.get(f"/g/{game}/record.json")  # running game: no public record
    assert response.status_code == 403
    assert "Not allowed" in response.text and "does not open a game" not in response.text
    with pytest.raises(errors.NotAllowed):
        game_records.export_record(env, game, other_token)

    # revoked: after re-issuing, the old link is refused and the new one works
    page = client.get(link)
    response = client.post(f"{link}/reissue", data={"csrf_token": csrf_of(page.text)})
    assert response.status_code == 200
    assert_forbidden_and_silent(client.get(link), env, game)
    new = mails(env, game, seat=0, kind="link")[-1]
    assert link_in(new) != link
    assert client.get(link_in(new)).status_code == 200
    moves, _, versions = counts(env, game)
    assert moves == before[0] and versions == before[2] + 1


def test_get_requests_change_nothing(client, env, game):
    link, _ = mover_link(env, game)
    token = link.split("/")[-1]
    before = counts(env, game)
    for path in (
        link,
        f"{link}/export",
        f"/g/{game}",
        "/",
        f"/g/{game}/created",
        f"{link}/move",
        f"{link}/preview",
        f"{link}/resign",
        f"{link}/reissue",
    ):
        client.get(path)
    client.get("/api/seat", headers={"Authorization": f"Bearer {token}"})
    client.get("/api/seat/legal-moves", headers={"Authorization": f"Bearer {token}"})
    assert counts(env, game) == before


def test_a_move_needs_the_csrf_token(client, env, game):
    link, _ = mover_link(env, game)
    move = str(omniscient(env, game).legal_moves()[0])
    before = counts(env, game)
    for data in ({"n": 1, "move": move}, {"n": 1, "move": move, "csrf_token": "wrong"}):
        response = client.post(f"{link}/move", data=data)
        assert response.status_code == 400
        assert "expired" in response.text
    assert counts(env, game) == before


def test_a_stale_move_number_says_the_game_has_moved_on(client, env, game):
    link, _ = mover_link(env, game)
    page = client.get(link)
    move = str(omniscient(env, game).legal_moves()[0])
    ok = client.post(f"{link}/move", data={"csrf_token": csrf_of(page.text), "n": 1, "move": move})
    assert ok.status_code == 303
    before = counts(env, game)
    again = client.post(
        f"{link}/move", data={"csrf_token": csrf_of(page.text), "n": 1, "move": move}
    )
    assert again.status_code == 409
    assert "The game has moved on" in again.text
    assert counts(env, game) == before


def test_an_illegal_move_shows_the_rules_reason_and_records_nothing(client, env, game):
    link, _seat = mover_link(env, game)
    page = client.get(link)
    before = counts(env, game)
    response = client.post(
        f"{link}/preview",
        data={
            "csrf_token": csrf_of(page.text),
            "n": next_n_of(page.text),
            "move": "exchange diamond gold silver for camel camel camel",
        },
    )
    assert response.status_code == 422
    assert "cannot take" in response.text or "herd" in response.text or "hand" in response.text
    response = client.post(
        f"{link}/move",
        data={
            "csrf_token": csrf_of(page.text),
            "n": next_n_of(page.text),
            "move": "sell 1 diamond",
        },
    )
    assert response.status_code == 422
    assert "at least 2 at a time" in response.text or "you hold" in response.text
    response = client.post(
        f"{link}/move", data={"csrf_token": csrf_of(page.text), "n": 1, "move": "fly to the moon"}
    )
    assert response.status_code == 422 and "is not a move" in response.text
    assert counts(env, game) == before
    with env.db.read() as session:
        refused = session.scalars(select(AccessLog).where(AccessLog.action == "refused")).all()
    assert any("fly to the moon" in (r.detail or "") for r in refused)


def test_moving_out_of_turn_is_refused(client, env, game):
    seat = 1 - omniscient(env, game).to_move
    link = seat_link(env, game, seat)
    page = client.get(link)
    assert "Waiting for" in page.text and 'action="' + link + '/preview"' not in page.text
    token = link.split("/")[-1]
    response = client.post(
        "/api/seat/moves",
        json={"n": 1, "move": "camels"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 422
    assert response.get_json()["code"] == "not_your_turn"


def test_preview_describes_the_move_before_confirm(client, env, game):
    link, _seat = mover_link(env, game)
    page = client.get(link)
    response = client.post(
        f"{link}/preview", data={"csrf_token": csrf_of(page.text), "n": 1, "move": "CAMELS"}
    )
    assert response.status_code == 200
    assert "You take all" in response.text and "Confirm: camels" in response.text
    assert counts(env, game)[0] == 0


def test_resign_ends_the_game_and_publishes_the_record(client, env, game):
    link, seat = mover_link(env, game)
    page = client.get(link)
    unconfirmed = client.post(f"{link}/resign", data={"csrf_token": csrf_of(page.text), "n": 1})
    assert unconfirmed.status_code == 400
    response = client.post(
        f"{link}/resign", data={"csrf_token": csrf_of(page.text), "n": 1, "confirm": "yes"}
    )
    assert response.status_code == 303
    final = omniscient(env, game)
    assert final.is_over and final.winner == 1 - seat and final.resigned == seat
    assert len(mails(env, game, kind="game_over")) == 2
    record = client.get(f"/g/{game}/record.json").get_json()
    assert record["moves"][-1]["move"] == "resign"
    assert record["result"]["winner"] == 1 - seat


def test_send_me_my_link_answers_the_same_and_is_rate_limited(client, env, game):
    page = client.get(f"/g/{game}")
    csrf = csrf_of(page.text)
    known = client.post(
        f"/g/{game}/link",
        data={"csrf_token": csrf, "email": "ADA@example.test"},
        follow_redirects=True,
    )
    unknown = client.post(
        f"/g/{game}/link",
        data={"csrf_token": csrf, "email": "eve@evil.test"},
        follow_redirects=True,
    )
    assert known.status_code == unknown.status_code == 200
    assert "If that address belongs to a player" in known.text
    assert "If that address belongs to a player" in unknown.text
    links = mails(env, game, kind="link")
    assert len(links) == 1 and links[0].seat == 0
    assert client.get(link_in(links[0])).status_code == 200
    for _ in range(10):
        last = client.post(
            f"/g/{game}/link", data={"csrf_token": csrf, "email": "ada@example.test"}
        )
    assert last.status_code == 429
    assert len(mails(env, game, kind="link")) <= 3


def test_seat_export_of_a_running_game_is_that_seats_view(client, env, game):
    link = seat_link(env, game, 0)
    data = client.get(f"{link}/export").get_json()
    assert data["format"] == "jaipur-record/2" and data["seed"] is None
    assert data["view"]["seat"] == 0
    assert "hand" not in data["view"]["opponent"]
    state = omniscient(env, game)
    assert data["view"]["me"]["hand"] == [c.word for c in state.round.hand(0)]
    assert state.seed.hex() not in str(data)


def test_api_plays_a_move(client, env, game):
    link, _seat = mover_link(env, game)
    token = link.split("/")[-1]
    auth = {"Authorization": f"Bearer {token}"}
    legal = client.get("/api/seat/legal-moves", headers=auth).get_json()["moves"]
    assert client.post("/api/seat/moves", data="nope", headers=auth).status_code == 400
    assert client.post("/api/seat/moves", json={"move": legal[0]}, headers=auth).status_code == 400
    done = client.post("/api/seat/moves", json={"n": 1, "move": legal[0]}, headers=auth)
    assert done.status_code == 201
    assert done.get_json()["n"] == 1
    again = client.post("/api/seat/moves", json={"n": 1, "move": legal[0]}, headers=auth)
    assert again.status_code == 409
    assert client.get("/api/seat").status_code == 403


def test_security_headers(client):
    response = client.get("/")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["Referrer-Policy"] == "no-referrer"


def test_oversized_bodies_and_malformed_json_are_refused(client, env, game):
    link, _ = mover_link(env, game)
    token = link.split("/")[-1]
    before = counts(env, game)
    big = client.post(f"{link}/move", data={"move": "x" * (300 * 1024), "n": 1})
    assert big.status_code == 413 and "too large" in big.text
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    for body in ("{not json", "[1, 2]", '{"n": "one", "move": "camels"}', '{"n": true}'):
        answer = client.post("/api/seat/moves", data=body, headers=auth)
        assert answer.status_code == 400, body
        assert answer.get_json()["error"]
    assert counts(env, game) == before
