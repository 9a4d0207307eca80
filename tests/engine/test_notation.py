"""FORMAT.md §3: canonical notation and the liberal parser."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.engine import (
    Card,
    Exchange,
    InvalidMoveError,
    Sell,
    TakeCamels,
    TakeGood,
    parse_move,
)
from pbem.engine.cards import GOODS

D, G, S, CL, SP, L, C = (Card(i) for i in range(7))


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("take diamond", TakeGood(D)),
        ("TAKE Diamond", TakeGood(D)),
        ("take dia", TakeGood(D)),
        ("take 1 gold", TakeGood(G)),
        ("camels", TakeCamels()),
        ("Camel", TakeCamels()),
        ("take camels", TakeCamels()),
        ("take all camels", TakeCamels()),
        ("sell 3 cloth", Sell(CL, 3)),
        ("sell cloth, cloth, cloth", Sell(CL, 3)),
        ("sell 3x cloth", Sell(CL, 3)),
        ("sell cloth x3", Sell(CL, 3)),
        ("sell 2 silvers", Sell(S, 2)),
        ("sell 4 leathers", Sell(L, 4)),
        ("sell si si", Sell(S, 2)),
        ("sell ３ spices", Sell(SP, 3)),
        ("exchange spice spice leather for camel camel cloth", Exchange((SP, SP, L), (C, C, CL))),
        ("exchange leather+spice+spice for cloth, camel, camel", Exchange((SP, SP, L), (C, C, CL))),
        ("Exchange 2 sp, leather for 2x camels cloth", Exchange((SP, SP, L), (C, C, CL))),
        ("take 2 spice for 2 camels", Exchange((SP, SP), (C, C))),
        ("trade diamond gold for 2 cloths", Exchange((D, G), (CL, CL))),
        ("\n\n  take gold  \n\n> On Monday you wrote:\n> sell 2 diamond\n", TakeGood(G)),
        ("> quoted line\n>\nsell 2 gold\nthanks, see you", Sell(G, 2)),
    ],
)
def test_parses_liberally(text, move):
    assert parse_move(text) == move


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty"),
        ("> only quoted\n> text", "empty"),
        ("hello there", "unknown_verb"),
        ("take s", "ambiguous_card"),
        ("take c", "ambiguous_card"),
        ("take banana", "unknown_card"),
        ("take diamond gold", "take_several"),
        ("take", "take_needs_one_good"),
        ("take 2 camels", "camels_take_all"),
        ("camels please", "camels_extra"),
        ("exchange diamond gold", "exchange_needs_for"),
        ("exchange diamond camel for cloth cloth", "exchange_camel_taken"),
        ("sell", "sell_needs_cards"),
        ("sell cloth spice", "sell_one_type"),
        ("sell 2 camels", "sell_camel"),
        ("sell 3", "dangling_count"),
        ("sell 99 cloth", "bad_count"),
    ],
)
def test_refuses_with_a_reason(text, code):
    with pytest.raises(InvalidMoveError) as info:
        parse_move(text)
    assert info.value.code == code
    assert str(info.value)  # a message a player can read


def test_ambiguous_prefix_names_the_choices():
    with pytest.raises(InvalidMoveError, match="silver or spice"):
        parse_move("sell 2 s")


def test_canonical_card_order_in_exchange_text():
    move = Exchange((L, SP, SP), (CL, C, C))
    assert str(move) == "exchange spice spice leather for cloth camel camel"


goods = st.sampled_from(GOODS)
cards = st.sampled_from(list(Card))
moves = st.one_of(
    goods.map(TakeGood),
    st.just(TakeCamels()),
    st.builds(Sell, goods, st.integers(1, 7)),
    st.builds(
        lambda t, g: Exchange(tuple(t), tuple(g)),
        st.lists(goods, min_size=2, max_size=5),
        st.lists(cards, min_size=2, max_size=5),
    ),
)


@given(moves)
def test_parse_of_format_is_identity(move):
    assert parse_move(str(move)) == move


@given(st.text(max_size=200))
def test_parser_raises_only_its_own_error(text):
    with contextlib.suppress(InvalidMoveError):
        parse_move(text)


@given(
    st.lists(
        st.sampled_from(
            [
                "take",
                "sell",
                "exchange",
                "for",
                "camels",
                "2",
                "x3",
                "3x",
                "dia",
                "s",
                "sp",
                "cloth",
                "camel",
                ",",
                "+",
                "leathers",
                "golds",
                ">",
                "\n",
                "x",
                "99",
            ]
        ),
        max_size=8,
    )
)
def test_parser_on_move_like_word_salad(words):
    with contextlib.suppress(InvalidMoveError):
        parse_move(" ".join(words))
