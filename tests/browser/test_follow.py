"""Pages that follow the game (issue 32, 6 and 7): the page of a player waiting for a
person shows that person's move by itself, in place; a game against the computer played
live on its page, the computer woken at once by each move, sends no "your turn" mail."""

from __future__ import annotations

import pytest

from pbem import wakeup
from pbem.mail.delivery import ConsoleBackend
from pbem.services.core import access
from pbem.services.play import computer, game_pages, moves, new_games
from pbem.services.scheduled import jobs
from tests.helpers import mails, past_the_hold
from tests.mail.play import new_game, to_move, token
from tests.support import own_database

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# the mails are delivered here: an outbox of this module's own, not every mail of the run
database_url, database = own_database("module")


def test_the_waiting_page_shows_the_persons_move_in_place(browser, env, live_server):
    public_id = new_game(env)
    mover = to_move(env, public_id)
    waiter = 1 - mover
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{live_server}/s/{token(env, public_id, waiter)}")
        assert "Waiting for" in page.inner_text(".status")
        page.evaluate("window.stillHere = true")  # gone if the page is loaded again
        t = token(env, public_id, mover)
        moves.submit_move(env, t, 1, game_pages.legal_moves(env, t)[0], access.Client())
        page.wait_for_selector(".status.your-turn", timeout=15_000)
        assert "Your turn" in page.inner_text(".status")
        assert page.evaluate("window.stillHere") is True  # in place: no page load
        assert page.locator("#move").count() == 1  # the move form, and its script, work
        page.locator('.market button.card[data-card="camel"], .market button.card').first.click()
        page.wait_for_selector("#tray:not([hidden])")
    finally:
        context.close()
    past_the_hold(env)
    jobs.deliver_mail(env, ConsoleBackend(open("/dev/null", "w")))  # noqa: SIM115
    [told] = mails(env, public_id, seat=waiter, kind="your_turn")
    assert told.status == "dropped"  # the page showed the move: no mail for it


def test_a_game_against_the_computer_played_live_sends_no_your_turn(browser, env, live_server):
    created = computer.start(
        env, new_games.PlayerIn("Ada", "live@example.test"), "easy", contribution=bytes(32)
    )
    watcher = wakeup.Watcher(env.db, lambda: computer.computer_moves(env))  # the scheduler's
    watcher.start()
    context = browser.new_context()
    page = context.new_page()
    try:
        assert watcher.listening.wait(10)
        computer.computer_moves(env)  # its first move, if it starts
        page.goto(f"{live_server}/s/{created.tokens[0]}")
        page.evaluate("window.stillHere = true")
        for _ in range(8):
            page.wait_for_selector(".status.your-turn", timeout=20_000)
            seen = int(page.locator("input[name=n]").first.get_attribute("value"))
            legal = game_pages.legal_moves(env, created.tokens[0])
            page.fill("#move", legal[0])
            page.press("#move", "Enter")
            page.click("#tray .preview button[type=submit]")
            # the page moved past this position in place: the move, and the computer's
            # answer, which may come before the page ever shows it thinking
            page.wait_for_function(
                "seen => [...document.querySelectorAll('input[name=n]')]"
                ".some(field => Number(field.value) > seen + 1)",
                arg=seen,
                timeout=20_000,
            )
        page.wait_for_selector(".status.your-turn", timeout=20_000)
        assert page.evaluate("window.stillHere") is True  # every move shown in place
    finally:
        context.close()
        watcher.close()
    past_the_hold(env)
    jobs.deliver_mail(env, ConsoleBackend(open("/dev/null", "w")))  # noqa: SIM115
    told = mails(env, created.public_id, seat=0, kind="your_turn")
    assert len(told) >= 4  # a move that ended a round its mover starts again gets none
    assert {m.status for m in told} == {"dropped"}


HIDE = """(hidden) => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_a_page_out_of_sight_asks_nothing_and_shows_the_move_when_looked_at(
    browser, env, live_server
):
    """A hidden tab (document.hidden, as the browser reports it) neither asks the log nor
    fetches the page: the server never records that it showed the move, and the mail goes."""
    public_id = new_game(env)
    mover = to_move(env, public_id)
    waiter = 1 - mover
    context = browser.new_context()
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    try:
        page.goto(f"{live_server}/s/{token(env, public_id, waiter)}")
        page.evaluate(HIDE, True)
        asked.clear()
        t = token(env, public_id, mover)
        moves.submit_move(env, t, 1, game_pages.legal_moves(env, t)[0], access.Client())
        page.wait_for_timeout(5000)  # two and a half of its intervals, had it been in sight
        assert asked == [] and "Waiting for" in page.inner_text(".status")
        past_the_hold(env)
        jobs.deliver_mail(env, ConsoleBackend(open("/dev/null", "w")))  # noqa: SIM115
        [told] = mails(env, public_id, seat=waiter, kind="your_turn")
        assert told.status == "sent"  # the page did not show it
        page.evaluate(HIDE, False)  # looked at again: it asks at once
        page.wait_for_selector(".status.your-turn", timeout=15_000)
    finally:
        context.close()
