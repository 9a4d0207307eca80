"""Receipts of one's own moves, set on the seat page or for every game on "my games"."""

from __future__ import annotations

import re

from pbem.services.core import access
from pbem.services.core.identity import player_for
from pbem.services.play import new_games, seat_settings
from tests.helpers import csrf_of, mails
from tests.mail.play import new_game, token
from tests.mail.test_one_mail_a_move import web_move
from tests.web.test_players import sign_in

CHECKED = re.compile(r'name="receipts" value="(\w+)" checked')


def test_the_seat_page_turns_receipts_on_and_off(client, env):
    public_id = new_game(env)
    link = f"/s/{token(env, public_id, 0)}"
    page = client.get(link)
    assert CHECKED.findall(page.text) == ["replies"]  # the default: a move mailed in
    assert "A receipt of my own move" in page.text
    saved = client.post(
        f"{link}/receipts", data={"csrf_token": csrf_of(page.text), "receipts": "all"}
    )
    assert saved.status_code == 303 and saved.headers["Location"].endswith("done=receipts")
    page = client.get(saved.headers["Location"])
    assert CHECKED.findall(page.text) == ["all"] and "Saved: receipts" in page.text
    web_move(env, public_id)  # Ada, on the web: a receipt, as asked
    web_move(env, public_id)
    assert [m.about_n for m in mails(env, public_id, seat=0, kind="receipt")] == [1]
    client.post(f"{link}/receipts", data={"csrf_token": csrf_of(page.text), "receipts": "none"})
    assert CHECKED.findall(client.get(link).text) == ["none"]
    web_move(env, public_id)
    assert [m.about_n for m in mails(env, public_id, seat=0, kind="receipt")] == [1]
    refused = client.post(
        f"{link}/receipts", data={"csrf_token": csrf_of(page.text), "receipts": "maybe"}
    )
    assert refused.status_code == 400 and "Choose receipts" in refused.text
    assert CHECKED.findall(client.get(link).text) == ["none"]


def test_my_games_sets_receipts_for_every_game_and_the_next_ones(client, env):
    email = "receipts@example.test"
    created = new_games.create_game(
        env, (new_games.PlayerIn("Rea", email), new_games.PlayerIn("Bo", "bo@example.test"))
    )
    sign_in(client, env, email)
    me = client.get("/me")
    assert CHECKED.findall(me.text) == ["replies"]
    saved = client.post("/me/receipts", data={"csrf_token": csrf_of(me.text), "receipts": "all"})
    assert saved.status_code == 303
    assert CHECKED.findall(client.get("/me").text) == ["all"]
    seat_page = client.get(f"/s/{created.tokens[0]}")
    assert CHECKED.findall(seat_page.text) == ["all"]  # the running game's seat
    later = new_games.create_game(
        env, (new_games.PlayerIn("Rea", email), new_games.PlayerIn("Cy", "cy@example.test"))
    )
    assert CHECKED.findall(client.get(f"/s/{later.tokens[0]}").text) == ["all"]  # a new one
    refused = client.post("/me/receipts", data={"csrf_token": csrf_of(me.text), "receipts": ""})
    assert refused.status_code == 400
    with env.db.read() as session:
        assert player_for(session, email, "Rea", env.clock.now()).receipts == "all"
    # a seat's own choice after that is the seat's alone
    seat_settings.set_receipts(env, later.tokens[0], "none", access.Client())
    assert CHECKED.findall(client.get(f"/s/{created.tokens[0]}").text) == ["all"]
