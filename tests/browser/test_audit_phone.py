"""The audit of a move on a phone (exp-layout, 1): at 360×740 the page is no wider than
the screen, in English and in Persian, and nothing on it is cut off: hashes and the
logged contributions break, and the access-log table scrolls inside a box of its own
that fits the screen, as a wide table must.

Screenshots: build/screenshots/audit-phone-{lang}-{who}.png.
"""

from __future__ import annotations

import pytest

from pbem.services.core import access
from pbem.services.play import new_games
from tests.browser.conftest import screenshot
from tests.support import own_database, play_random

pytestmark = [pytest.mark.browser, pytest.mark.slow]

database_url, database = own_database("module")

PHONE = dict(viewport={"width": 360, "height": 740}, device_scale_factor=2, is_mobile=True)
PHONE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP1A.240505.004) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/124.0.6367.113 Mobile Safari/537.36"
)

#: Each element that sticks out of the screen, unless a scroll box that itself fits the
#: screen holds it; and each cell, code or link whose own content overflows it.
CUT_OFF = """() => {
  const out = [], width = document.documentElement.clientWidth;
  const inBox = el => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x === "auto" || x === "scroll") {
        const box = p.getBoundingClientRect();
        return box.left >= -1 && box.right <= width + 1;
      }
    }
    return false;
  };
  for (const el of document.querySelectorAll("main *")) {
    if (!el.getClientRects().length) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;
    if ((box.right > width + 1 || box.left < -1) && !inBox(el))
      out.push(el.tagName + "." + el.className + ": " + (el.innerText || "").slice(0, 40));
    if (["TH", "TD", "DD", "A", "CODE", "B", "Q", "SUMMARY"].includes(el.tagName)
        && getComputedStyle(el).overflowX !== "auto"
        && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      out.push("inside " + el.tagName + ": " + el.innerText.slice(0, 40));
  }
  return out;
}"""


@pytest.fixture(scope="module")
def finished(module_env) -> tuple[str, str]:
    """A game both players accepted from a phone (their contributions logged as hex), played
    to its end; its public id and the first seat's link."""
    env = module_env
    made = new_games.create_game(
        env,
        (
            new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
            new_games.PlayerIn("Ada Lovelace-Byron", "ada@example.test", "en"),
        ),
        await_players=True,
    )
    phone = access.Client("2001:db8:85a3:1234:5678:8a2e:370:7334", PHONE_UA)
    for seat, t in enumerate(made.tokens):
        new_games.accept(env, t, bytes(range(seat, seat + 32)), phone)
    play_random(env, made.public_id)
    return made.public_id, made.tokens[0]


@pytest.mark.parametrize("language", ["en", "fa"])
@pytest.mark.parametrize("who", ["public", "seat"])
def test_the_audit_fits_a_phone(browser, live_server, finished, language, who):
    public_id, seat_token = finished
    base = f"{live_server}/g/{public_id}" if who == "public" else f"{live_server}/s/{seat_token}"
    context = browser.new_context(**PHONE)
    page = context.new_page()
    try:
        page.goto(f"{base}/audit/1?lang={language}")
        assert page.get_attribute("html", "lang") == language
        assert page.locator("table.inbox tbody tr").count() >= 2  # the accepts, logged
        page.locator("details").evaluate_all("all => all.forEach(d => d.open = true)")
        shots = screenshot(page, f"audit-phone-{language}-{who}").parent
        for part in ("audit-proof", "audit-access"):  # the first screenful of each
            page.locator(f"section.{part} h2").first.evaluate("h => h.scrollIntoView()")
            page.screenshot(path=str(shots / f"audit-phone-{language}-{who}-{part}.png"))
        assert page.evaluate(CUT_OFF) == []
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    finally:
        context.close()
