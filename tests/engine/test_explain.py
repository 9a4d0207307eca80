"""Previews and narrations say in words what the rules do."""

from __future__ import annotations

import pytest

from pbem.engine import IllegalMoveError, parse_move
from pbem.engine.explain import narrate, preview

from .builders import make_match, make_round


def test_exchange_preview_names_cards_and_the_hand_after():
    m = make_match(
        make_round(
            hands=("cloth cloth cloth cloth", ""),
            herds=(2, 0),
            market="spice spice gold silver camel",
        )
    )
    text = preview(m, parse_move("exchange spice spice for camel camel"), 0)
    assert text == "You take 2 spice and give back 2 camels; your hand will hold 6 cards."


def test_sale_preview_names_tokens_and_bonus():
    m = make_match(make_round(hands=("cloth cloth cloth", "")))
    text = preview(m, parse_move("sell 3 cloth"), 0)
    assert text.startswith("You sell 3 cloth for goods tokens 5, 3, 3 and a bonus token")


def test_preview_of_an_illegal_move_raises_the_rules_reason():
    m = make_match(make_round(hands=("silver", "")))
    with pytest.raises(IllegalMoveError, match="at least 2"):
        preview(m, parse_move("sell 1 silver"), 0)


def test_narration_of_a_round_ending_sale():
    m = make_match(
        make_round(
            hands=("cloth", ""),
            goods_won=((), (9,)),
            tokens_left={"diamond": 0, "gold": 0, "cloth": 1},
        )
    )
    text = narrate(m, parse_move("sell 1 cloth"), 0, "Ada")
    assert text == (
        "Ada sold 1 cloth for goods token 1. The round ends (three goods piles are empty)."
    )


def test_narration_of_camels_mentions_the_refill():
    m = make_match(make_round(market="camel camel camel diamond gold", deck="silver spice leather"))
    assert narrate(m, parse_move("camels"), 0, "Bo") == (
        "Bo took all 3 camels from the market; the deck refills the market with 3."
    )
