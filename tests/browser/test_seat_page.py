"""The seat page in a real browser: build a move by clicking cards, preview, confirm."""

from __future__ import annotations

import json
import re

import pytest

from pbem.services.play import game_pages, new_games
from tests.browser.conftest import screenshot
from tests.helpers import mails

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WHERE = {"market": ".market", "hand": ".me .cards:not(.herd)", "herd": ".me .cards.herd"}
LINK = re.compile(r"(http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_\-\.]+)")


def _game(env) -> tuple[str, int]:
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
    )
    return created.public_id, game_pages.public_page(env, created.public_id).view.table.to_move


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
    assert page.locator('.market .card[aria-pressed="true"][data-card="camel"]').count() >= 3
    screenshot(page, "seat-selecting-camels")
    # the server's preview comes by itself, in place, with its Confirm button
    page.wait_for_selector("#tray .preview")
    assert "You take all" in page.inner_text("#tray .preview")
    screenshot(page, "seat-preview")
    page.click("text=Confirm: camels")
    page.wait_for_selector("text=Your move is recorded")
    assert "Waiting for" in page.inner_text(".status")
    screenshot(page, "seat-after-move")
    assert game_pages.public_page(env, public_id).entries[-1].move == "camels"


def test_clicked_cards_name_the_servers_move(live_server, env, page):
    """The page lists each legal move by its cards; clicking them writes it, no rule in JS."""
    public_id, seat = _game(env)
    page.goto(_link(env, public_id, seat))
    choices = json.loads(page.inner_text("#choices"))["moves"]
    assert game_pages.legal_moves(env, game_pages.seat_tokens(env, public_id)[seat]) and choices
    hand = page.locator(".me .cards:not(.herd) .card[data-card]")
    tried = [(k, t) for k, t in sorted(choices.items()) if t.startswith(("sell", "exchange"))]
    for key, text in tried[:2] + tried[-2:]:
        if page.locator("#clear").is_visible():
            page.click("#clear")
        for place, words in (part.split(":") for part in key.split(";")):
            for word in filter(None, words.split(",")):
                free = f'.card[data-card="{word}"][aria-pressed="false"]'
                page.locator(f"{WHERE[place]} {free}").first.click()
        assert page.input_value("#move") == text
        page.wait_for_selector("#tray .preview")
        assert "Confirm: " + text in page.inner_text("#tray")
    # a card alone that makes no move says why, in the rules' words (issue 33)
    page.click("#clear")
    first = hand.nth(0).get_attribute("data-card")
    hand.nth(0).click()
    if f"market:;hand:{first};herd:" not in choices:
        assert page.input_value("#move") == ""
        page.wait_for_selector("#tray .alert")
        assert "must be sold at least 2 at a time" in page.inner_text("#tray .alert")


def test_accepting_in_the_browser_adds_its_own_random_bytes(live_server, env, page):
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
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
        f"{live_server}/s/{game_pages.seat_tokens(env, created.public_id)[0]}/replay"
    )
    assert client_replay.status == 409
