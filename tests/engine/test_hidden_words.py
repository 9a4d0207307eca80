"""A seat's preview says nothing that hidden cards or face-down tokens could change.

A preview is worked out from the seat's information only (``explain.foresee``): these
tests change what the seat cannot see (the opponent's hand, the deck, the face-down
bonus tokens) and require the very same account. The round's seal is named only when
every hidden deal agrees; otherwise the preview says the bonus tokens decide it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine import Match, parse_move
from pbem.engine.cards import BONUS_TOKENS, GOODS
from pbem.engine.errors import MoveError
from pbem.engine.explain import Seal, narrate, preview
from pbem.engine.information import Information, Luck
from pbem.engine.moves import Claim, Resign, Sell, TakeCamels, TakeGood
from pbem.engine.views import Viewer, observe

from .builders import make_match, make_round
from .test_properties import random_game, seeds

SILVER_PILES_EMPTY = {"diamond": 0, "gold": 0, "silver": 2}


def _last_silver_sale(opponent_bonus: tuple[int, int], mine: tuple[int, ...]) -> Match:
    """Seat 0 holds a seal and two silver; selling them empties the third goods pile.
    Seat 1 drew two face-down tokens from the 5-pile, ``opponent_bonus``."""
    left = list(BONUS_TOKENS[5])
    for value in opponent_bonus:
        left.remove(value)
    r = make_round(
        hands=("silver silver", "leather"),
        tokens_left=SILVER_PILES_EMPTY,
        goods_won=(mine, (5,)),
        bonus_won=((), opponent_bonus),
        bonus=(BONUS_TOKENS[3], BONUS_TOKENS[4], tuple(left)),
    )
    return make_match(r, seals=(1, 0))


def test_a_round_decided_by_hidden_tokens_is_previewed_the_same_in_both_worlds():
    # 14 in goods + 10 for the sale = 24 against 5 + the opponent's two tokens (21 to 25)
    low, high = _last_silver_sale((8, 10), (10, 4)), _last_silver_sale((10, 10), (10, 4))
    sale = parse_move("sell 2 silver")
    assert low.apply(sale, 0).winner == 0 and high.apply(sale, 0).winner is None
    seen = preview(low, sale, 0)
    assert seen == preview(high, sale, 0)
    assert seen.round_end == "piles" and seen.seal is Seal.UNDECIDED
    assert not seen.match_won and not seen.match_lost


def test_a_round_every_hidden_deal_gives_the_mover_is_named():
    # 26 against at most 25: the match is won whatever the opponent drew
    seen = preview(_last_silver_sale((8, 8), (10, 6)), parse_move("sell 2 silver"), 0)
    assert seen.match_won and seen.seal is Seal.MOVER


def test_a_round_every_hidden_deal_gives_the_opponent_is_named():
    # 10 + 10 = 20 against at least 5 + 16 = 21: the opponent takes the seal
    seen = preview(_last_silver_sale((8, 8), (10,)), parse_move("sell 2 silver"), 0)
    assert seen.seal is Seal.OPPONENT and not seen.match_won and not seen.match_lost


def test_the_opponents_second_seal_is_named_when_sure():
    m = _last_silver_sale((8, 8), (10,))
    m.seals = (1, 1)
    seen = preview(m, parse_move("sell 2 silver"), 0)
    assert seen.match_lost and not seen.match_won


def test_a_tie_on_every_count_is_named():
    r = make_round(
        hands=("silver silver", ""), tokens_left=SILVER_PILES_EMPTY, goods_won=((1,), (5, 5, 1))
    )
    seen = preview(make_match(r), parse_move("sell 2 silver"), 0)
    assert seen.seal is Seal.NOBODY


def test_the_luckiest_and_unluckiest_worlds_bound_every_deal():
    """The preview's two extreme worlds give the seat the most and the least it can have."""
    m = _last_silver_sale((8, 10), (10, 4))
    info = Information(0, observe(m, Viewer.SEAT_0).view)
    sale = parse_move("sell 2 silver")

    def margin(world: Match) -> int:
        scores = world.apply(sale, 0).results[-1].scores
        return scores[0] - scores[1]

    worlds = [info.world(random.Random(i)) for i in range(200)]
    lucky, unlucky = (margin(info.world(random.Random(0), x)) for x in (Luck.BEST, Luck.WORST))
    assert all(unlucky <= margin(w) <= lucky for w in worlds)
    assert {margin(w) for w in worlds} >= {lucky, unlucky}


# ---------------------------------------------------------------- the property

#: Moves tried in every position besides the legal ones: refusals must not differ either.
TRIED = (
    *(TakeGood(g) for g in GOODS),
    *(Sell(g, n) for g in GOODS for n in (1, 2, 3, 5)),
    TakeCamels(),
    Resign(),
    Claim(),
)


def _said(match: Match, move, seat: int):
    try:
        return preview(match, move, seat)
    except MoveError as exc:
        return (exc.code, tuple(sorted(exc.params.items())))


def _position(seed: bytes, choice_seed: int, pick: int, near_end: bool) -> Match:
    """A position of a random match: often one where the next move ended a round."""
    states = [(s, m) for s, m in random_game(seed, choice_seed) if m is not None]
    if near_end:
        ends = [s for s, m in states if s.apply(m).ended_round is not None]
        if ends:
            return ends[pick % len(ends)]
    return states[pick % len(states)][0]


@pytest.mark.slow  # about 50 ms a position: 2,000 of them in the whole run
@settings(max_examples=2000, deadline=None)
@given(seeds, st.integers(0, 2**32), st.integers(0, 10**6), st.booleans(), st.integers(0, 2**32))
def test_what_a_seat_is_told_is_the_same_in_every_hidden_world(
    seed, choice_seed, pick, near_end, world_seed
):
    """Re-deal what the seat to move cannot see (the opponent's hand, the deck, the
    face-down bonus tokens): its view, its previews and its refusals do not change."""
    real = _position(seed, choice_seed, pick, near_end)
    seat = real.round.to_move
    info = Information(seat, observe(real, Viewer.seat(seat)).view)
    rnd = random.Random(world_seed)
    worlds = [info.world(rnd, luck) for luck in (Luck.RANDOM, Luck.RANDOM, Luck.BEST, Luck.WORST)]
    moves = [*real.legal_moves(), *TRIED]
    told = {move: _said(real, move, seat) for move in moves}
    for move in TRIED:  # a move made for real is refused for the reason its preview gave
        try:
            real.check(move, seat)
        except MoveError as exc:
            assert told[move] == (exc.code, tuple(sorted(exc.params.items())))
        else:
            assert not isinstance(told[move], tuple)
    for world in worlds:
        assert observe(world, Viewer.seat(seat)).view == observe(real, Viewer.seat(seat)).view
        for move in moves:
            assert _said(world, move, seat) == told[move], move
    for move in real.legal_moves():  # a narration tells what the move made public: the
        told_after = narrate(real, move, seat, "A")  # match's end, and else nothing hidden
        for world in worlds:
            if not (real.apply(move, seat).is_over or world.apply(move, seat).is_over):
                assert narrate(world, move, seat, "A") == told_after, move
