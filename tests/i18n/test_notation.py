"""Moves typed in each player's language (issue 8): the text the server writes for a
move reads back as that move, in any script's digits and the spellings keyboards
produce; the rule books' terms are understood; a word that is not understood gets
an error in the player's own language."""

from __future__ import annotations

import random
import re
import tomllib
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine import (
    Card,
    Claim,
    Exchange,
    InvalidMoveError,
    Match,
    Resign,
    Sell,
    TakeGood,
    Timeout,
)
from pbem.i18n import LANGUAGES, use_reader
from pbem.i18n.notation import VOCABULARIES, parse, written
from pbem.i18n.words import error_text

GLOSSARY = tomllib.loads(
    (Path(__file__).parents[2] / "pbem" / "i18n" / "glossary.toml").read_text("utf-8")
)
SCRIPTS = {
    "el": re.compile(r"[\u0370-\u03ff]"),
    "fa": re.compile(r"[\u0600-\u06ff]"),
    "uk": re.compile(r"[\u0400-\u04ff]"),
    "zh": re.compile(r"[\u4e00-\u9fff]"),
}
TRANSLATED = sorted(SCRIPTS)
ALL = sorted(LANGUAGES)
#: The digits a count may arrive in: ASCII, Persian, Arabic-Indic, full-width.
DIGITS = ("0123456789", "۰۱۲۳۴۵۶۷۸۹", "٠١٢٣٤٥٦٧٨٩", "０１２３４５６７８９")


def in_digits(text: str, digits: str) -> str:
    """``text`` with every decimal digit, whatever its script, written in ``digits``."""
    return "".join(
        digits[d] if (d := unicodedata.decimal(ch, None)) is not None else ch for ch in text
    )


def without_accents(text: str) -> str:
    """What a Greek or Ukrainian keyboard without dead keys produces, in capitals."""
    stripped = "".join(
        ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch)
    )
    return stripped.upper()


def arabic_keyboard(text: str) -> str:
    """Persian typed on an Arabic layout: Arabic yeh and kaf, no zero-width non-joiner."""
    return text.replace("ی", "ي").replace("ک", "ك").replace("\u200c", "")


def position(seed: bytes, choice_seed: int, moves: int) -> Match:
    """A position some random legal moves into a match."""
    rnd = random.Random(choice_seed)
    state = Match.new(seed)
    for _ in range(moves):
        if state.is_over:
            break
        state = state.apply(rnd.choice(state.legal_moves()))
    return state


positions = st.builds(
    position, st.binary(min_size=32, max_size=32), st.integers(0, 2**32), st.integers(0, 120)
)


@settings(max_examples=40, deadline=None)
@given(positions, st.sampled_from(DIGITS))
def test_every_legal_move_written_in_each_language_reads_back(state, digits):
    for move in state.legal_moves():
        canonical = str(move)
        for language in ALL:
            text = in_digits(written(canonical, language), digits)
            assert parse(text, language) == move, (language, text)
            # The canonical notation of docs/record-format.md §3 is understood in every language.
            assert parse(canonical, language) == move, (language, canonical)


@settings(max_examples=25, deadline=None)
@given(positions)
def test_moves_typed_without_accents_or_on_an_arabic_keyboard_read_back(state):
    for move in state.legal_moves():
        canonical = str(move)
        for language in ("el", "uk"):
            text = without_accents(written(canonical, language))
            assert parse(text, language) == move, (language, text)
        text = arabic_keyboard(written(canonical, "fa"))
        assert parse(text, "fa") == move, text


@pytest.mark.parametrize("language", ALL)
@pytest.mark.parametrize("move", [Resign(), Timeout(), Claim()], ids=str)
def test_resigning_and_the_clock_moves_read_back(language, move):
    assert parse(written(str(move), language), language) == move


