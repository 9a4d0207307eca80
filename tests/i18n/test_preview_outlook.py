"""A preview's last sentence says what the mover can know of the round's seal, in every
language: who takes it only when every hidden deal agrees, else that the face-down
bonus tokens decide it (tests/engine/test_hidden_words.py proves the agreement)."""

from __future__ import annotations

import pytest

from pbem.engine import parse_move
from pbem.engine.explain import Account, Seal
from pbem.i18n import LANGUAGES, use_reader
from pbem.i18n.words import tell

SALE = parse_move("sell 2 silver")

SAID = {
    Seal.UNDECIDED: "Who wins this round depends on the face-down bonus tokens.",
    Seal.MOVER: "You win this round's seal.",
    Seal.OPPONENT: "Your opponent wins this round's seal.",
    Seal.NOBODY: "The round is a tie: nobody wins its seal.",
}


def _ending(**facts) -> Account:
    return Account(SALE, 0, None, tokens=(5, 5), round_end="piles", **facts)


@pytest.mark.parametrize("seal", list(Seal))
def test_each_outlook_has_its_sentence(seal):
    with use_reader("en"):
        assert tell(_ending(seal=seal)).endswith(SAID[seal])


def test_a_sure_end_of_the_match_is_said_and_nothing_else():
    with use_reader("en"):
        won = tell(_ending(seal=Seal.MOVER, match_won=True))
        lost = tell(_ending(seal=Seal.OPPONENT, match_lost=True))
    assert won.endswith("You win the match.") and "seal" not in won
    assert lost.endswith("Your opponent wins the match.") and "seal" not in lost


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_every_language_tells_the_four_outlooks_apart(language):
    with use_reader(language):
        told = {tell(_ending(seal=seal)) for seal in Seal}
        plain = tell(Account(SALE, 0, None, tokens=(5, 5), round_end="piles"))
    assert len(told) == len(Seal) and plain not in told
    with use_reader("en"):
        assert not told & {tell(_ending(seal=seal)) for seal in Seal}  # translated, not English
