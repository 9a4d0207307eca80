"""The replay viewer in a real browser: keys, step URLs, perspectives, what a seat sees."""

from __future__ import annotations

import pytest

from pbem.engine import load_record, replay_states
from pbem.services.play import game_pages
from pbem.services.records import game_records
from tests.browser.conftest import screenshot
from tests.mail.play import new_game, token
from tests.support import play_random

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_keyboard_steps_rounds_perspective_and_help(live_server, env, page):
    public_id = new_game(env)
    play_random(env, public_id)
    last = len(game_pages.public_page(env, public_id).entries)
    page.goto(f"{live_server}/g/{public_id}/replay?n=10&as=all")
    screenshot(page, "replay-everything-move-10")

    def step() -> int:
        page.wait_for_function("() => document.getElementById('replay') !== null")
        return int(page.get_attribute("#replay", "data-n"))

    page.keyboard.press("ArrowRight")
    page.wait_for_url("**n=11&**")
    assert step() == 11
    page.keyboard.press("j")
    page.wait_for_url("**n=12&**")
    page.keyboard.press("k")
    page.wait_for_url("**n=11&**")
    page.keyboard.press("ArrowLeft")
    page.wait_for_url("**n=10&**")
    page.keyboard.press("End")
    page.wait_for_url(f"**n={last}**")
    assert f"Move {last} of {last}" in page.inner_text(".status")
    page.keyboard.press("Home")
    page.wait_for_url("**n=0&**")
    page.keyboard.press("ArrowDown")  # to the start of round 2
    page.wait_for_function("() => Number(document.getElementById('replay').dataset.n) > 0")
    assert "round 2" in page.inner_text(".status")
    page.keyboard.press("f")  # everything -> seat 0's view
    page.wait_for_url("**as=0**")
    assert "(what Ada saw)" in page.inner_text(".board")
    screenshot(page, "replay-seat-0")
    page.keyboard.press("Shift+?")
    assert page.is_visible("#help")
    screenshot(page, "replay-help")
    page.keyboard.press("Escape")
    assert not page.is_visible("#help")
    page.go_back()  # the browser's history follows the steps
    page.wait_for_url("**as=all**")
    page.click(".step-list li[value='5'] a")
    page.wait_for_url("**n=5&**")
    assert step() == 5
    page.goto(f"{live_server}/g/{public_id}/audit/5")
    assert "Audit of move 5" in page.inner_text("h1")
    screenshot(page, "audit-move-5")


def test_a_running_games_replay_sends_nothing_the_seat_could_not_see(live_server, env, page):
    public_id = new_game(env, first=0)
    play_random(env, public_id, 12)
    record = load_record(game_records.operator_record(env, public_id))
    states = list(replay_states(record.seed_bytes, record.moves, record.first_player))
    secrets = {record.seed}
    for state in states:
        deck = state.round.deck_cards()
        if len(deck) >= 6:
            secrets.add(", ".join(c.word for c in deck[:6]))
    bodies: list[str] = []
    page.on(
        "response",
        lambda r: (
            bodies.append(r.text()) if "text" in (r.headers.get("content-type") or "") else None
        ),
    )
    page.goto(f"{live_server}/s/{token(env, public_id, 0)}/replay?n=0")
    for _ in range(len(states) - 1):
        n = int(page.get_attribute("#replay", "data-n"))
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => Number(document.getElementById('replay').dataset.n) > {n}")
    page.keyboard.press("f")  # no other perspective while the game runs
    screenshot(page, "replay-running-seat-0")
    assert "Seen as:" in page.inner_text(".perspectives")
    assert "everything" not in page.inner_text(".perspectives")
    assert len(bodies) >= len(states)
    for body in bodies:
        for secret in secrets:
            assert secret not in body
