"""Small words of the pages: plurals, and a space before each "·" separator."""

from __future__ import annotations

import re

from pbem.services.play import new_games
from tests.helpers import csrf_of
from tests.mail.play import new_game, play, token
from tests.support import play_random
from tests.web.test_players import sign_in

TAG = re.compile(r"<[^>]+>")


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", TAG.sub("", html))


def _glued(text: str) -> list[str]:
    """Every "·" with no space before it, with what precedes it."""
    return re.findall(r"\S{0,20}\S·", text)


def test_the_seat_page_counts_one_move_in_the_singular(client, env):
    public_id = new_game(env, first=0)
    play(env, public_id, 1)
    page = client.get(f"/s/{token(env, public_id, 1)}").text
    assert "The 1 move and the public page" in page and "All 1 moves" not in page
    play(env, public_id, 1)
    assert "All 2 moves and the public page" in client.get(f"/s/{token(env, public_id, 1)}").text


def test_my_games_separates_its_words(client, env):
    mine = "spaces@example.test"
    running = new_games.create_game(
        env,
        (new_games.PlayerIn("Me", mine), new_games.PlayerIn("Op", "op@example.test")),
        first_player=0,
    ).public_id
    play(env, running, 1)  # a move, a deadline
    done = new_games.create_game(
        env, (new_games.PlayerIn("Me", mine), new_games.PlayerIn("Op2", "op2@example.test"))
    ).public_id
    play_random(env, done)  # a result
    sign_in(client, env, mine)
    body = _text(client.get("/me").text.split("<h2>", 1)[1])
    assert "time runs out" in body and "replay" in body
    assert not _glued(body), _glued(body)


def test_challenges_separate_their_words(client, env):
    sign_in(client, env, "challenger@example.test")
    page = client.get("/challenges")
    client.post(
        "/challenges",
        data={
            "csrf_token": csrf_of(page.text),
            "days_per_move": "2",
            "starter": "random",
            "note": "friendly",
        },
    )
    listing = _text(client.get("/challenges").text.split('<ul class="games-list">', 1)[1])
    assert "who starts · friendly" in listing
    assert not _glued(listing), _glued(listing)
