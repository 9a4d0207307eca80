"""An outside tester's findings (fixA): the home page and the dev inbox fit a 360 px phone
in every language, the bonus piles read "… left · 4 cards: …" with room around the dot, and
a move confirmed by the keyboard against the computer keeps the focus on the page's news
(never <body>) with no reload and no jump of the page."""

from __future__ import annotations

import pytest

from pbem import wakeup
from pbem.i18n import LANGUAGES
from pbem.services.play import computer, game_pages, new_games
from tests.browser.conftest import screenshot
from tests.browser.test_seat_page import _link
from tests.mail.play import play

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = dict(viewport={"width": 360, "height": 740}, device_scale_factor=2, is_mobile=True)
WIDTH = "() => document.documentElement.scrollWidth"


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_home_page_fits_a_phone(browser, live_server, language):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/?lang={language}")
        for opened in page.locator("details").all():  # the clock's choices too
            opened.evaluate("d => { d.open = true; }")
        screenshot(page, f"home-{language}-phone")
        assert page.evaluate(WIDTH) <= 360
    finally:
        context.close()


def test_the_dev_inbox_fits_a_phone(browser, env, live_server):
    new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "inbox-ada@example.test"),
            new_games.PlayerIn("Bo", "inbox-bo@example.test"),
        ),
        first_player=0,
    )
    context = browser.new_context(**PHONE)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/dev/inbox")
        assert page.evaluate(WIDTH) <= 360
        page.locator('a[href^="/dev/inbox/"]').first.click()
        page.wait_for_load_state()
        assert "/dev/inbox/" in page.url
        assert page.evaluate(WIDTH) <= 360
    finally:
        context.close()


#: How far each " · " between two bonus piles stands from the piles either side of it.
ROOM = """() => {
  const out = [], piles = [...document.querySelectorAll(".bonus-pile")];
  for (let i = 0; i + 1 < piles.length; i++) {
    const before = piles[i].getBoundingClientRect(), after = piles[i + 1].getBoundingClientRect();
    if (Math.abs(before.top - after.top) > 2) continue;  // wrapped: no neighbours on a line
    const between = document.createRange();
    between.setStartAfter(piles[i]);
    between.setEndBefore(piles[i + 1]);
    const walker = document.createTreeWalker(between.commonAncestorContainer, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const at = t.data.indexOf("·");
      if (at < 0 || !between.intersectsNode(t)) continue;
      const dot = document.createRange();
      dot.setStart(t, at);
      dot.setEnd(t, at + 1);
      const box = dot.getBoundingClientRect();
      out.push([box.left - before.right, after.left - box.right]);
    }
  }
  return out;
}"""


def test_the_bonus_piles_keep_room_around_their_dot(browser, env, live_server):
    public_id = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "dot-ada@example.test"),
            new_games.PlayerIn("Bo", "dot-bo@example.test"),
        ),
        first_player=0,
    ).public_id
    play(env, public_id, 2)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(_link(env, public_id, 0))
        assert page.locator(".bonus-pile").count() == 3
        assert page.inner_text(".piles").count("·") >= 2
        rooms = page.evaluate(ROOM)
        assert rooms, "the bonus piles are on one line on a desktop"
        assert all(left >= 3 and right >= 3 for left, right in rooms), rooms
    finally:
        context.close()


#: Where the focus is and how far the page is scrolled, every 100 ms for 6 s.
SAMPLE = """async () => {
  const out = [];
  for (let i = 0; i < 60; i++) {
    const el = document.activeElement;
    const name = el ? el.tagName + (el.id ? "#" + el.id : "") + "." + el.className : "none";
    out.push([name, window.scrollY]);
    await new Promise(r => setTimeout(r, 100));
  }
  return out;
}"""


@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_a_move_confirmed_by_keyboard_keeps_the_focus_against_the_computer(
    browser, env, live_server, viewport
):
    created = computer.start(
        env, new_games.PlayerIn("Ada", "focus@example.test"), "easy", contribution=bytes(32)
    )
    watcher = wakeup.Watcher(env.db, lambda: computer.computer_moves(env))  # the scheduler's
    watcher.start()
    options = PHONE if viewport == "phone" else dict(viewport={"width": 1280, "height": 800})
    context = browser.new_context(**options)
    page = context.new_page()
    try:
        assert watcher.listening.wait(10)
        computer.computer_moves(env)  # its first move, if it starts
        page.goto(f"{live_server}/s/{created.tokens[0]}")
        page.wait_for_selector(".status.your-turn", timeout=20_000)
        page.evaluate("window.stillHere = true")  # gone if the page is loaded again
        legal = game_pages.legal_moves(env, created.tokens[0])
        page.fill("#move", legal[0])
        page.press("#move", "Enter")
        confirm = page.locator("#tray .preview button[type=submit]")
        confirm.focus()
        start = page.evaluate("window.scrollY")
        page.keyboard.press("Enter")
        samples = page.evaluate(SAMPLE)
        focused = [where for where, _ in samples]
        assert not [w for w in focused if w.startswith("BODY")], focused
        assert all(abs(y - start) <= 40 for _, y in samples), samples
        assert page.evaluate("window.stillHere") is True, "the page was loaded again"
        assert "Your turn" in page.inner_text(".status")
        assert page.evaluate("document.activeElement.closest('.status') !== null")
    finally:
        context.close()
        watcher.close()
