"""The accept page in a browser (exp-layout, 3 and 4): the accepting player's time-zone
field holds the browser's zone, as the create form's does, and the page of a player who
accepted moves on by itself, in place, once the other player accepts and the cards are
dealt (static/follow.js, the seat pages' own mechanism)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbem.services.core import access
from pbem.services.play import new_games
from pbem.store.models import Game, Seat
from tests.support import own_database

pytestmark = [pytest.mark.browser, pytest.mark.slow]

database_url, database = own_database("module")


def _waiting(env, email: str) -> new_games.CreatedGame:
    return new_games.create_game(
        env,
        (new_games.PlayerIn("Ada", f"ada-{email}"), new_games.PlayerIn("Bo", f"bo-{email}")),
        await_players=True,
    )


def _seat_zone(env, public_id: str, seat: int) -> str:
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        return session.scalars(
            select(Seat.timezone).where(Seat.game_id == game.id, Seat.seat == seat)
        ).one()


@pytest.mark.parametrize("language", ["en", "fa"])
def test_the_accepting_player_gets_the_browsers_zone(browser, env, live_server, language):
    made = _waiting(env, f"zone-{language}@example.test")
    context = browser.new_context(locale=language, timezone_id="Asia/Tehran")
    page = context.new_page()
    try:
        page.goto(f"{live_server}/s/{made.tokens[1]}?lang={language}")
        assert page.input_value("input[name=timezone]") == "Asia/Tehran"
        assert page.locator("select[name=language]").input_value() == language
        page.click("form button.primary[type=submit]")
        page.wait_for_load_state()
    finally:
        context.close()
    assert _seat_zone(env, made.public_id, 1) == "Asia/Tehran"


def test_the_accepted_page_moves_on_when_the_other_player_accepts(browser, env, live_server):
    made = _waiting(env, "follow@example.test")
    new_games.accept(env, made.tokens[0], bytes(range(32)), access.Client())
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{live_server}/s/{made.tokens[0]}")
        assert "Waiting for Bo to accept too" in page.inner_text("main")
        page.evaluate("window.stillHere = true")  # gone if the page is loaded again
        new_games.accept(env, made.tokens[1], bytes(range(1, 33)), access.Client())
        page.wait_for_selector("main .board, main .status.your-turn, main #move", timeout=15_000)
        assert "Waiting for Bo to accept too" not in page.inner_text("main")
        assert page.evaluate("window.stillHere") is True  # in place: no page load
    finally:
        context.close()
