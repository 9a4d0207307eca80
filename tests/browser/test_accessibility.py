"""axe-core finds nothing serious or critical on the pages a player reads, in English and
in Persian (right to left): home, a seat mid-game with cards selected, the replay (with
its analysis being made), the
audit of a move, "my games" signed in, and the open challenges.

axe-core is pinned by tests/browser/axe/package-lock.json; the ``axe_script`` fixture
(tests/browser/conftest.py) installs it with npm.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.services.core import identity, lookup
from pbem.services.play import challenges
from pbem.services.records import analysis
from pbem.store.models import Player
from tests.mail.play import new_game, play, to_move, token
from tests.support import play_random
from tests.web.test_players import sign_in_mail

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Impacts that fail the test; "minor" and "moderate" findings are only printed.
BLOCKING = ("serious", "critical")
SIGN_IN = re.compile(r"(/signin/[A-Za-z0-9_\-]+)")
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: n.failureSummary})),
  }));
}"""


def _violations(page, axe_script) -> list[dict]:
    page.wait_for_load_state("load")
    page.add_script_tag(path=str(axe_script))
    return page.evaluate(RUN_AXE)


def _report(found: dict[str, list[dict]], impacts: tuple[str, ...]) -> str:
    lines = []
    for name, violations in found.items():
        for v in violations:
            if v["impact"] not in impacts:
                continue
            lines.append(f"{name}: {v['id']} ({v['impact']}): {v['help']}")
            for node in v["nodes"][:10]:
                lines.append(f"    {node['target']}")
                summary = (node["summary"] or "").replace("\n", "\n      ")
                lines.append(f"      {summary}")
            if len(v["nodes"]) > 10:
                lines.append(f"    ... and {len(v['nodes']) - 10} more")
    return "\n".join(lines)


def _sign_in(page, base: str, env, email: str) -> None:
    page.goto(f"{base}/signin")
    page.fill("input[name=email]", email)
    page.locator("main form button[type=submit], main form input[type=submit]").first.click()
    page.wait_for_load_state()
    found = SIGN_IN.search(sign_in_mail(env, email)[-1].text_body)
    assert found, "no sign-in link in the mail"
    page.goto(base + found.group(1))
    page.locator("main form button[type=submit], main form input[type=submit]").first.click()
    page.wait_for_url("**/me")


@pytest.mark.parametrize("language", ["en", "fa"])
def test_pages_have_no_serious_accessibility_violations(
    browser, env, live_server, axe_script, language
):
    base = live_server
    lang = f"lang={language}"
    finished = new_game(env)
    play_random(env, finished)
    with env.db.read() as session:
        finished_id = lookup.game_row(session, finished).id
    analysis.analyse_slice(env, finished_id, 12)  # verdicts, marks, a graph, the progress
    running = new_game(env, first=0)
    play(env, running, 6)  # tokens, a move list and a changed market
    seat = to_move(env, running)
    now = env.clock.now()
    with env.db.write() as session:
        identity.player_for(session, "axe-poster@example.test", "Poster", now)
    with env.db.read() as session:
        poster = session.scalars(
            select(Player.id).where(Player.email == "axe-poster@example.test")
        ).one()
    # withdrawn at the end: the database is shared, and other tests accept "the" open one
    posted = challenges.post(env, poster, days_per_move=3, starter="random", note="a quick game?")

    # bypass_csp: the pages allow only their own scripts, and axe is added inline.
    context = browser.new_context(viewport={"width": 1100, "height": 1300}, bypass_csp=True)
    page = context.new_page()
    found: dict[str, list[dict]] = {}
    try:
        page.goto(f"{base}/?{lang}")
        found["home"] = _violations(page, axe_script)

        page.goto(f"{base}/s/{token(env, running, seat)}?{lang}")
        found["seat"] = _violations(page, axe_script)
        # Selecting cards shows the move being built; the page then has more to check.
        page.locator(".me .cards:not(.herd) .card[data-card]").first.click()
        page.wait_for_selector(".card.selected, .card[aria-pressed=true]")
        page.wait_for_load_state("networkidle")  # whatever the selection asks the server
        found["seat, a card selected"] = _violations(page, axe_script)

        page.goto(f"{base}/g/{finished}/replay?n=10&as=all&{lang}")
        page.locator(".chance-chart details summary").first.click()  # the graph's table
        found["replay"] = _violations(page, axe_script)

        page.goto(f"{base}/g/{finished}/audit/5?{lang}")
        found["audit"] = _violations(page, axe_script)

        _sign_in(page, base, env, "ada@example.test")
        page.goto(f"{base}/me?{lang}")
        assert page.get_attribute("html", "lang") == language
        found["my games"] = _violations(page, axe_script)

        page.goto(f"{base}/challenges?{lang}")
        found["challenges"] = _violations(page, axe_script)

        from tests.events.services_play import finish_round, new_event

        event_id, _ = new_event(env, f"axe{language}", 3, format="round-robin")
        finish_round(env, event_id)  # results, a crosstable, a round running
        page.goto(f"{base}/events/{event_id}?{lang}")
        found["event"] = _violations(page, axe_script)
        page.goto(f"{base}/events?{lang}")
        found["events"] = _violations(page, axe_script)
        page.goto(f"{base}/events/new?{lang}")
        found["new event"] = _violations(page, axe_script)
    finally:
        context.close()
        challenges.withdraw(env, posted, poster)

    noted = _report(found, ("minor", "moderate"))
    if noted:
        print(f"axe-core, {language}, minor and moderate:\n{noted}")
    blocking = _report(found, BLOCKING)
    assert not blocking, f"axe-core, {language}, serious and critical:\n{blocking}"
