"""A whole game through the HTTP interface, using only the links found in the outbox."""

from __future__ import annotations

import json
import random
import re
import secrets
from collections import Counter

import pytest

from pbem.engine import Match, load_record, position_json, verify
from pbem.services.play import game_pages
from pbem.services.records import game_records
from tests.helpers import csrf_of, link_in, mails, next_n_of

CARD_FACE = re.compile(r'class="card card-(\w+)(?: small)?"')


def start_game(client, my=("Ada", "ada@example.test"), their=("Bo", "bo@example.test")) -> str:
    home = client.get("/")
    assert home.status_code == 200
    response = client.post(
        "/",
        data={
            "csrf_token": csrf_of(home.text),
            "my_name": my[0],
            "my_email": my[1],
            "their_name": their[0],
            "their_email": their[1],
        },
    )
    assert response.status_code == 303
    public_id = response.headers["Location"].split("/")[2]
    created = client.get(response.headers["Location"])
    assert "Both players have been sent an email" in created.text
    for seat, words in ((0, None), (1, "a phrase of my own")):  # both accept: the deal
        link = link_in(mails(client.application.extensions["pbem"], public_id, seat=seat)[-1])
        page = client.get(link)
        assert "Accept the game" in page.text
        entropy = None if words else secrets.token_hex(32)
        accepted = client.post(
            f"{link}/accept",
            data={
                "csrf_token": csrf_of(page.text),
                "entropy": entropy or "",
                "phrase": words or "",
            },
        )
        assert accepted.status_code == 303, accepted.text
    return public_id


def omniscient(env, public_id) -> Match:
    """The full state, the way only the operator (and the tests) can see it."""
    data = game_records.operator_record(env, public_id)
    from pbem.engine import replay

    return replay(load_record(data))


def assert_shows_only_own_cards(html: str, state: Match, seat: int) -> None:
    """Every card face on a seat page is in the market, the seat's hand or its herd."""
    board = html.split('id="board"', 1)[1].split("</section>", 1)[0]
    faces = Counter(CARD_FACE.findall(board))
    r = state.round
    expected = Counter(c.word for c in r.market_cards()) + Counter(c.word for c in r.hand(seat))
    expected["camel"] += r.herds[seat]
    assert faces == expected
    deck = " ".join(c.word for c in r.deck_cards()[:6])
    assert len(r.deck_cards()) < 6 or deck not in html


@pytest.mark.slow  # a whole game: four requests a move, for over a hundred moves
def test_a_whole_game_played_through_the_outbox_links(client, env):
    public_id = start_game(client)
    invitations = mails(env, public_id, kind="invitation")
    assert len(invitations) == 2
    seed_hex = omniscient(env, public_id).seed.hex()
    commitment = game_pages.public_page(env, public_id).game.commitment
    assert all(commitment in m.text_body and seed_hex not in m.text_body for m in invitations)
    rnd = random.Random(4)
    moves = 0
    while True:
        state = omniscient(env, public_id)
        if state.is_over:
            break
        seat = state.to_move
        link = link_in(mails(env, public_id, seat=seat)[-1])  # the newest mail to that seat
        page = client.get(link)
        assert page.status_code == 200
        assert seed_hex not in page.text
        assert_shows_only_own_cards(page.text, state, seat)
        token = link.split("/")[-1]
        legal = client.get(
            "/api/seat/legal-moves", headers={"Authorization": f"Bearer {token}"}
        ).get_json()["moves"]
        assert sorted(legal) == sorted(str(m) for m in state.legal_moves())
        choice = rnd.choice(legal)
        n = next_n_of(page.text)
        preview = client.post(
            f"{link}/preview", data={"csrf_token": csrf_of(page.text), "n": n, "move": choice}
        )
        assert preview.status_code == 200, preview.text
        assert f"Confirm: {choice}" in preview.text
        done = client.post(
            f"{link}/move", data={"csrf_token": csrf_of(preview.text), "n": n, "move": choice}
        )
        assert done.status_code == 303, done.text
        moves += 1
        assert moves < 1000

    final = omniscient(env, public_id)
    assert final.is_over
    overs = mails(env, public_id, kind="game_over")
    assert len(overs) == 2
    assert all(seed_hex in m.text_body for m in overs)
    final_hash = game_records.operator_record(env, public_id)["moves"][-1]["hash"]
    assert all(final_hash in m.text_body and final_hash in m.html_body for m in overs)
    # one mail a move on default settings: "your turn" to the player to move, no receipt
    kinds = Counter(m.kind for m in mails(env, public_id))
    assert kinds == {"invitation": 2, "dealt": 2, "your_turn": moves - 1, "game_over": 2}

    # after the end the record is public, and verifies offline
    record = client.get(f"/g/{public_id}/record.json")
    assert record.status_code == 200
    loaded = load_record(record.data)
    assert len(loaded.moves) == moves
    report = verify(loaded)
    assert report.ok, report.first_failure
    assert position_json(report.final) == position_json(final)
    public = client.get(f"/g/{public_id}")
    assert seed_hex in public.text
    assert "Download the game record" in public.text


def test_each_turn_mail_carries_the_move_hash_and_the_next_link(client, env):
    public_id = start_game(client)
    state = omniscient(env, public_id)
    mover = state.to_move
    link = link_in(mails(env, public_id, seat=mover)[-1])
    page = client.get(link)
    move = str(state.legal_moves()[0])
    client.post(f"{link}/move", data={"csrf_token": csrf_of(page.text), "n": 1, "move": move})
    turn = mails(env, public_id, seat=1 - mover, kind="your_turn")
    # one mail a move: the mover of a web move gets no receipt unless asked for (it saw
    # the move recorded on the page); the chain hash goes to the other player
    assert len(turn) == 1 and mails(env, public_id, seat=mover, kind="receipt") == []
    record = game_records.operator_record(env, public_id)
    chain = record["moves"][0]["hash"]
    assert chain in turn[0].text_body
    assert "your turn (move 2)" in turn[0].subject
    assert turn[0].headers["References"] == f"<game.{public_id}.seat{1 - mover}@localhost>"
    assert turn[0].headers["Reply-To"].startswith("play+")
    assert client.get(link_in(turn[0])).status_code == 200


def test_seat_api_view_holds_nothing_the_seat_may_not_see(client, env):
    public_id = start_game(client)
    state = omniscient(env, public_id)
    for seat in (0, 1):
        token = link_in(mails(env, public_id, seat=seat)[-1]).split("/")[-1]
        data = client.get("/api/seat", headers={"Authorization": f"Bearer {token}"}).get_json()
        view = data["view"]
        assert set(view) == {"table", "me", "opponent"}
        assert set(view["opponent"]) == {"seat", "hand_size", "herd", "goods_tokens", "bonus_count"}
        assert view["opponent"]["herd"] == state.round.herds[1 - seat]  # camels move in the open
        assert view["me"]["hand"] == [c.word for c in state.round.hand(seat)]
        assert "bonus" not in view["table"] and "deck" not in view["table"]
        blob = json.dumps(data)
        assert state.seed.hex() not in blob
        deck = " ".join(c.word for c in state.round.deck_cards()[:8])
        assert deck not in blob
