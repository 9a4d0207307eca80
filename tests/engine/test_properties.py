"""Properties of random legal games (hypothesis): conservation, limits, determinism, ending."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine import Match, parse_move, position_json
from pbem.engine.cards import BONUS_TOKENS, GOODS, GOODS_TOKENS, HAND_LIMIT, TOTAL_CARDS

seeds = st.binary(min_size=32, max_size=32)


def random_game(seed: bytes, choice_seed: int, limit: int = 2000):
    """Yield (state, move) through a whole random match, and the final state last."""
    rnd = random.Random(choice_seed)
    state = Match.new(seed)
    for _ in range(limit):
        if state.is_over:
            break
        move = rnd.choice(state.legal_moves())
        yield state, move
        state = state.apply(move)
    yield state, None


def check_conservation(state: Match) -> None:
    r = state.round
    assert r.cards_in_play() == TOTAL_CARDS
    for g in GOODS:
        assert len(r.tokens_left(g)) + r.tokens_taken[g] == len(GOODS_TOKENS[g])
    goods_won = sorted(v for seat in (0, 1) for v in r.goods_won[seat])
    all_taken = sorted(v for g in GOODS for v in GOODS_TOKENS[g][: r.tokens_taken[g]])
    assert goods_won == all_taken
    for i, size in enumerate((3, 4, 5)):
        assert sorted(r.bonus[i]) == sorted(BONUS_TOKENS[size])
    bonus_won = sorted(v for seat in (0, 1) for v in r.bonus_won[seat])
    bonus_taken = sorted(v for i in range(3) for v in r.bonus[i][: r.bonus_taken[i]])
    assert bonus_won == bonus_taken


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(0, 2**32))
def test_every_random_game_conserves_and_respects_limits_and_ends(seed, choice_seed):
    final = None
    for state, move in random_game(seed, choice_seed):
        check_conservation(state)
        r = state.round
        assert r.hand_size(0) <= HAND_LIMIT and r.hand_size(1) <= HAND_LIMIT
        if not r.is_over:
            assert sum(r.market) == 5
        if move is None:
            final = state
    assert final is not None and final.is_over
    assert max(final.seals) == 2


@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(0, 2**32))
def test_replay_is_deterministic(seed, choice_seed):
    played = [m for _, m in random_game(seed, choice_seed) if m is not None]
    a = Match.new(seed).play(played)
    b = Match.new(seed).play(parse_move(str(m)) for m in played)
    assert position_json(a) == position_json(b)


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(0, 2**32))
def test_legal_moves_are_exactly_the_moves_apply_accepts(seed, choice_seed):
    """Generation and the one-move check agree: every listed move applies, and a
    sample of unlisted candidate moves is refused."""
    from pbem.engine import Exchange, Sell, TakeCamels, TakeGood
    from pbem.engine.cards import CARDS

    rnd = random.Random(choice_seed)
    for i, (state, _move) in enumerate(random_game(seed, choice_seed, limit=60)):
        if state.is_over or i % 7:
            continue
        legal = set(state.legal_moves())
        assert len(legal) == len(state.legal_moves())  # no duplicates
        for m in legal:
            assert state.is_legal(m)
        candidates = [TakeGood(g) for g in GOODS] + [TakeCamels()]
        candidates += [Sell(g, n) for g in GOODS for n in range(1, 8)]
        for _ in range(200):
            k = rnd.randint(2, 5)
            candidates.append(
                Exchange(
                    tuple(rnd.choice(GOODS) for _ in range(k)),
                    tuple(rnd.choice(CARDS) for _ in range(k)),
                )
            )
        for m in candidates:
            assert state.is_legal(m) == (m in legal), m
