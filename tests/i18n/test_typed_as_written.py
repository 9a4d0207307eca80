"""A typed move is never recorded as something other than what the player wrote, in
any language: "all" counts the mover's hand, invisible marks and trailing
punctuation change nothing, and what cannot be met is refused in the reader's
language, quoting the word as it looks."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine import Card, IllegalMoveError, InvalidMoveError, MoveError, Sell, TakeCamels
from pbem.engine.cards import GOODS
from pbem.i18n import LANGUAGES, use_reader
from pbem.i18n.notation import VOCABULARIES, parse, written
from pbem.i18n.words import error_text
from tests.engine.test_notation import INVISIBLE, PUNCTUATION
from tests.i18n.test_notation import SCRIPTS, positions

ALL = sorted(LANGUAGES)
#: "Sell all {card}" as a player of each language writes it.
SELL_ALL = {
    "en": "sell all {card}",
    "el": "πούλα όλα τα {card}",
    "fa": "بفروش همه {card}",
    "uk": "продай всі {card}",
    "zh": "卖出全部{card}",
}
#: The four moves the testers reported, each with the hand it was typed against.
REPORTED = {
    "en": ("sell all leather", (0, 0, 0, 0, 0, 3, 0), Sell(Card.LEATHER, 3)),
    "zh": ("卖出全部皮革", (0, 0, 0, 0, 0, 4, 0), Sell(Card.LEATHER, 4)),
    "uk": ("продай всі тканини", (0, 0, 0, 5, 0, 0, 0), Sell(Card.CLOTH, 5)),
    "fa": ("بفروش همه ادویه‌ها", (0, 0, 0, 0, 2, 0, 0), Sell(Card.SPICE, 2)),
    "el": ("πούλα όλα τα δέρματα", (0, 0, 0, 0, 0, 3, 0), Sell(Card.LEATHER, 3)),
}
#: Refused although clear, until invisible marks and punctuation were ignored.
PUNCTUATED = {
    "en": ("Take diamond.", "take diamond"),
    "zh": ("拿全部骆驼。", "camels"),
    "el": ("\u200eπάρε διαμάντι;", "take diamond"),
    "fa": ("\u200fبفروش ۳ پارچه؟", "sell 3 cloth"),
    "uk": ("\ufeffвізьми золото!", "take gold"),
}


def _noisy(text: str, rnd: random.Random) -> str:
    chars = list(text)
    for _ in range(rnd.randint(1, 6)):
        chars.insert(rnd.randint(0, len(chars)), rnd.choice(INVISIBLE))
    return "".join(chars) + rnd.choice(PUNCTUATION)


def _sell_all(language: str, card: Card) -> str:
    return SELL_ALL[language].format(card=VOCABULARIES[language].names[card])


@pytest.mark.parametrize("language", ALL)
def test_the_reported_sell_all_sells_every_card_in_hand(language):
    text, hand, move = REPORTED[language]
    assert parse(text, language, hand) == move
    # Written out with the count, the same move is what the log shows.
    assert parse(written(str(move), language), language, hand) == move


@pytest.mark.parametrize("language", ALL)
def test_the_reported_punctuated_moves_are_read(language):
    text, canonical = PUNCTUATED[language]
    assert str(parse(text, language)) == canonical


@pytest.mark.parametrize("language", ALL)
def test_take_all_camels_keeps_working(language):
    assert parse(written("camels", language), language, (0,) * 7) == TakeCamels()


@settings(max_examples=25, deadline=None)
@given(positions, st.randoms(use_true_random=False))
def test_every_legal_move_with_invisible_marks_and_punctuation_reads_back(state, rnd):
    hand = state.round.hands[state.to_move] if state.to_move is not None else None
    for move in state.legal_moves():
        for language in ALL:
            text = _noisy(written(str(move), language), rnd)
            assert parse(text, language, hand) == move, (language, text)


@settings(max_examples=25, deadline=None)
@given(positions, st.randoms(use_true_random=False))
def test_sell_all_reads_back_as_the_count_in_hand(state, rnd):
    if state.to_move is None:
        return
    hand = state.round.hands[state.to_move]
    for good in GOODS:
        for language in ALL:
            text = _noisy(_sell_all(language, good), rnd)
            if hand[good] == 0 or (good.is_precious and hand[good] < 2):
                with pytest.raises(IllegalMoveError):
                    parse(text, language, hand)
            else:
                assert parse(text, language, hand) == Sell(good, hand[good]), (language, text)


@pytest.mark.parametrize("language", sorted(SCRIPTS))
def test_sell_all_that_cannot_be_met_is_refused_in_the_reader_language(language):
    hand = (1, 0, 0, 0, 0, 3, 0)
    for card, code in ((Card.SPICE, "sell_all_none"), (Card.DIAMOND, "sell_all_too_few")):
        with pytest.raises(IllegalMoveError) as refused:
            parse(_sell_all(language, card), language, hand)
        assert refused.value.code == code
        with use_reader(language):
            message = error_text(refused.value)
        assert VOCABULARIES[language].names[card] in message  # the good, in the reader's words
        assert SCRIPTS[language].search(message) and "you hold" not in message


EXCHANGE_ALL = {
    "en": "take all leather for 2 camels",
    "el": "ανταλλαγή όλα τα δέρματα με καμήλα καμήλα",
    "fa": "مبادله همه چرم‌ها با شتر شتر",
    "uk": "обмін всі шкіри на верблюд верблюд",
    "zh": "拿全部皮革给骆驼骆驼",
}
TAKE_ALL = {
    "en": "take all diamonds",
    "el": "πάρε όλα τα διαμάντια",
    "fa": "بردار همه الماس‌ها",
    "uk": "візьми всі смарагди",
    "zh": "拿全部钻石",
}


@pytest.mark.parametrize("language", ALL)
def test_all_without_a_clear_meaning_is_refused_not_ignored(language):
    for text in (EXCHANGE_ALL[language], TAKE_ALL[language]):
        with pytest.raises(InvalidMoveError) as refused:
            parse(text, language, (2, 2, 2, 2, 2, 2, 0))
        assert refused.value.code == "all_not_here", text
        with use_reader(language):
            message = error_text(refused.value)
        assert refused.value.params["word"] in message


@pytest.mark.parametrize("language", sorted(SCRIPTS))
def test_a_refusal_quotes_the_word_without_its_invisible_marks(language):
    text = {
        "el": "πάρε Κρα\u200bσί.",
        "fa": "بردار \u200fشراب؟",
        "uk": "візьми Ви\u00adно!",
        "zh": "拿 葡萄\u200b酒。",
    }
    with pytest.raises(MoveError) as refused:
        parse(text[language], language)
    word = refused.value.params["word"]
    assert not any(ch in word for ch in INVISIBLE)
    assert word[-1].isalpha()
