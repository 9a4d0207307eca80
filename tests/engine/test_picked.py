"""The cards a seat picks to make each legal move (``views.picked``): the seat page's
script maps a selection of cards to its move with these, so they must name cards that
lie where they say, and no two legal moves may be picked with the same cards."""

from __future__ import annotations

import random
from collections import Counter

from pbem.engine import Card, Match, Sell, TakeCamels
from pbem.engine.errors import MoveError
from pbem.engine.notation import parse_move
from pbem.engine.views import PLACES, meant, picked


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


def test_the_cards_of_each_legal_move_write_that_move():
    """``meant`` is ``picked`` read backwards: the server reads a selection the page sends
    as the move it makes, and the rules refuse any other selection with their reason."""
    for seed in (1, 2):
        for state in _states(seed):
            r = state.round
            if r.end is not None:
                continue
            market = r.market_cards()
            for move in state.legal_moves():
                assert parse_move(meant(picked(move, market))) == move


def test_a_selection_that_makes_no_move_gets_the_rules_reason():
    said = {}
    for cards in (
        {"hand": ("silver",)},
        {"hand": ("cloth", "spice")},
        {"herd": ("camel",)},
        {"hand": ("gold",), "herd": ("camel",)},
        {"market": ("gold", "silver")},
        {"market": ("gold", "camel", "camel")},
        {"market": ("gold", "camel"), "hand": ("silver",)},
    ):
        try:
            said[meant(cards)] = parse_move(meant(cards)).__class__.__name__
        except MoveError as error:
            said[meant(cards)] = error.code
    assert said == {
        "sell silver": "Sell",  # readable: Match.apply refuses a lone silver
        "sell cloth spice": "sell_one_type",
        "sell camel": "sell_camel",
        "exchange for gold camel": "exchange_needs_for",
        "take gold silver": "take_several",
        "take gold camel camel": "take_needs_one_good",
        "exchange gold camel for silver": "exchange_camel_taken",
    }
    assert meant({"market": ("camel", "camel")}) == "camels"
