"""Playing the computer on the web: the home page's form, the one-click button of "my
games", the page while the computer thinks, and the mark on every page of such a game."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.i18n import LANGUAGES
from pbem.services.core import access
from pbem.services.play import computer, game_pages, moves, new_games
from pbem.store.models import OutboxMessage
from tests.helpers import LINK, csrf_of
from tests.web.test_players import fresh_ip, sign_in

ENTROPY = "ab" * 32
MARK = "against the computer (%s) · not rated"


def seat_path(location: str) -> str:
    return re.search(r"(/s/[A-Za-z0-9_\-\.]+)$", location).group(1)


def until_thinking(env, token: str) -> game_pages.SeatPage:
    """The person moves if it is their turn, so the computer is to move."""
    page = game_pages.seat_page(env, token, access.Client())
    if not page.thinking:
        move = game_pages.legal_moves(env, token)[0]
        moves.submit_move(env, token, page.next_n, move, access.Client())
        page = game_pages.seat_page(env, token, access.Client())
    assert page.thinking
    return page


def test_the_home_page_form_mails_the_link_and_the_game_deals_on_accepting(client, env):
    home = client.get("/")
    assert 'action="/computer"' in home.text and 'name="level"' in home.text
    answer = client.post(
        "/computer",
        data={
            "csrf_token": csrf_of(home.text),
            "my_name": "Zoë & Co",
            "my_email": "zoe@example.test",
            "level": "easy",
        },
        environ_base=fresh_ip(),
    )
    assert answer.status_code == 303
    created = client.get(answer.headers["Location"])
    assert MARK % "easy" in created.text and "Zoë &amp; Co" in created.text
    with env.db.read() as session:
        mail = session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.to_addr == "zoe@example.test")
            .order_by(OutboxMessage.id.desc())
        ).first()
    assert mail.kind == "invitation"
    link = LINK.search(mail.text_body).group(1)
    accept = client.get(link)
    assert MARK % "easy" in accept.text
    assert "Your game against the computer is ready" in accept.text
    assert "has accepted already" not in accept.text  # the computer's bytes are fixed, public
    assert "fixed, public contribution" in accept.text
    done = client.post(
        link + "/accept", data={"csrf_token": csrf_of(accept.text), "entropy": ENTROPY}
    )
    assert done.status_code == 303
    seat = client.get(done.headers["Location"])
    assert MARK % "easy" in seat.text
    assert 'name="message"' not in seat.text  # no note to the computer
    assert "Away for a while?" not in seat.text


def test_a_level_that_is_not_one_is_refused_on_the_home_page(client):
    home = client.get("/")
    answer = client.post(
        "/computer",
        data={
            "csrf_token": csrf_of(home.text),
            "my_name": "Ada",
            "my_email": "a@example.test",
            "level": "god",
        },
        environ_base=fresh_ip(),
    )
    assert answer.status_code == 400 and "easy, normal or strong" in answer.text


def test_my_games_deals_at_once_and_the_thinking_page_waits_for_the_move(client, env):
    sign_in(client, env, "me-computer@example.test")
    me = client.get("/me")
    assert 'action="/me/computer"' in me.text
    answer = client.post(
        "/me/computer", data={"csrf_token": csrf_of(me.text), "level": "easy", "entropy": ENTROPY}
    )
    assert answer.status_code == 303
    path = seat_path(answer.headers["Location"])
    token = path.removeprefix("/s/")
    assert game_pages.seat_page(env, token, access.Client()).mail_mode == "digest"  # on the web
    until_thinking(env, token)
    page = client.get(path)
    assert "The computer is thinking…" in page.text
    assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in page.text
    assert "/static/follow.js" in page.text and 'id="follow"' in page.text
    api = client.get("/api/seat", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert api["computer"] == {"seat": 1, "level": "easy", "thinking": True}
    computer.computer_moves(env)
    page = client.get(path)
    assert "The computer is thinking…" not in page.text and "follow.js" not in page.text
    api = client.get("/api/seat", headers={"Authorization": f"Bearer {token}"}).get_json()
    assert api["computer"] == {"seat": 1, "level": "easy", "thinking": False}
    mine = client.get("/me")
    assert MARK % "easy" in mine.text
    public_id = api["game"]
    assert MARK % "easy" in client.get(f"/g/{public_id}").text
    # the end: "Play the computer again", never the rematch of two people
    moves.resign(env, token, api["next_n"], access.Client())
    over = client.get(path)
    assert "Play the computer again" in over.text and "/rematch" not in over.text
    assert MARK % "easy" in client.get(f"/g/{public_id}/replay").text
    assert MARK % "easy" in client.get(f"{path}/replay").text
    again = client.post(
        f"{path}/computer-again", data={"csrf_token": csrf_of(over.text), "entropy": ENTROPY}
    )
    assert again.status_code == 303
    new_path = seat_path(again.headers["Location"])
    assert new_path != path and MARK % "easy" in client.get(new_path).text
    player = re.search(r'href="(/p/[a-z0-9]+)"', mine.text).group(1)
    assert MARK % "easy" in client.get(player).text


def test_the_computers_seat_link_opens_nothing(client, env):
    created = computer.start(
        env, new_games.PlayerIn("Ada", "links-web@example.test"), "easy", contribution=bytes(32)
    )
    assert client.get(f"/s/{created.tokens[1]}").status_code == 403
    assert (
        client.get(
            "/api/seat", headers={"Authorization": f"Bearer {created.tokens[1]}"}
        ).status_code
        == 403
    )


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_language_renders_the_computers_pages(client, env, language):
    created = computer.start(
        env,
        new_games.PlayerIn("Ada", f"lang-{language}@example.test", language),
        "normal",
        contribution=bytes(range(32)),
    )
    token = created.tokens[0]
    until_thinking(env, token)
    page = client.get(f"/s/{token}")
    assert page.status_code == 200 and 'id="thinking"' in page.text
    assert f'lang="{language}"' in page.text
    if language != "en":
        assert "The computer is thinking…" not in page.text
        assert MARK % "normal" not in page.text
    home = client.get(f"/?lang={language}")
    assert home.status_code == 200 and 'action="/computer"' in home.text
    if language != "en":
        assert "Play the computer" not in home.text
