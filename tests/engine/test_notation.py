"""docs/record-format.md §3: canonical notation and the liberal parser."""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.engine import (
    Card,
    Exchange,
    IllegalMoveError,
    InvalidMoveError,
    Sell,
    TakeCamels,
    TakeGood,
    parse_move,
)
from pbem.engine.cards import GOODS
from pbem.engine.notation import visible

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


# "All", invisible characters and punctuation: a move is read as what it looks like.

#: Every invisible formatting character the parser drops (docs/record-format.md §3.4:
#: what shows is read).
INVISIBLE = (
    "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    "\ufeff\u200b\u200c\u200d\u00ad\u2060\u061c"
)
PUNCTUATION = (".", "!", "?", "!?", "...", "…", "。", "！", "？", "؟", "،", ";", "·", " .")
HAND = (1, 2, 0, 3, 0, 4, 0)  # 1 diamond, 2 gold, 3 cloth, 4 leather


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("sell all leather", Sell(L, 4)),
        ("Sell all the leathers", Sell(L, 4)),
        ("sell every cloth", Sell(CL, 3)),
        ("sell leather all", Sell(L, 4)),
        ("sell all gold", Sell(G, 2)),
        ("sell all 4 leather", Sell(L, 4)),  # a count that agrees with the hand
        ("sell all leather leather leather leather", Sell(L, 4)),
        ("sell 2 gold", Sell(G, 2)),
        ("take all camels", TakeCamels()),
        ("take all the camels", TakeCamels()),
        ("all camels", TakeCamels()),
        ("camels all", TakeCamels()),
    ],
)
def test_all_is_every_card_of_that_good_in_hand(text, move):
    assert parse_move(text, hand=HAND) == move


@pytest.mark.parametrize(
    ("text", "code", "kind"),
    [
        ("sell all spice", "sell_all_none", IllegalMoveError),
        ("sell all diamond", "sell_all_too_few", IllegalMoveError),
        ("sell all 2 leather", "sell_all_count", IllegalMoveError),
        ("sell all leather leather", "sell_all_count", IllegalMoveError),
        ("take all diamond", "all_not_here", InvalidMoveError),
        ("take all leather for 2 camels", "all_not_here", InvalidMoveError),
        ("exchange gold gold for all camels", "all_not_here", InvalidMoveError),
        ("exchange all cloth for gold gold gold", "all_not_here", InvalidMoveError),
        ("sell all", "sell_needs_cards", InvalidMoveError),
        ("sell all camels", "sell_camel", InvalidMoveError),
        ("sell all cloth leather", "sell_one_type", InvalidMoveError),
        ("all leather", "unknown_verb", InvalidMoveError),
        ("take all 2 camels", "camels_take_all", InvalidMoveError),
    ],
)
def test_all_that_cannot_be_met_is_refused_with_the_reason(text, code, kind):
    with pytest.raises(kind) as info:
        parse_move(text, hand=HAND)
    assert info.value.code == code
    assert str(info.value)


def test_all_is_never_read_without_the_hand():
    """Where the hand is not known, "sell all" is refused rather than read as one card."""
    with pytest.raises(InvalidMoveError) as info:
        parse_move("sell all leather")
    assert info.value.code == "sell_all_needs_hand" and "'all'" in str(info.value)
    assert parse_move("take all camels") == TakeCamels()


def test_the_refusals_say_why():
    with pytest.raises(IllegalMoveError, match="you hold no spice"):
        parse_move("sell all spice", hand=HAND)
    with pytest.raises(IllegalMoveError, match="you hold 1 diamond: diamond must be sold"):
        parse_move("sell all diamond", hand=HAND)
    with pytest.raises(IllegalMoveError, match="'all' is 4, not 2"):
        parse_move("sell all 2 leather", hand=HAND)


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("Take diamond.", TakeGood(D)),
        ("sell 3 cloth!", Sell(CL, 3)),
        ("sell 3 cloth?!", Sell(CL, 3)),
        ("camels…", TakeCamels()),
        ("take gold ！", TakeGood(G)),
        ("'take gold'", TakeGood(G)),
        ("“sell 2 silver.”", Sell(S, 2)),
        ("\ufefftake diamond", TakeGood(D)),
        ("\u202btake diamond\u202c", TakeGood(D)),
        ("\u2067take\u2069 \u200edia\u200bmond\u200f", TakeGood(D)),
        ("sell\u00a03\u200bx cloth", Sell(CL, 3)),
        ("se\u2060ll 3 clo\u00adth", Sell(CL, 3)),
        ("\n\u200b\n.\ntake gold\n", TakeGood(G)),
    ],
)
def test_invisible_marks_and_trailing_punctuation_are_ignored(text, move):
    assert parse_move(text) == move


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("take banana.", "banana"),
        ("take ban\u200bana\u200f", "banana"),
        ("\ufeffsteal diamond", "steal"),
        ("take \u202ebanana\u202c!", "banana"),
    ],
)
def test_a_refusal_quotes_the_word_as_it_looks(text, word):
    with pytest.raises(InvalidMoveError) as info:
        parse_move(text)
    assert info.value.params["word"] == word
    assert f"'{word}'" in str(info.value)


def test_the_persian_zero_width_non_joiner_is_kept_inside_a_word():
    assert visible("ادویه\u200cها") == "ادویه\u200cها"
    assert visible("\u200cادویه\u200cها\u200c") == "ادویه\u200cها"
    assert visible("take\u200c diamond") == "take diamond"
    assert visible("\u200fادویه\u200b") == "ادویه"


def _noisy(text: str, rnd: random.Random) -> str:
    """``text`` with invisible characters strewn through it and punctuation after it."""
    chars = list(text)
    for _ in range(rnd.randint(1, 6)):
        chars.insert(rnd.randint(0, len(chars)), rnd.choice(INVISIBLE))
    return "".join(chars) + rnd.choice(PUNCTUATION)


@given(moves, st.randoms(use_true_random=False))
def test_a_move_with_invisible_marks_and_punctuation_reads_back(move, rnd):
    assert parse_move(_noisy(str(move), rnd)) == move


@given(goods, st.integers(1, 7), st.randoms(use_true_random=False))
def test_sell_all_sells_exactly_the_count_in_hand(good, count, rnd):
    hand = [0] * 7
    hand[good] = count
    text = _noisy(f"sell all {good.word}", rnd)
    if good.is_precious and count < 2:
        with pytest.raises(IllegalMoveError):
            parse_move(text, hand=hand)
    else:
        assert parse_move(text, hand=hand) == Sell(good, count)
