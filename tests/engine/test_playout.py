"""``Playout`` (the rollouts' in-place round) agrees with ``Round.apply``, move by move.

The computer plays its rollouts on a ``Playout`` for speed; the rules of a take, the
camels and a sale must be the same there as in the engine's rule book: the same state
after every move, the same end, the same result, and the same refusal of an illegal move.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine import Match
from pbem.engine.cards import Card
from pbem.engine.errors import IllegalMoveError
from pbem.engine.moves import Exchange, Move, Sell, TakeCamels, TakeGood
from pbem.engine.playout import Playout
from pbem.engine.round import Round

FIELDS = [
    "number",
    "starter",
    "deck",
    "top",
    "market",
    "hands",
    "herds",
    "discard",
    "tokens_taken",
    "bonus",
    "bonus_taken",
    "goods_won",
    "bonus_won",
    "to_move",
    "end",
]


def _same(p: Playout, r: Round) -> None:
    finished = p.finished()
    for name in FIELDS:
        assert getattr(finished, name) == getattr(r, name), name


def _attempt(rnd: random.Random) -> Move:
    """Any take, camels or sale, legal or not (a sale of 0 to 7, a camel "good")."""
    kind = rnd.randrange(3)
    card = Card(rnd.randrange(7))
    if kind == 0:
        return TakeGood(card)
    if kind == 1:
        return TakeCamels()
    return Sell(card, rnd.randrange(8))


@settings(max_examples=150, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), dice=st.integers(0, 2**32))
def test_playout_plays_every_move_as_the_round_does(seed: bytes, dice: int) -> None:
    rnd = random.Random(dice)
    r = Match.new(seed, dice % 2).round
    # some exchanges first, so the playout starts from a round in progress
    for _ in range(rnd.randrange(6)):
        exchanges = [m for m in r.legal_moves() if isinstance(m, Exchange)]
        r = r.apply(rnd.choice(exchanges or r.legal_moves()))
    p = Playout(r)
    _same(p, r)
    while r.end is None:
        move = _attempt(rnd)
        try:
            after = r.apply(move)
        except IllegalMoveError as refused:
            with pytest.raises(IllegalMoveError) as also:
                p.apply(move)
            assert (also.value.code, also.value.params, str(also.value)) == (
                refused.code,
                refused.params,
                str(refused),
            )
            _same(p, r)  # a refused move changes nothing
            continue
        p.apply(move)
        r = after
        _same(p, r)
    assert p.finished().result() == r.result()
    with pytest.raises(IllegalMoveError):
        p.apply(TakeCamels())


def test_a_playout_refuses_an_exchange() -> None:
    r = Match.new(bytes(32), 0).round
    exchange = next(m for m in r.legal_moves() if isinstance(m, Exchange))
    with pytest.raises(TypeError):
        Playout(r).apply(exchange)


def test_simple_moves_are_the_legal_moves_but_the_exchanges() -> None:
    rnd = random.Random(3)
    for _ in range(30):
        r = Match.new(rnd.randbytes(32), 0).round
        while r.end is None:
            legal = r.legal_moves()
            assert r.simple_moves() == [m for m in legal if not isinstance(m, Exchange)]
            r = r.apply(rnd.choice(legal))
        assert r.simple_moves() == []
