"""A move from the first click to Confirm without scrolling and without a page load.

On a phone (360×740) and a desktop (1280×800): a click on a market card shows the
server's preview with its Confirm button in sight, nothing scrolled; Confirm records the
move in place. The same with the keyboard alone, and the form without JavaScript. Errors
(a stale page, an illegal move) are shown in place and change nothing.
"""

from __future__ import annotations

import re

import pytest

from pbem.services.core import access
from pbem.services.play import game_pages, moves, new_games
from tests.browser.conftest import screenshot
from tests.helpers import mails

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LINK = re.compile(r"(http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_\-\.]+)")
VIEWPORTS = {"phone": {"width": 360, "height": 740}, "desktop": {"width": 1280, "height": 800}}
CONFIRM = "#tray .preview button[type=submit]"
# The element a player sees at the middle of a box: the box itself when nothing covers it.
ON_TOP = """(el) => { const r = el.getBoundingClientRect();
  return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }"""


def _game(env) -> tuple[str, int, str]:
    """A new game (three camels in the market: "camels" is always a move) and the link
    of the seat to move."""
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
    )
    seat = game_pages.public_page(env, created.public_id).view.table.to_move
    found = LINK.search(mails(env, created.public_id, seat=seat)[-1].text_body)
    assert found
    return created.public_id, seat, found.group(1)


def _moves(env, public_id: str) -> list[str]:
    return [e.move for e in game_pages.public_page(env, public_id).entries]


def _in_sight(page, selector: str) -> dict:
    """The box of ``selector``, asserted wholly inside the viewport and not covered."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (box, size)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (box, size)
    assert page.locator(selector).evaluate(ON_TOP)
    return box


@pytest.mark.parametrize("size", sorted(VIEWPORTS))
def test_from_the_first_click_to_confirm_nothing_scrolls(browser, env, live_server, size):
    public_id, _, link = _game(env)
    context = browser.new_context(viewport=VIEWPORTS[size])
    page = context.new_page()
    try:
        page.goto(link)
        page.evaluate("window.stillHere = true")  # gone if the page is loaded again
        assert page.evaluate("scrollY") == 0
        camel = page.locator('.market button.card[data-card="camel"]').first
        _in_sight(page, '.market button.card[data-card="camel"] >> nth=0')
        camel.click()
        page.wait_for_selector(CONFIRM)
        assert page.evaluate("scrollY") == 0  # the click needed no scroll, nor did the preview
        assert page.input_value("#move") == "camels"
        assert page.locator('.market button.card[aria-pressed="true"]').count() >= 3
        assert "You take all" in page.inner_text("#tray")
        box = _in_sight(page, CONFIRM)
        print(f"{size}: Confirm at y={box['y']:.0f}..{box['y'] + box['height']:.0f}")
        screenshot(page, f"seat-in-place-{size}-preview")
        page.click(CONFIRM)
        page.wait_for_selector("text=Your move is recorded")
        assert page.evaluate("window.stillHere") is True  # in place: no page load
        assert "Waiting for" in page.inner_text(".status")
        assert _moves(env, public_id) == ["camels"]
        assert "done=move" in page.url
    finally:
        context.close()


def test_a_move_built_and_confirmed_with_the_keyboard_alone(browser, env, live_server):
    public_id, _, link = _game(env)
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    page = context.new_page()
    try:
        page.goto(link)
        for _ in range(60):  # Tab to the first camel of the market
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.matches('.market [data-card=camel]')"):
                break
        focused = page.locator(":focus")
        assert focused.get_attribute("aria-label") == "Camel, in the market"
        assert focused.evaluate("el => el.tagName") == "BUTTON"
        ring = focused.evaluate("el => getComputedStyle(el).outlineStyle")
        assert ring != "none"  # the focus is visible
        page.keyboard.press("Space")
        assert focused.get_attribute("aria-pressed") == "true"
        # selection is not shown by colour alone: a check mark and a lift
        assert focused.evaluate("el => getComputedStyle(el, '::after').content") == '"✓"'
        assert focused.evaluate("el => getComputedStyle(el).transform") != "none"
        page.wait_for_selector(CONFIRM)
        for _ in range(60):  # on to the Confirm button
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.matches('#tray .preview button')"):
                break
        assert "Confirm" in page.locator(":focus").inner_text()
        page.keyboard.press("Enter")
        page.wait_for_selector("text=Your move is recorded")
        assert _moves(env, public_id) == ["camels"]
    finally:
        context.close()


def test_without_javascript_the_form_previews_and_confirms(browser, env, live_server):
    public_id, _, link = _game(env)
    context = browser.new_context(viewport=VIEWPORTS["phone"], java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(link)
        assert page.locator("#tray").is_hidden()
        page.fill("#move", "camels")
        page.click(".move-form button[type=submit]")
        assert "You take all" in page.inner_text(".play .preview")
        page.click(".play .preview button[type=submit]")
        assert "Your move is recorded" in page.inner_text(".status")
        assert _moves(env, public_id) == ["camels"]
    finally:
        context.close()


def test_errors_are_shown_in_place_and_change_nothing(browser, env, live_server):
    public_id, _, link = _game(env)
    context = browser.new_context(viewport=VIEWPORTS["phone"])
    page = context.new_page()
    try:
        page.goto(link)
        page.evaluate("window.stillHere = true")
        # An illegal move typed: the rule's reason, in the tray, nothing played.
        page.fill("#move", "sell 9 diamond")
        page.click(".move-form button[type=submit]")
        page.wait_for_selector("#tray .alert")
        assert page.locator("#tray .alert").get_attribute("role") == "alert"
        assert _moves(env, public_id) == []
        # The game moves on elsewhere (another tab): this page's preview is refused.
        token = link.rsplit("/", 1)[1]
        moves.submit_move(env, token, 1, "camels", access.Client())
        page.click("#clear")
        assert page.locator("#tray").is_hidden()
        page.locator('.market button.card[data-card="camel"]').first.click()
        page.wait_for_selector("#tray .alert")
        assert "moved on" in page.inner_text("#tray .alert")
        assert page.locator("#tray a", has_text="Show the current position").count() == 1
        screenshot(page, "seat-in-place-moved-on")
        assert page.evaluate("window.stillHere") is True
        assert _moves(env, public_id) == ["camels"]  # one move, the other tab's
    finally:
        context.close()


def test_a_confirm_refused_is_shown_beside_it(browser, env, live_server):
    public_id, _, link = _game(env)
    context = browser.new_context(viewport=VIEWPORTS["phone"])
    page = context.new_page()
    try:
        page.goto(link)
        page.locator('.market button.card[data-card="camel"]').first.click()
        page.wait_for_selector(CONFIRM)
        moves.submit_move(env, link.rsplit("/", 1)[1], 1, "camels", access.Client())
        page.click(CONFIRM)
        page.wait_for_selector("#tray .alert")
        assert "moved on" in page.inner_text("#tray .alert")
        _in_sight(page, "#tray .alert")
        assert _moves(env, public_id) == ["camels"]
    finally:
        context.close()
