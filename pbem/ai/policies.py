"""Cheap move policies on a full ``Round`` (a sampled world): the search's rollouts, and the
greedy and random players the benchmark plays against.

The rollout policy builds its move from the hand and the market directly instead of
listing every legal move (most of which are exchanges): it sells a set when one is worth
it, else takes the most valuable good or the camels, with a little noise. Every move it
builds is legal by construction (a hand of 7 always has something to sell).
"""

from __future__ import annotations

import random

from pbem.engine.cards import BONUS_TOKENS, GOODS, GOODS_TOKENS, HAND_LIMIT, Card
from pbem.engine.moves import Exchange, Move, Sell, TakeCamels, TakeGood
from pbem.engine.playout import Playout
from pbem.engine.round import Round

CAMEL = int(Card.CAMEL)
_PILES = tuple(GOODS_TOKENS[g] for g in GOODS)
_MIN_SALE = tuple(2 if g.is_precious else 1 for g in GOODS)
_BONUS_MEAN = {n: sum(BONUS_TOKENS[n]) / len(BONUS_TOKENS[n]) for n in (3, 4, 5)}
_SELL = tuple(tuple(Sell(g, n) for n in range(8)) for g in GOODS)
_TAKE = tuple(TakeGood(g) for g in GOODS)
_CAMELS = TakeCamels()


#: ``_PREFIX[g][k]``: the first ``k`` tokens of good ``g``'s pile together.
_PREFIX = tuple(tuple(sum(pile[:k]) for k in range(len(pile) + 1)) for pile in _PILES)
_SIZES = tuple(len(pile) for pile in _PILES)
_BONUS_BY_COUNT = tuple(0.0 if n < 3 else _BONUS_MEAN[min(n, 5)] for n in range(8))


def sale_value(r: Round | Playout, good: int, count: int) -> float:
    """The goods tokens a sale earns now, plus the mean of its bonus pile if it earns one."""
    taken = r.tokens_taken[good]
    prefix = _PREFIX[good]
    end = taken + count
    value = float(prefix[end if end < _SIZES[good] else _SIZES[good]] - prefix[taken])
    if count >= 3:
        i = (count if count < 5 else 5) - 3
        if r.bonus_taken[i] < len(r.bonus[i]):
            value += _BONUS_BY_COUNT[count]
    return value


def _top_token(r: Round | Playout, good: int) -> int:
    taken = r.tokens_taken[good]
    pile = _PILES[good]
    return pile[taken] if taken < len(pile) else 0


def play_out(r: Round, rnd: random.Random) -> Round:
    """The round played to its end by ``rollout_move`` for both seats (in place, on a
    ``Playout``: a search plays thousands of these a move)."""
    p = Playout(r)
    while p.end is None:
        p.apply(rollout_move(p, rnd))
    return p.finished()


def rollout_move(r: Round | Playout, rnd: random.Random) -> Move:
    """A quick, reasonable move for the seat to move (legal by construction)."""
    me = r.to_move
    hand, market = r.hands[me], r.market
    size = sum(hand)
    full = size >= HAND_LIMIT
    random_ = rnd.random
    if random_() < 0.1:  # some noise: any simple move
        options: list[Move] = [_SELL[g][hand[g]] for g in range(6) if hand[g] >= _MIN_SALE[g]]
        if not full:
            options.extend(_TAKE[g] for g in range(6) if market[g])
        if market[CAMEL]:
            options.append(_CAMELS)
        return options[int(random_() * len(options))]
    best_sale, best = None, 0.0
    for g in range(6):
        n = hand[g]
        if n >= _MIN_SALE[g]:
            value = sale_value(r, g, n)
            # a set of 3+, a precious pair, or anything when the hand is (nearly) full
            worth = n >= 3 or g < 3 or size >= 6 or (n >= 2 and value >= 7)
            if worth and value > best:
                best_sale, best = _SELL[g][n], value
    if best_sale is not None and (best >= 8 or full or random_() < 0.5):
        return best_sale
    take, take_value = None, -1.0
    if not full:
        tokens_taken = r.tokens_taken
        for g in range(6):
            if market[g]:
                taken = tokens_taken[g]
                value = (
                    (_PILES[g][taken] if taken < _SIZES[g] else 0)
                    + (1.5 if hand[g] >= 2 else 0.0)
                    + random_()
                )
                if value > take_value:
                    take, take_value = _TAKE[g], value
    camels = market[CAMEL]
    if camels and (take is None or camels * 1.5 + random_() * 2 > take_value):
        return _CAMELS
    if take is not None:
        return take
    if best_sale is not None:
        return best_sale
    # hand full, no camels: sell the cheapest legal set
    for g in (5, 4, 3, 2, 1, 0):
        if hand[g] >= _MIN_SALE[g]:
            return _SELL[g][hand[g]]
    raise AssertionError("no simple move")  # pragma: no cover - a hand of 7 can always sell


def greedy_move(r: Round, legal: list[Move]) -> Move:
    """The benchmark's greedy player: the most valuable sale if any, else the most valuable
    take (a good by its top token; the camels only when no good can be taken)."""
    best: Move | None = None
    best_value = -1.0
    for move in legal:
        if isinstance(move, Sell):
            value = sale_value(r, move.good, move.count)
            if value > best_value:
                best, best_value = move, value
    if best is not None:
        return best
    for move in legal:
        if isinstance(move, TakeGood):
            value = _top_token(r, move.good)
            if value > best_value:
                best, best_value = move, value
    if best is not None:
        return best
    for move in legal:
        if isinstance(move, TakeCamels):
            return move
    return legal[0]


def random_move(legal: list[Move], rnd: random.Random) -> Move:
    return legal[rnd.randrange(len(legal))]


def prior(r: Round, move: Move) -> float:
    """A cheap guess of a move's worth, to order the search's expansions (best first)."""
    me = r.to_move
    hand = r.hands[me]
    if isinstance(move, Sell):
        return sale_value(r, move.good, move.count) + (
            2.0 if move.count == hand[move.good] else 0.0
        )
    if isinstance(move, TakeGood):
        return _top_token(r, move.good) * 0.6 + (1.0 if hand[move.good] >= 2 else 0.0)
    if isinstance(move, TakeCamels):
        return 1.0 + r.market[CAMEL]
    if isinstance(move, Exchange):
        gain = sum(_top_token(r, c) for c in move.taken)
        loss = sum(_top_token(r, c) for c in move.given if c != CAMEL)
        return (gain - loss) * 0.5 - 1.0
    return 0.0
