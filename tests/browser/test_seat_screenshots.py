"""docs/screenshots/seat-phone.png and seat-desktop.png, the README's seat page, come from
here (build/screenshots/seat-phone.png, seat-desktop.png): an exchange of two market cards
for two cards of the hand, tapped where the cards are, with its preview and Confirm."""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_seat_page import _link
from tests.browser.test_seat_phone import WHERE, _game_with, _tap

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SIZES = {
    "phone": dict(viewport={"width": 360, "height": 740}, device_scale_factor=2, is_mobile=True),
    "desktop": dict(viewport={"width": 1280, "height": 800}),
}


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_readmes_seat_page(browser, env, live_server, size):
    for _ in range(20):
        public_id, seat, move = _game_with(env, "exchange")
        if len(move.split(" for ")[1].split()) == 2:
            break
    context = browser.new_context(**SIZES[size])
    page = context.new_page()
    try:
        page.goto(_link(env, public_id, seat))
        key = next(
            k for k, t in json.loads(page.inner_text("#choices"))["moves"].items() if t == move
        )
        for place, words in (part.split(":") for part in key.split(";")):
            for word in filter(None, words.split(",")):
                free = f'{WHERE[place]} .card[data-card="{word}"][aria-pressed="false"]'
                _tap(page, page.locator(free).first)
                page.wait_for_load_state("networkidle")
        page.locator("#tray .preview button[type=submit]").wait_for()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"seat-{size}.png"))
    finally:
        context.close()
