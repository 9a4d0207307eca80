"""An event in the browser: a player signs in, creates an event, a second player joins,
the first joins and so starts it; the page shows round 1 with its game and replay, on a
phone too, and the game's page opens from it."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.services.events import entries
from pbem.store.models import Event, OutboxMessage
from tests.browser.conftest import screenshot
from tests.events.services_play import finish_round, new_event, players

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _sign_in(page, env, base: str, email: str) -> None:
    page.goto(f"{base}/signin")
    page.fill("input[name=email]", email)
    page.click("form button[type=submit]")
    with env.db.read() as session:
        mail = session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.to_addr == email, OutboxMessage.kind == "sign_in")
            .order_by(OutboxMessage.id.desc())
        ).first()
    path = re.search(r"(/signin/[A-Za-z0-9_\-]+)", mail.text_body).group(1)
    page.goto(base + path)
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r".*/me$"))


def test_create_join_and_follow_an_event(browser, env, live_server):
    (other,) = players(env, "browserjoin", 1)
    context = browser.new_context(viewport={"width": 1100, "height": 1300})
    page = context.new_page()
    try:
        _sign_in(page, env, live_server, "browser-org@example.test")
        page.click("text=Events")
        page.click("text=Create an event")
        page.fill("input[name=name]", "Browser cup")
        page.select_option("select[name=format]", "swiss")
        page.fill("input[name=rounds]", "1")
        page.fill("input[name=max_players]", "2")
        page.click("form button.primary")
        page.wait_for_url(re.compile(r".*/events/\w+$"))
        assert "Browser cup" in page.inner_text("h1")
        public_id = page.url.rsplit("/", 1)[1]
        entries.join(env, public_id, other)
        page.reload()
        page.click("text=Join the event")
        page.wait_for_selector("text=Round 1")
        assert page.locator("a:text-is('game')").count() == 1
        # a running game's replay is its players' until it is over (as its own page)
        assert page.locator("a", has_text="replay").count() == 0
        assert "The seed is shown when the event is over." in page.inner_text("body")
        context.close()
        phone = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
        page = phone.new_page()
        page.goto(f"{live_server}/events/{public_id}")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 360 + 1  # nothing wider than the phone
        page.click("a:text('game')")
        page.wait_for_url(re.compile(r".*/g/\w+$"))
        phone.close()
    finally:
        for c in browser.contexts:
            c.close()
    with env.db.read() as session:
        state = session.scalars(select(Event.state).where(Event.public_id == public_id)).one()
    assert state == "running"


def _box(page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


def test_an_event_and_its_create_form_fit_a_phone(browser, env, live_server):
    """At 360×740: the standings and the crosstable each in a labelled scroll box, the
    page no wider than the phone, the crosstable's name column not stretched; on the
    create form each choice beside its box and each field under its label."""
    public_id, _ = new_event(env, "phonecrosstablelongname", 5, format="round-robin")
    finish_round(env, public_id)
    phone = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    page = phone.new_page()
    try:
        page.goto(f"{live_server}/events/{public_id}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        for heading in ("standings-heading", "crosstable-heading"):
            box = page.locator(f"div.table-scroll[aria-labelledby={heading}]")
            assert box.get_attribute("role") == "region"
            assert box.get_attribute("tabindex") == "0"
        name = _box(page, "table.crosstable tbody th[scope=row]")
        assert name["width"] <= 200  # the name column folds: the scores show beside it
        first = _box(page, "table.crosstable tbody td")
        assert first["x"] + first["width"] <= 360
        assert page.locator("a", has_text="replay").count() >= 1  # round 1's, over
        _sign_in(page, env, live_server, "phone-org@example.test")
        page.goto(f"{live_server}/events/new")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        for value in ("full", "date", "open", "invitation"):
            radio = _box(page, f"input[type=radio][value={value}]")
            label = page.locator(f"label:has(input[type=radio][value={value}])")
            text = label.evaluate(
                "l => { const n = [...l.childNodes].find(c => c.nodeType === 3 && c.data.trim());"
                " const r = document.createRange(); r.selectNodeContents(n);"
                " return r.getClientRects()[0].toJSON(); }"
            )
            middle = radio["y"] + radio["height"] / 2
            assert text["y"] <= middle <= text["y"] + text["height"]  # on its label's line
            assert radio["x"] < 40  # at the start, not centred
        players_label = _box(page, "label:has(input[name=max_players])")
        players_field = _box(page, "input[name=max_players]")
        assert players_field["y"] >= players_label["y"]
        assert players_field["y"] - players_label["y"] < 40  # under its label, together
    finally:
        phone.close()


def test_the_organiser_starts_one_event_early_and_cancels_another_in_persian(
    browser, env, live_server
):
    """The organiser's two buttons, on the page as a person uses them: start with two
    players; cancel only once the box is ticked (the browser will not send the form
    before), and the page says who cancelled, right to left."""
    joiners = players(env, "browserearly", 2)
    context = browser.new_context(viewport={"width": 1100, "height": 1300})
    page = context.new_page()
    try:
        _sign_in(page, env, live_server, "browser-early-org@example.test")
        made = []
        for name in ("Early cup", "Called-off cup"):
            page.goto(f"{live_server}/events/new")
            page.fill("input[name=name]", name)
            page.select_option("select[name=format]", "round-robin")
            page.fill("input[name=max_players]", "8")
            page.click("form button.primary")
            page.wait_for_url(re.compile(r".*/events/\w+$"))
            made.append(page.url.rsplit("/", 1)[1])
        early, off = made
        entries.join(env, early, joiners[0])
        entries.join(env, early, joiners[1])
        page.goto(f"{live_server}/events/{early}?lang=fa")
        screenshot(page, "event-organiser-fa")
        assert page.get_attribute("html", "dir") == "rtl"
        with page.expect_navigation():
            page.click("text=آغاز مسابقه همین حالا")
        with env.db.read() as session:
            state = session.scalars(select(Event.state).where(Event.public_id == early)).one()
        assert state == "running"
        entries.join(env, off, joiners[0])
        page.goto(f"{live_server}/events/{off}?lang=fa")
        page.click("text=لغو مسابقه")  # the box not ticked: the browser asks for it
        with env.db.read() as session:
            state = session.scalars(select(Event.state).where(Event.public_id == off)).one()
        assert state == "open"
        page.check("input[name=confirm]")
        page.click("text=لغو مسابقه")
        page.wait_for_selector("text=این مسابقه پیش از آغاز به دست برگزارکننده‌اش لغو شد.")
        screenshot(page, "event-cancelled-fa")
    finally:
        context.close()
