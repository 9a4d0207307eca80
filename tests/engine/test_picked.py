"""The cards a seat picks to make each legal move (``views.picked``): the seat page's
script maps a selection of cards to its move with these, so they must name cards that
lie where they say, and no two legal moves may be picked with the same cards."""

from __future__ import annotations

import random
from collections import Counter

from pbem.engine import Card, Match, Sell, TakeCamels
from pbem.engine.views import PLACES, picked


def _states(seed: int) -> list[Match]:
    rng = random.Random(seed)
    state = Match.new(bytes([seed]) * 32)
    states = [state]
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    return states


def test_every_legal_move_is_picked_with_cards_on_the_table_and_no_two_alike():
    for seed in (1, 2, 3):
        for state in _states(seed):
            r = state.round
            if r.end is not None:
                continue
            seat, market = r.to_move, r.market_cards()
            table = {
                "market": Counter(c.word for c in market),
                "hand": Counter(c.word for c in r.hand(seat)),
                "herd": Counter({"camel": r.herds[seat]}),
            }
            seen = set()
            for move in state.legal_moves():
                cards = picked(move, market)
                assert set(cards) <= set(PLACES) and any(cards.values()), move
                for place, words in cards.items():
                    assert not Counter(words) - table[place], (move, place)
                key = tuple(tuple(sorted(cards.get(p, ()))) for p in PLACES)
                assert key not in seen, move
                seen.add(key)


def test_the_camels_are_picked_all_together_and_a_sale_from_the_hand():
    state = Match.new(bytes(32))
    market = state.round.market_cards()
    camels = picked(TakeCamels(), market)["market"]
    assert camels and set(camels) == {"camel"} and len(camels) == market.count(Card.CAMEL)
    sale = next(m for m in state.legal_moves() if isinstance(m, Sell))
    assert picked(sale, market) == {"hand": (sale.good.word,) * sale.count}
