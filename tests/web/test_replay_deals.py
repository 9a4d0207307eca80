"""The replay shows each round's fresh deal as a step of its own, between the move that
ended a round (drawn as it ended) and the next round's first move."""

from __future__ import annotations

import html
import re

import pytest

from pbem.services.records import replay_access
from tests.mail.play import new_game
from tests.support import play_random
from tests.web.test_replay import FACE


def _attr(page: str, name: str) -> str:
    found = re.search(rf'{name}="([^"]*)"', page)
    assert found, name
    return html.unescape(found.group(1))


def _market(page: str) -> list[str]:
    market = page.split('<div class="market">', 1)[1].split('<div class="cards">', 1)[1]
    market = market.split("</div>", 1)[0]
    return FACE.findall(market)


@pytest.fixture
def finished(env) -> str:
    public_id = new_game(env)
    play_random(env, public_id)
    return public_id


def test_each_rounds_deal_has_its_own_step(client, env, finished):
    replay = replay_access.open_public(env, finished).replay
    end_of_1 = min(replay.deals)  # the move that ended round 1
    state = replay.states[end_of_1]
    base = f"/g/{finished}/replay"

    ended = client.get(f"{base}?n={end_of_1}&as=all").text
    assert "Round 1 is over" in ended
    assert _attr(ended, "data-next") == f"{base}?n={end_of_1}&as=all&deal=1"

    deal = client.get(f"{base}?n={end_of_1}&as=all&deal=1")
    assert deal.status_code == 200
    assert "The deal of round 2." in deal.text and "Round 1 is over" not in deal.text
    assert _market(deal.text) == [c.word for c in state.round.market_cards()]  # the new deal
    assert _attr(deal.text, "data-prev") == f"{base}?n={end_of_1}&as=all"
    assert _attr(deal.text, "data-next") == f"{base}?n={end_of_1 + 1}&as=all"
    assert 'aria-current="step"><a href="' in deal.text
    assert "deal of round 2" in deal.text  # in the list of steps

    first = client.get(f"{base}?n=0&as=all").text  # ↓ from round 1 goes to round 2's deal
    assert _attr(first, "data-next-round") == f"{base}?n={end_of_1}&as=all&deal=1"
    after = client.get(f"{base}?n={end_of_1 + 1}&as=all").text  # ↑ back to that deal
    assert _attr(after, "data-prev-round") == f"{base}?n={end_of_1}&as=all&deal=1"
    assert _attr(after, "data-prev") == f"{base}?n={end_of_1}&as=all&deal=1"

    for seat in ("0", "1"):  # each seat's side of the deal: its own new hand
        seen = client.get(f"{base}?n={end_of_1}&as={seat}&deal=1")
        assert seen.status_code == 200 and "The deal of round 2." in seen.text

    assert client.get(f"{base}?n=1&as=all&deal=1").status_code == 404  # no deal after move 1
    assert client.get(f"{base}?n={replay.last}&as=all&deal=1").status_code == 404  # the end
