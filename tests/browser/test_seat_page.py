"""The seat page in a real browser: build a move by clicking cards, preview, confirm."""

from __future__ import annotations

import re

import pytest

from pbem.services import games
from tests.browser.conftest import screenshot
from tests.helpers import mails

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LINK = re.compile(r"(http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_\-\.]+)")


def _game(env) -> tuple[str, int]:
    created = games.create_game(
        env, (games.PlayerIn("Ada", "ada@example.test"), games.PlayerIn("Bo", "bo@example.test"))
    )
    return created.public_id, games.public_page(env, created.public_id).view.table.to_move


def _link(env, public_id: str, seat: int) -> str:
    found = LINK.search(mails(env, public_id, seat=seat)[-1].text_body)
    assert found
    return found.group(1)


def test_click_camels_preview_and_confirm(live_server, env, page):
    public_id, seat = _game(env)
    page.goto(_link(env, public_id, seat))
    assert "Your turn" in page.inner_text(".status")
    page.click('.market [data-card="camel"] >> nth=0')
    assert page.input_value("#move") == "camels"
    assert page.locator('.market .card.selected[data-card="camel"]').count() >= 3
    screenshot(page, "seat-selecting-camels")
    page.click("text=Preview")
    assert "You take all" in page.inner_text(".preview")
    screenshot(page, "seat-preview")
    page.click("text=Confirm: camels")
    assert "Your move is recorded" in page.inner_text(".status")
    assert "Waiting for" in page.inner_text(".status")
    screenshot(page, "seat-after-move")
    assert games.public_page(env, public_id).entries[-1].move == "camels"


def test_clicking_builds_exchange_and_sale_notation(live_server, env, page):
    public_id, seat = _game(env)
    page.goto(_link(env, public_id, seat))
    goods = page.locator('.market .card[data-card]:not([data-card="camel"])')
    hand = page.locator(".me .cards:not(.herd) .card[data-card]")
    if goods.count() and hand.count():
        good = goods.nth(0).get_attribute("data-card")
        mine = [hand.nth(i).get_attribute("data-card") for i in range(hand.count())]
        other = next((c for c in mine if c != good), None)
        if other:
            goods.nth(0).click()
            hand.nth(mine.index(other)).click()
            assert page.input_value("#move") == f"exchange {good} for {other}"
            page.click("#clear")
            assert page.input_value("#move") == ""
    first = hand.nth(0).get_attribute("data-card")
    hand.nth(0).click()
    assert page.input_value("#move") == f"sell 1 {first}"
    page.click("text=Preview")
    body = page.inner_text("main")
    assert "You sell" in body or "at least 2 at a time" in body


def test_accepting_in_the_browser_adds_its_own_random_bytes(live_server, env, page):
    created = games.create_game(
        env,
        (games.PlayerIn("Ada", "ada@example.test"), games.PlayerIn("Bo", "bo@example.test")),
        await_players=True,
    )
    page.goto(_link(env, created.public_id, 0))
    entropy = page.input_value("#entropy")
    assert len(entropy) == 64 and int(entropy, 16) >= 0
    assert "Your browser made your 32 random bytes" in page.inner_text("#entropy-status")
    screenshot(page, "accept-game")
    page.click("text=Accept and play")
    assert "You have accepted" in page.inner_text(".status")
    from pbem.store.models import Seat

    with env.db.read() as session:
        seat = (
            session.query(Seat).filter_by(email="ada@example.test").order_by(Seat.id.desc()).first()
        )
        assert seat.contribution == entropy
    client_replay = page.goto(
        f"{live_server}/s/{games.seat_tokens(env, created.public_id)[0]}/replay"
    )
    assert client_replay.status == 409
