"""The seat page in Persian (right to left) and Chinese, on a phone and on a desktop
(issue 8): nothing overflows its card, button or the screen, Persian mirrors, and a
move built by clicking is written, previewed and recorded in the reader's words.

Screenshots land in build/screenshots/seat-{fa,zh}-{phone,desktop}.png to be looked at.
"""

from __future__ import annotations

import pytest

from pbem.services.play import game_pages, new_games
from tests.browser.conftest import screenshot
from tests.browser.test_seat_page import _link
from tests.mail.play import play

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VIEWPORTS = {
    "phone": dict(viewport={"width": 360, "height": 760}, device_scale_factor=2, is_mobile=True),
    "desktop": dict(viewport={"width": 1280, "height": 900}),
}
SEATS = (
    new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
    new_games.PlayerIn("梅", "mei@example.test", "zh", "Asia/Shanghai"),
)

#: Elements whose text must fit inside them, and what overflows if it does not.
OVERFLOWING = """() => {
  const out = [];
  for (const el of document.querySelectorAll(
      ".card, button, .button, input[type=submit], nav a, .tokens, .status, th, td")) {
    if (!el.offsetParent) continue;  // hidden
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) {
      const style = getComputedStyle(el);
      if (style.overflowX === "auto" || style.overflowX === "scroll") continue;
      out.push(el.className + ": " + el.innerText.slice(0, 40));
    }
  }
  return out;
}"""


@pytest.fixture
def game(live_server, env) -> str:
    public_id = new_games.create_game(env, SEATS, first_player=0).public_id
    play(env, public_id, 6)  # a move list, tokens and a market that changed
    return public_id


@pytest.mark.parametrize("size", sorted(VIEWPORTS))
@pytest.mark.parametrize("seat", [0, 1], ids=["fa", "zh"])
def test_the_seat_page_fits_and_reads_in_its_language(browser, env, game, seat, size):
    language = SEATS[seat].language
    context = browser.new_context(**VIEWPORTS[size])
    page = context.new_page()
    try:
        page.goto(_link(env, game, seat))
        screenshot(page, f"seat-{language}-{size}")
        assert page.get_attribute("html", "lang") == language
        assert page.get_attribute("html", "dir") == ("rtl" if language == "fa" else "ltr")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= VIEWPORTS[size]["viewport"]["width"], "the page scrolls sideways"
        assert page.evaluate(OVERFLOWING) == []
        if language == "fa":
            # Mirrored: the market reads from the right, its first card right of its second.
            cards = page.locator(".market .card")
            first, second = cards.nth(0).bounding_box(), cards.nth(1).bounding_box()
            assert first and second and first["y"] == second["y"] and first["x"] > second["x"]
            # The deadline is in the seat's time zone (Tehran, +03:30), in Persian digits.
            assert "+۰۳:۳۰" in page.inner_text("body")
            # Notation in Persian is not set in a monospace face, which unjoins its letters.
            faces = page.eval_on_selector_all(
                "code:not(.hash)", "els => els.map(e => getComputedStyle(e).fontFamily)"
            )
            assert faces and not any("monospace" in face for face in faces)
            # The last moves are numbered by the list itself: in Persian digits too.
            markers = page.eval_on_selector_all(
                "ol", "els => els.map(e => getComputedStyle(e).listStyleType)"
            )
            assert markers and set(markers) == {"persian"}, markers
    finally:
        context.close()


def test_the_home_page_numbers_its_steps_in_persian(browser, live_server):
    context = browser.new_context(**VIEWPORTS["phone"])
    page = context.new_page()
    try:
        page.goto(f"{live_server}/?lang=fa")
        markers = page.eval_on_selector_all(
            "ol", "els => els.map(e => getComputedStyle(e).listStyleType)"
        )
        assert markers and set(markers) == {"persian"}, markers
    finally:
        context.close()


@pytest.mark.parametrize("size", sorted(VIEWPORTS))
@pytest.mark.parametrize("seat", [0, 1], ids=["fa", "zh"])
def test_a_move_clicked_is_written_in_the_reader_words(browser, env, live_server, seat, size):
    # No move yet: a round starts with three camels in the market to click.
    game = new_games.create_game(env, SEATS, first_player=seat).public_id
    language = SEATS[seat].language
    context = browser.new_context(**VIEWPORTS[size])
    page = context.new_page()
    try:
        page.goto(_link(env, game, seat))
        page.locator('.market [data-card="camel"]').first.click()
        typed = page.input_value("#move")
        assert typed == {"fa": "شترها", "zh": "拿 全部 骆驼"}[language]
        page.locator(".move-form button[type=submit]").click()
        page.wait_for_selector(".preview")
        page.wait_for_load_state("networkidle")  # the preview asked for by the click, too
        assert page.evaluate(OVERFLOWING) == []
        screenshot(page, f"seat-{language}-{size}-preview")
        confirm = page.locator(".preview button[type=submit]")
        assert typed in confirm.inner_text()
        confirm.click()
        page.wait_for_selector(".status .notice")  # recorded, in place
        assert game_pages.public_page(env, game).entries[-1].move == "camels"
    finally:
        context.close()