@pytest.mark.parametrize("language", ALL)
def test_a_count_in_native_digits_sells_that_many(language):
    for digits in DIGITS:
        text = in_digits(written("sell 4 leather", language), digits)
        assert parse(text, language) == Sell(Card.LEATHER, 4), text
    if language == "fa":
        assert "۴" in written("sell 4 leather", "fa")  # Persian is written with its own digits


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("card", list(Card), ids=lambda c: c.word)
def test_the_rule_book_term_for_each_card_is_understood(language, card):
    """The glossary's word, as the rule book prints it, names that card in a move."""
    term = GLOSSARY[language][card.word]["term"]
    spelled = VOCABULARIES[language].spelled
    if card is Card.CAMEL:
        gold = _name(language, Card.GOLD)
        text = spelled["exchange"].format(taken=f"{gold} {gold}", given=f"{term} {term}")
        assert parse(text, language) == Exchange((Card.GOLD,) * 2, (Card.CAMEL,) * 2), text
    else:
        text = spelled["take"].format(card=term)
        assert parse(text, language) == TakeGood(card), text


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_names_a_move_is_written_in_are_the_glossary_terms(language):
    """``written`` uses the rule book's word (any of its listed forms) for every card."""
    vocab = VOCABULARIES[language]
    for card in Card:
        term = GLOSSARY[language][card.word]["term"]
        named = vocab.names[card]
        assert parse(vocab.spelled["take"].format(card=named), language) == parse(
            vocab.spelled["take"].format(card=term), language
        ), (language, card, named, term)


def _name(language: str, card: Card) -> str:
    return VOCABULARIES[language].names[card]


UNKNOWN = {"el": "πάρε Κρασί", "fa": "بردار شراب", "uk": "візьми Вино", "zh": "拿 葡萄酒"}
UNKNOWN_VERB = {"el": "κλέψε διαμάντι", "fa": "بدزد الماس", "uk": "вкради золото", "zh": "偷 钻石"}
AMBIGUOUS = {"el": ("πούλα δ ×3", "δ"), "fa": ("بفروش ۳ ا", "ا"), "uk": ("продай с ×3", "с")}


@pytest.mark.parametrize("language", TRANSLATED)
def test_an_unknown_card_is_refused_in_the_player_language(language):
    with pytest.raises(InvalidMoveError) as refused:
        parse(UNKNOWN[language], language)
    assert refused.value.code == "unknown_card"
    with use_reader(language):
        message = error_text(refused.value)
    word = UNKNOWN[language].split()[-1]
    assert word in message  # quoted as typed, capitals and accents kept
    assert SCRIPTS[language].search(message.replace(word, ""))
    assert "is not a card" not in message
    # The message lists the cards in the player's words.
    assert all(_name(language, card) in message for card in Card)


@pytest.mark.parametrize("language", TRANSLATED)
def test_an_unknown_verb_is_refused_in_the_player_language(language):
    with pytest.raises(InvalidMoveError) as refused:
        parse(UNKNOWN_VERB[language], language)
    assert refused.value.code == "unknown_verb"
    with use_reader(language):
        message = error_text(refused.value)
    assert UNKNOWN_VERB[language].split()[0] in message
    assert "is not a move" not in message
    verbs = VOCABULARIES[language].spelled
    assert verbs["camels"].split()[-1] in message  # it says how a move starts


@pytest.mark.parametrize("language", sorted(AMBIGUOUS))
def test_an_ambiguous_word_names_the_cards_it_could_be(language):
    text, prefix = AMBIGUOUS[language]
    with pytest.raises(InvalidMoveError) as refused:
        parse(text, language)
    assert refused.value.code == "ambiguous_card"
    with use_reader(language):
        message = error_text(refused.value)
    assert f"{prefix}" in message and "could be" not in message
    choices = [_name(language, c) for c in Card if _name(language, c).startswith(prefix)]
    assert len(choices) >= 2 and all(choice in message for choice in choices)


def test_chinese_moves_may_run_together_without_spaces():
    assert parse("卖出3张皮革", "zh") == Sell(Card.LEATHER, 3)
    assert parse("拿2钻石给2骆驼", "zh") == Exchange((Card.DIAMOND,) * 2, (Card.CAMEL,) * 2)
    assert parse("卖出３皮", "zh") == Sell(Card.LEATHER, 3)


def test_a_word_of_another_language_is_not_guessed():
    """Only the player's language and the canonical English are read: a Greek word in a
    Chinese seat's move is refused, not matched to whatever it resembles."""
    with pytest.raises(InvalidMoveError):
        parse("πάρε διαμάντι", "zh")
    assert parse("take diamond", "zh") == TakeGood(Card.DIAMOND)
