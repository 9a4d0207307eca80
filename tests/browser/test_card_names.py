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


#: Each card name whose text is cut (an ellipsis, or clipped by its own box) or sticks out
#: of its card: the name's text, the card's kind, whether the card is small.
CUT_NAMES = """() => [...document.querySelectorAll('.card .name')].flatMap(el => {
  const card = el.closest('.card'), style = getComputedStyle(card);
  const range = document.createRange();
  range.selectNodeContents(el);
  const text = range.getBoundingClientRect(), box = card.getBoundingClientRect();
  const inner = [box.left + parseFloat(style.borderLeftWidth),
                 box.right - parseFloat(style.borderRightWidth)];
  const cut = el.scrollWidth > el.clientWidth + 0.5
    || text.left < inner[0] - 0.5 || text.right > inner[1] + 0.5;
  return cut ? [[el.textContent, card.dataset.card || card.className,
                 card.classList.contains('small')]] : [];
})"""

#: The kinds of card shown whole, at each size (small: a hand of the full board).
KINDS = """() => [...document.querySelectorAll('.card .name')].map(el => el.closest('.card'))
  .map(card => [card.className.match(/card-(\\w+)/)[1], card.classList.contains('small')])"""


def _herd(env, seat_token: str) -> int:
    from pbem.services.core import access
    from pbem.services.play import game_pages

    return game_pages.seat_page(env, seat_token, access.Client()).view.me.herd


@pytest.mark.parametrize("language", ["en", "el", "fa", "uk", "zh"])
def test_no_card_name_is_cut(live_server, env, browser, language):
    """Every card shows its whole name ("Μπαχαρ…" was spice in Greek, "Вербл…" a small
    camel in Ukrainian): on the seat page and on the replay's full board, at 360×740 and
    on a desktop, every kind of card at both sizes."""
    from pbem.services.play import game_pages
    from tests.mail.play import token

    running = new_game(env, emails=(f"ada-{language}@example.test", "bo@example.test"))
    play_random(env, running, 12)
    for k in range(60):  # until a herd holds camels: they are drawn small on the seat page
        if any(_herd(env, token(env, running, seat)) for seat in (0, 1)):
            break
        play_random(env, running, 1, seed=k)
    seat_urls = [f"{live_server}/s/{token(env, running, seat)}?lang={language}" for seat in (0, 1)]
    public_id = new_game(env, emails=(f"ada-{language}@example.test", "bo@example.test"))
    play_random(env, public_id)  # over: its replay shows the full board
    last = len(game_pages.public_page(env, public_id).entries)
    kinds = {"diamond", "gold", "silver", "cloth", "spice", "leather", "camel"}
    cut: set[tuple[int, str, str, bool]] = set()
    for viewport in ({"width": 360, "height": 740}, {"width": 1100, "height": 900}):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        seen: set[tuple[str, bool]] = set()
        try:
            urls = seat_urls + [
                f"{live_server}/g/{public_id}/replay?n={n}&as=all&lang={language}"
                for n in range(0, last + 1, 4)
            ]
            for i, url in enumerate(urls):
                if i > 12 and all(
                    kinds <= {k for k, s in seen if s == small} for small in (True, False)
                ):
                    break  # every kind seen at both sizes
                page.goto(url)
                assert page.get_attribute("html", "lang") == language
                cut |= {(viewport["width"], *name) for name in page.evaluate(CUT_NAMES)}
                seen |= {tuple(k) for k in page.evaluate(KINDS)}
        finally:
            context.close()
        assert {k for k, small in seen if small} == kinds, viewport
        assert {k for k, small in seen if not small} == kinds, viewport
    assert not cut, sorted(cut)
