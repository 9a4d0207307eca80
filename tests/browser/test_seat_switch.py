"""The header's language links on a seat page (issue 33): after switching to any of the
five languages, a move built by clicking is previewed in that language and recorded, an
illegal selection is explained in it, and the seat's next pages (its replay) stay in it."""

from __future__ import annotations

import re

import pytest

from pbem.i18n import LANGUAGES
from pbem.services.play import game_pages, new_games
from tests.browser.test_seat_page import _link

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_clicking_a_move_after_switching_the_language(browser, env, live_server, language):
    own = "zh" if language == "en" else "en"  # the seat's language: another one
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "switch-ada@example.test", own, "UTC"),
            new_games.PlayerIn("Bo", "switch-bo@example.test", own, "UTC"),
        ),
        first_player=0,
    )
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    page = context.new_page()
    try:
        link = _link(env, created.public_id, 0)
        page.goto(link)
        assert page.get_attribute("html", "lang") == own
        page.click(f'nav.languages a[lang="{language}"]')
        page.wait_for_load_state()
        assert page.get_attribute("html", "lang") == language
        # two goods of the market and nothing given: the rules' reason, in the language
        goods = page.locator('.market .card[data-card]:not([data-card="camel"])')
        if goods.count() >= 2:
            goods.nth(0).click()
            goods.nth(1).click()
            page.wait_for_selector("#tray .alert")
            said = page.inner_text("#tray .alert")
            assert ("is an exchange" in said) == (language == "en"), said
            page.click("#clear")
        page.locator('.market .card[data-card="camel"]').first.click()
        confirm = page.locator("#tray .preview button[type=submit]")
        confirm.wait_for()
        words = page.input_value("#move")
        assert words and words in confirm.inner_text()
        if language != "en":
            assert not re.search("[A-Za-z]", page.inner_text("#tray .preview p")), language
        confirm.click()
        page.wait_for_selector("main .status .notice")
        assert game_pages.public_page(env, created.public_id).entries[-1].move == "camels"
        page.goto(f"{link}/replay?n=1")
        assert page.get_attribute("html", "lang") == language  # remembered for the seat
    finally:
        context.close()
