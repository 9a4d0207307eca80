"""What the seat pages say when mail to a seat's address bounces (docs/deploy.md,
"Bounces"): the other player is told that the link still works and what the clock does;
the bouncing seat is told too, with links to sign in and to change its address."""

from __future__ import annotations

import html
import re

import pytest

from pbem.services.play import game_clock, new_games
from pbem.store import bounces as bounce_rows

BO = "bo.pages@example.test"


def _game(env, ada: str, *, language: str = "en", clock=None, await_players=False):
    made = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", ada, language, "UTC"),
            new_games.PlayerIn("Bo", BO, language, "UTC"),
        ),
        first_player=None if await_players else 0,
        clock=clock,
        await_players=await_players,
    )
    with env.db.write() as session:
        bounce_rows.mark(session, BO, env.clock.now(), None, "test")
    return made


@pytest.fixture(autouse=True)
def _unmark(env):
    yield
    with env.db.write() as session:
        bounce_rows.clear(session, [BO])


def _text(page: str, id_: str) -> str:
    found = re.search(rf'<p[^>]*id="{id_}"[^>]*>(.*?)</p>', page, re.S)
    return html.unescape(found.group(1)) if found else ""


def test_the_other_player_is_told_and_the_bouncing_seat_shown_how_to_fix_it(client, env):
    made = _game(env, "ada.pages1@example.test")
    ada = client.get(f"/s/{made.tokens[0]}?lang=en").text
    theirs = _text(ada, "bounce-theirs")
    assert "Mail to Bo bounces" in theirs and "Their link still works." in theirs
    assert "Their clock runs as usual: 3 days per move, whether mail reaches them or not." in (
        theirs
    )
    assert 'id="bounce-mine"' not in ada
    bo = client.get(f"/s/{made.tokens[1]}?lang=en").text
    mine = _text(bo, "bounce-mine")
    assert "Mail to your address bounces" in mine and "Your link still works." in mine
    assert 'href="/signin"' in mine and 'href="/me#email"' in mine
    assert 'id="bounce-theirs"' not in bo


def test_the_change_address_link_lands_on_the_form(client):
    """``/me#email`` is the address-change form of the signed-in player's page."""
    me = client.application.jinja_env.get_template("web/me.html").filename or ""
    with open(me, encoding="utf-8") as f:
        assert re.search(r'<form[^>]*players\.change_email[^>]*id="email"', f.read())


def test_a_game_without_a_clock_and_one_not_dealt_are_said_as_they_are(client, env):
    made = _game(env, "ada.pages2@example.test", clock=game_clock.GameClock(days_per_move=None))
    ada = client.get(f"/s/{made.tokens[0]}?lang=en").text
    assert "This game has no clock: it waits for their move." in _text(ada, "bounce-theirs")
    waiting = _game(env, "ada.pages3@example.test", await_players=True)
    ada = client.get(f"/s/{waiting.tokens[0]}?lang=en").text
    assert "Their invitation did not reach them" in _text(ada, "bounce-theirs")


@pytest.mark.parametrize(
    "language, says",
    [
        ("el", "Τα μηνύματα προς τη διεύθυνσή σας επιστρέφονται"),
        ("fa", "نامه‌ها به نشانی شما برگشت می‌خورند"),
        ("uk", "Листи на вашу адресу повертаються"),
        ("zh", "发往你地址的邮件被退回"),
    ],
)
def test_the_notes_are_in_the_seats_language(client, env, language, says):
    made = _game(env, f"ada.pages.{language}@example.test", language=language)
    bo = client.get(f"/s/{made.tokens[1]}").text
    assert says in _text(bo, "bounce-mine")
