"""The replay with its analysis on a phone (issue 33, points 2 and 5): it fits 360 and 390
pixels wide with nothing cut off, in all five languages, its table opened (in a box that
scrolls sideways, labelled and reached by the keyboard, its words never broken inside),
and on a Persian page the step buttons and the arrow keys point the way the page reads.

Screenshots land in build/screenshots/replay-analysis-{lang}-{width}.png to be looked at;
docs/screenshots/replay-analysis-phone.png is the English one at 390 px.
"""

from __future__ import annotations

import pytest

from pbem.services.play import new_games
from tests.browser.conftest import screenshot
from tests.mail.play import play, token
from tests.web.test_replay_verdicts import _judge

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONES = {
    360: dict(viewport={"width": 360, "height": 740}, device_scale_factor=2, is_mobile=True),
    390: dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True),
}

#: What sticks out of the screen or of its own box (a box that scrolls is not cut off).
CUT_OFF = """() => {
  const out = [], width = document.documentElement.clientWidth;
  const scrolls = el => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x === "auto" || x === "scroll") return true;
    }
    return false;
  };
  for (const el of document.querySelectorAll("#replay *")) {
    if (!el.offsetParent || el.closest("#help")) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;
    if ((box.right > width + 1 || box.left < -1) && !scrolls(el))
      out.push(el.tagName + "." + el.className + ": " + (el.innerText || "").slice(0, 40));
    if (["TH", "TD", "A", "BUTTON", "CODE", "B"].includes(el.tagName)
        && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      out.push("inside " + el.tagName + ": " + el.innerText.slice(0, 40));
  }
  return out;
}"""


#: The words of the analysis table's cells wider than their cell: a word broken inside.
#: (Chinese has no spaces and breaks between any two characters: not a word broken.)
BROKEN_WORDS = """() => {
  const out = [];
  for (const cell of document.querySelectorAll(".chance-table th, .chance-table td")) {
    const style = getComputedStyle(cell);
    const room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    for (const word of cell.innerText.split(/\\s+/).filter(Boolean)) {
      if (/\\p{Script=Han}/u.test(word)) continue;
      const probe = document.createElement("span");
      probe.style.whiteSpace = "nowrap";
      probe.textContent = word;
      cell.appendChild(probe);
      const wide = probe.getBoundingClientRect().width;
      probe.remove();
      if (wide > room + 1) out.push(word);
    }
  }
  return out;
}"""

#: The box around the analysis table, as other wide tables have it: [class, role, label, tabindex].
SCROLL_BOX = """() => [...document.querySelectorAll(".chance-table")].map(t => {
  const box = t.parentElement;
  return [box.className, box.getAttribute("role"),
          box.getAttribute("aria-label") || box.getAttribute("aria-labelledby") || "",
          box.getAttribute("tabindex"), getComputedStyle(box).overflowX];
})"""


@pytest.fixture
def analysed(live_server, env) -> str:
    seats = (
        new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
        new_games.PlayerIn("Bo", "bo@example.test", "en"),
    )
    public_id = new_games.create_game(env, seats, first_player=0).public_id
    play(env, public_id, 11)
    from pbem.services.core import access
    from pbem.services.play import moves

    moves.submit_move(env, token(env, public_id, 1), 12, "resign", access.Client())
    drops = {3: 25.0, 5: 8.0, 8: 35.0, 9: 12.0}
    _judge(env, public_id, lambda n, seat: (0.66, 0.66 - drops.get(n, 0) / 100, drops.get(n, 0)))
    return public_id


@pytest.mark.parametrize("width", sorted(PHONES))
@pytest.mark.parametrize("language", ["el", "en", "fa", "uk", "zh"])
def test_the_replay_with_its_analysis_fits_a_phone(browser, live_server, analysed, language, width):
    context = browser.new_context(**PHONES[width])
    page = context.new_page()
    try:
        page.goto(f"{live_server}/g/{analysed}/replay?n=3&lang={language}")
        page.click(".chance-chart summary")  # the table open too
        assert page.is_visible(".chance-table")
        shot = screenshot(page, f"replay-analysis-{language}-{width}")
        assert shot.exists()
        assert page.evaluate(CUT_OFF) == []
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        boxes = page.evaluate(SCROLL_BOX)
        assert boxes and all(
            "table-scroll" in cls and role == "region" and label and tab == "0" and x == "auto"
            for cls, role, label, tab, x in boxes
        ), boxes
        assert page.evaluate(BROKEN_WORDS) == []
    finally:
        context.close()


def test_persian_step_buttons_point_the_way_the_page_reads(browser, live_server, env, analysed):
    context = browser.new_context(**PHONES[360])
    page = context.new_page()
    try:
        page.goto(f"{live_server}/s/{token(env, analysed, 0)}/replay?n=5")
        assert page.get_attribute("html", "dir") == "rtl"
        links = page.locator("nav.controls a")
        first, back = links.nth(0).bounding_box(), links.nth(1).bounding_box()
        forward, last = links.nth(2).bounding_box(), links.nth(3).bounding_box()
        assert first["x"] > back["x"] > forward["x"] > last["x"]  # "first" on the right
        for i in range(4):  # each arrow drawn mirrored: "back" points right, to "first"
            transform = (
                links.nth(i).locator(".arrow").evaluate("el => getComputedStyle(el).transform")
            )
            assert transform.startswith("matrix(-1, 0, 0, 1"), transform
        page.keyboard.press("ArrowRight")  # the key of the button on the right: back
        page.wait_for_function("() => document.getElementById('replay').dataset.n === '4'")
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("() => document.getElementById('replay').dataset.n === '5'")
        markers = page.eval_on_selector(".step-list", "el => getComputedStyle(el).listStyleType")
        assert markers == "persian"
    finally:
        context.close()


def test_a_phone_screenshot_of_a_real_analysis(browser, live_server, env):
    """docs/screenshots/replay-analysis-phone{,-graph}.png come from here (build/screenshots):
    a game judged by the real analysis, its step with a verdict and its graph, at 390 px."""
    from pbem.services.core import access, lookup
    from pbem.services.play import moves
    from pbem.services.records import analysis
    from tests.mail.play import new_game

    public_id = new_game(env)
    play(env, public_id, 14)
    moves.submit_move(env, token(env, public_id, 0), 15, "resign", access.Client())
    with env.db.read() as session:
        game_id = lookup.game_row(session, public_id).id
    analysis.analyse_slice(env, game_id, 100)
    shown = analysis.public_analysis(env, public_id)
    n = max(shown.moves.values(), key=lambda j: j.drop or 0).n  # the worst move: a verdict
    context = browser.new_context(**PHONES[390])
    page = context.new_page()
    try:
        page.goto(f"{live_server}/g/{public_id}/replay?n={n}&lang=en")
        assert page.is_visible(".verdict")
        page.locator(".step").scroll_into_view_if_needed()
        page.screenshot(
            path=str(
                screenshot(page, "replay-analysis-phone-full").parent / "replay-analysis-phone.png"
            )
        )
        page.locator(".analysis").screenshot(
            path=str(
                screenshot(page, "replay-analysis-phone-full").parent
                / "replay-analysis-phone-graph.png"
            )
        )
        assert page.evaluate(CUT_OFF) == []
    finally:
        context.close()
