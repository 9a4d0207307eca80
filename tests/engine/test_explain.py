"""Previews and narrations report, as facts, what the rules do (``pbem.i18n`` tells them)."""

from __future__ import annotations

import pytest

from pbem.engine import Claim, IllegalMoveError, Resign, parse_move
from pbem.engine.explain import narrate, preview

from .builders import make_match, make_round


def test_exchange_preview_says_the_hand_size_after():
    m = make_match(
        make_round(
            hands=("cloth cloth cloth cloth", ""),
            herds=(2, 0),
            market="spice spice gold silver camel",
        )
    )
    account = preview(m, parse_move("exchange spice spice for camel camel"), 0)
    assert account.is_preview and account.hand_after == 6
    assert account.round_end is None and not account.match_won


def test_sale_preview_has_the_tokens_and_the_bonus():
    m = make_match(make_round(hands=("cloth cloth cloth", "")))
    account = preview(m, parse_move("sell 3 cloth"), 0)
    assert account.tokens == (5, 3, 3) and account.bonus is True


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
    account = narrate(m, parse_move("sell 1 cloth"), 0, "Ada")
    assert account.name == "Ada" and account.tokens == (1,) and account.round_end == "piles"
    assert account.bonus is None and account.hand_after is None


def test_narration_of_camels_counts_them_and_the_refill():
    m = make_match(make_round(market="camel camel camel diamond gold", deck="silver spice leather"))
    account = narrate(m, parse_move("camels"), 0, "Bo")
    assert (account.camels, account.refill) == (3, 3)


def test_a_sale_of_three_with_an_empty_bonus_pile_says_so():
    m = make_match(make_round(hands=("cloth cloth cloth", ""), bonus=((), (4, 5), (8, 9))))
    assert preview(m, parse_move("sell 3 cloth"), 0).bonus is False


def test_resigning_ends_the_match_for_the_opponent():
    m = make_match(make_round())
    assert not preview(m, Resign(), 0).match_won
    with pytest.raises(IllegalMoveError):
        preview(m, Claim(), 0)
