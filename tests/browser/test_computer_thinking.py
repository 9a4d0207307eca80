"""While the computer is to move, its seat page says so and shows the move once it is
made: with JavaScript by asking the log's length and then the page (static/follow.js),
without by its refresh."""

from __future__ import annotations

import pytest

from pbem.services.core import access
from pbem.services.play import computer, game_pages, moves, new_games

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _thinking(env, email: str) -> str:
    """A game against the computer where the computer is to move; the person's token."""
    created = computer.start(env, new_games.PlayerIn("Ada", email), "easy", contribution=bytes(32))
    token = created.tokens[0]
    page = game_pages.seat_page(env, token, access.Client())
    if not page.thinking:
        legal = game_pages.legal_moves(env, token)
        moves.submit_move(env, token, page.next_n, legal[0], access.Client())
    assert game_pages.seat_page(env, token, access.Client()).thinking
    return token


@pytest.mark.parametrize("script", [True, False], ids=["javascript", "no-javascript"])
def test_the_thinking_page_shows_the_computers_move_by_itself(browser, env, live_server, script):
    token = _thinking(env, f"thinking-{script}@example.test")
    context = browser.new_context(java_script_enabled=script)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/s/{token}")
        assert page.inner_text("#thinking") == "The computer is thinking…"
        assert computer.computer_moves(env).moves >= 1  # the scheduler's run
        page.wait_for_selector("#thinking", state="detached", timeout=20_000)
        assert "Your turn" in page.inner_text(".status")
    finally:
        context.close()
