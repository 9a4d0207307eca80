"""The seat page for the keyboard, screen readers and browsers without JavaScript
(issue 33): a skip link to the game, Confirm one Tab from the last card pressed, a pressed
card clear of its heading, cards that are only shown without JavaScript, and axe-core with
nothing serious or critical in all five languages, in each state of the preview tray."""

from __future__ import annotations

import pytest

from pbem.i18n import LANGUAGES
from pbem.services.play import game_pages, new_games
from tests.browser.test_accessibility import BLOCKING, _report, _violations
from tests.browser.test_seat_page import _link

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CONFIRM = "#tray .preview button[type=submit]"


def _game(env, language: str = "en") -> tuple[str, str]:
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "keys-ada@example.test", language, "UTC"),
            new_games.PlayerIn("Bo", "keys-bo@example.test", language, "UTC"),
        ),
        first_player=0,
    )
    return created.public_id, _link(env, created.public_id, 0)


def _focused(page, selector: str) -> bool:
    return page.evaluate(f"document.activeElement.matches({selector!r})")


def test_skip_link_then_a_card_then_one_tab_to_confirm(browser, env, live_server):
    _, link = _game(env)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(link)
        page.keyboard.press("Tab")
        assert _focused(page, "a.skip")
        assert page.locator(":focus").inner_text() == "Skip to the game"
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        assert _focused(page, ".market button.card")  # the first card, past the header
        page.keyboard.press("ArrowRight")
        assert page.evaluate(
            "document.activeElement === document.querySelectorAll('.market button.card')[1]"
        )
        page.keyboard.press("Space")
        page.wait_for_selector(CONFIRM)
        page.wait_for_load_state("networkidle")
        page.keyboard.press("Tab")
        assert _focused(page, CONFIRM)  # one Tab from the card pressed last
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(
            "document.activeElement === document.querySelectorAll('.market button.card')[1]"
        )
        pressed = page.locator('.market button.card[aria-pressed="true"]').first
        heading = page.locator(".market h2").bounding_box()
        assert pressed.bounding_box()["y"] >= heading["y"] + heading["height"]  # clear of it
    finally:
        context.close()


def test_without_javascript_the_cards_are_only_shown(browser, env, live_server):
    _, link = _game(env)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(link)
        assert page.locator("button.card").count() == 0
        assert page.locator(".market .card[data-card]").count() == 5
        assert page.locator("#click-help").is_hidden()
        assert "Type your move" in page.inner_text("#type-help")
    finally:
        context.close()


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_no_serious_violation_in_any_state_of_the_tray(
    browser, env, live_server, axe_script, language
):
    _, link = _game(env, language)
    context = browser.new_context(viewport={"width": 1100, "height": 1000}, bypass_csp=True)
    page = context.new_page()
    found = {}
    try:
        page.goto(link)
        found["no card pressed"] = _violations(page, axe_script)
        page.locator('.market .card[data-card="camel"]').first.click()
        page.wait_for_selector(CONFIRM)
        found["a legal move"] = _violations(page, axe_script)
        page.click("#clear")
        page.locator('.market .card[data-card="camel"]').first.click()
        page.locator(".me .cards:not(.herd) .card[data-card]").first.click()
        page.wait_for_selector("#tray .alert")
        found["an illegal selection"] = _violations(page, axe_script)
    finally:
        context.close()
    blocking = _report(found, BLOCKING)
    assert not blocking, f"axe-core, {language}, serious and critical:\n{blocking}"


#: Where the focus is: the element's tag, class and text, and whether it is in <main>.
FOCUS = """() => { const el = document.activeElement;
  return [el.tagName, el.className, (el.innerText || "").slice(0, 60),
          !!el.closest("main"), el === document.body]; }"""


def test_focus_after_a_move_and_after_the_reply_swap_in(browser, env, live_server):
    """Keyboard only: a card, Confirm, Enter. When the new position swaps in (static/swap.js)
    the focus lands on what the page now says ("your move is recorded", a live status) and
    not on the page's body; when the other player's move swaps in later, on the status
    that says it is your turn again."""
    from pbem.services.core import access
    from pbem.services.play import moves
    from tests.mail.play import token

    public_id, link = _game(env)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(link)
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")  # the skip link
        page.keyboard.press("Tab")
        assert _focused(page, ".market button.card")
        page.keyboard.press("Space")
        page.wait_for_selector(CONFIRM)
        page.wait_for_load_state("networkidle")
        page.keyboard.press("Tab")
        assert _focused(page, CONFIRM)
        page.evaluate("window.stillHere = true")
        page.keyboard.press("Enter")
        page.wait_for_selector("main .status #waiting", timeout=15_000)
        page.wait_for_load_state("networkidle")
        tag, _class, text, in_main, body = page.evaluate(FOCUS)
        assert not body and in_main, (tag, _class, text)
        assert "Your move is recorded" in text
        assert page.evaluate("document.activeElement.tabIndex") == -1  # focused by the script
        t = token(env, public_id, 1)
        moves.submit_move(env, t, 2, game_pages.legal_moves(env, t)[0], access.Client())
        page.wait_for_selector(".status.your-turn", timeout=15_000)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("window.stillHere") is True  # in place
        tag, _class, text, in_main, body = page.evaluate(FOCUS)
        assert not body and in_main, (tag, _class, text)
        assert "Your turn" in text
        page.keyboard.press("Tab")  # and the keyboard goes on into the game
        assert page.evaluate("!!document.activeElement.closest('main')")
    finally:
        context.close()
