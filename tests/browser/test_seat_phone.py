"""Every kind of move on a phone, by taps alone (issue 33): at 360×740 and 390×844 each
card a move needs is in sight and uncovered when it is tapped (the preview tray at the
foot of the screen never covers one), and so is Confirm; the player never scrolls. The
taps are made where the cards are, as a finger would, never by a call that scrolls first.

Screenshots: build/screenshots/seat-phone-{kind}-{width}.png.
"""

from __future__ import annotations

import json

import pytest

from pbem.services.play import game_pages, new_games
from tests.browser.conftest import screenshot
from tests.browser.test_seat_page import _link

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONES = {"360": {"width": 360, "height": 740}, "390": {"width": 390, "height": 844}}
WHERE = {"market": ".market", "hand": ".me .cards:not(.herd)", "herd": ".me .cards.herd"}
# Whether a finger at the middle of the box touches the box itself, not what covers it.
ON_TOP = """(el) => { const r = el.getBoundingClientRect();
  return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)); }"""
KINDS = {
    "take": lambda m: m.startswith("take"),
    "camels": lambda m: m == "camels",
    "exchange": lambda m: m.startswith("exchange") and "camel" not in m.split(" for ")[1],
    "exchange-herd": lambda m: m.startswith("exchange") and "camel" in m.split(" for ")[1],
    "sell": lambda m: m.startswith("sell"),
}


def _game_with(env, kind: str) -> tuple[str, int, str]:
    """A new game whose player to move can make a move of ``kind`` (the largest one: the
    most cards to tap), and that move."""
    for _ in range(300):
        created = new_games.create_game(
            env,
            (
                new_games.PlayerIn("Ada", "ada@example.test", "en", "UTC"),
                new_games.PlayerIn("Bo", "bo@example.test", "en", "UTC"),
            ),
        )
        seat = game_pages.public_page(env, created.public_id).view.table.to_move
        legal = game_pages.legal_moves(env, game_pages.seat_tokens(env, created.public_id)[seat])
        found = [m for m in legal if KINDS[kind](m)]
        if found:
            return created.public_id, seat, max(found, key=len)
    raise AssertionError(f"no deal with a move of kind {kind}")


def _in_sight(page, locator) -> dict:
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (box, size)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (box, size)
    assert locator.evaluate(ON_TOP), "covered"
    return box


def _tap(page, locator) -> None:
    """A tap where the card is now: asserted in sight and uncovered first."""
    box = _in_sight(page, locator)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


@pytest.mark.parametrize("phone", sorted(PHONES))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_of_move_by_taps_alone(browser, env, live_server, kind, phone):
    public_id, seat, move = _game_with(env, kind)
    context = browser.new_context(viewport=PHONES[phone], is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(_link(env, public_id, seat))
        choices = json.loads(page.inner_text("#choices"))["moves"]
        key = next(k for k, text in choices.items() if text == move)
        for place, words in (part.split(":") for part in key.split(";")):
            for word in filter(None, words.split(",")):
                free = page.locator(
                    f'{WHERE[place]} .card[data-card="{word}"][aria-pressed="false"]'
                )
                if free.count() == 0:  # taken with the others of its kind (the camels)
                    continue
                _tap(page, free.first)
                page.wait_for_selector("#tray:not([hidden])")
                page.wait_for_load_state("networkidle")  # the tray has its answer
        confirm = page.locator("#tray .preview button[type=submit]")
        confirm.wait_for()
        assert page.input_value("#move") == move
        for pressed in page.locator('.card[aria-pressed="true"]').all():
            _in_sight(page, pressed)  # the whole move is in sight with its Confirm
        screenshot(page, f"seat-phone-{kind}-{phone}")
        _tap(page, confirm)
        page.wait_for_selector("text=Your move is recorded")
        assert game_pages.public_page(env, public_id).entries[-1].move == move
    finally:
        context.close()
