"""A card's name is never broken inside a word ("Diamo / nd"), on small cards either:
it stays on one line, in every language, on a phone and on a desktop."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.mail.play import new_game
from tests.support import play_random

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Each card name's lines, counted from the boxes of its text.
LINES = """() => [...document.querySelectorAll('.card .name')].map(el => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  return [el.textContent, el.closest('.card').classList.contains('small'), tops.size];
})"""


def test_card_names_stay_on_one_line(live_server, env, browser):
    public_id = new_game(env)
    play_random(env, public_id)
    for language in ("en", "el", "uk"):
        for width in (360, 1100):
            context = browser.new_context(locale=language, viewport={"width": width, "height": 900})
            page = context.new_page()
            page.goto(f"{live_server}/g/{public_id}/replay?n=20&as=all")
            names = page.evaluate(LINES)
            assert any(small for _, small, _ in names)  # the hands of the full board
            broken = [(name, small) for name, small, lines in names if lines != 1]
            assert not broken, (language, width, broken)
            if language == "en" and width == 360:
                screenshot(page, "replay-card-names-phone")
            context.close()
