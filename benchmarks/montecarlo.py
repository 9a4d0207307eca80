"""A determinized Monte-Carlo player: the yardstick the computer's strength is measured by.

Written apart from ``pbem.ai`` on purpose (it imports nothing of it and shares no
heuristic with it): the engine is only its referee and simulator. It sees what a seat
sees (``observe(match, Viewer.seat(seat))``) and nothing of the round's history. For
its move it deals the unseen cards at random again and again (the opponent's hand from
the unseen goods, the rest into the deck, the unseen bonus tokens shuffled), plays every
legal move in turn in such worlds, finishes the round with its own simple policy, and
plays the move whose rounds it won most often (a round won counts 1, a tie ½; the score
margin breaks near ties). It thinks for a given number of CPU seconds.

This is the "determinized Monte-Carlo player" of Jaipur programs such as anicolao/jaipur's
"Maharaja" (sampled worlds × candidate moves, rollouts, best average), reduced to its
core: no tree, no opponent model, uniform time over the moves.
"""

from __future__ import annotations

import random
import time

from pbem.engine import Match, Move
from pbem.engine.cards import BONUS_SIZES, BONUS_TOKENS, CARD_COUNTS, GOODS, GOODS_TOKENS, Card
from pbem.engine.moves import Sell, TakeCamels, TakeGood
from pbem.engine.round import Round
from pbem.engine.views import SeatView, Viewer, observe

CAMEL = int(Card.CAMEL)
_TOKENS = tuple(GOODS_TOKENS[g] for g in GOODS)


def _counts(cards: tuple[Card, ...]) -> list[int]:
    out = [0] * 7
    for card in cards:
        out[card] += 1
    return out


def deal_hidden(view: SeatView, rnd: random.Random) -> Round:
    """One world that fits ``view``: what the seat cannot see, dealt at random."""
    table, me, opp = view.table, view.me, view.opponent
    unseen = [CARD_COUNTS[Card(c)] for c in range(7)]
    for cards in (table.market, me.hand, table.discard):
        for c, n in enumerate(_counts(cards)):
            unseen[c] -= n
    unseen[CAMEL] -= me.herd + opp.herd
    goods = [c for c in range(6) for _ in range(unseen[c])]
    rnd.shuffle(goods)
    hand = [0] * 7
    for c in goods[: opp.hand_size]:
        hand[c] += 1
        unseen[c] -= 1
    deck = [c for c in range(7) for _ in range(unseen[c])]
    rnd.shuffle(deck)
    piles, theirs = [], []
    for size in BONUS_SIZES:
        tokens = list(BONUS_TOKENS[size])
        for value in me.bonus_tokens:
            if value in tokens:
                tokens.remove(value)
        rnd.shuffle(tokens)
        left = table.bonus_left[size]
        piles.append(tuple(tokens[:left]))
        theirs.extend(tokens[left:])
    seat = view.seat
    r = Round.__new__(Round)
    r.number, r.starter, r.end = table.round, 0, None
    r.deck, r.top = tuple(deck), 0
    r.market = tuple(_counts(table.market))
    r.discard = tuple(_counts(table.discard))
    hands = [tuple(_counts(me.hand)), tuple(hand)]
    herds = [me.herd, opp.herd]
    won = [me.goods_tokens, opp.goods_tokens]
    bonus = [me.bonus_tokens, tuple(theirs[: opp.bonus_count])]
    if seat == 1:
        hands.reverse(), herds.reverse(), won.reverse(), bonus.reverse()
    r.hands, r.herds = (hands[0], hands[1]), (herds[0], herds[1])
    r.goods_won, r.bonus_won = (won[0], won[1]), (bonus[0], bonus[1])
    r.tokens_taken = tuple(len(GOODS_TOKENS[g]) - len(table.tokens[g]) for g in GOODS)
    r.bonus, r.bonus_taken = tuple(piles), (0, 0, 0)
    r.to_move = seat
    return r


def simple_move(r: Round, rnd: random.Random) -> Move:
    """The rollouts' policy: sell the largest set when it is worth selling (three or more,
    a precious pair, or a full hand), else take the camels when there are three or more,
    else the good with the dearest token, else the camels, else sell what there is."""
    me = r.to_move
    hand, market = r.hands[me], r.market
    size = sum(hand)
    sell, most = -1, 0
    for g in range(6):
        n = hand[g]
        if n >= (2 if g < 3 else 1) and (n > most or (n == most and rnd.random() < 0.5)):
            sell, most = g, n
    if sell >= 0 and (most >= 3 or sell < 3 or size >= 7):
        return Sell(Card(sell), most)
    if market[CAMEL] >= 3:
        return TakeCamels()
    if size < 7:
        best, dearest = -1, -1.0
        for g in range(6):
            if market[g]:
                taken = r.tokens_taken[g]
                value = (_TOKENS[g][taken] if taken < len(_TOKENS[g]) else 0) + rnd.random()
                if value > dearest:
                    best, dearest = g, value
        if best >= 0:
            return TakeGood(Card(best))
    if market[CAMEL]:
        return TakeCamels()
    return Sell(Card(sell), most)


def _value(r: Round, seat: int) -> float:
    result = r.result()
    won = 0.5 if result.seal is None else float(result.seal == seat)
    return won + (result.scores[seat] - result.scores[1 - seat]) / 1000


def montecarlo_move(match: Match, seat: int, seconds: float, rnd: random.Random) -> Move:
    """The move whose sampled rounds ``seat`` won most often, after ``seconds`` of CPU."""
    view = observe(match, Viewer.seat(seat)).view
    assert isinstance(view, SeatView)
    moves = match.legal_moves()
    if len(moves) == 1:
        return moves[0]
    totals = [0.0] * len(moves)
    tries = [0] * len(moves)
    clock = time.process_time
    deadline = clock() + seconds
    i = 0
    # every move once, then in turn until the time is up
    while i < len(moves) or clock() < deadline:
        k = i % len(moves)
        world = deal_hidden(view, rnd).apply(moves[k])
        while world.end is None:
            world = world.apply(simple_move(world, rnd))
        totals[k] += _value(world, seat)
        tries[k] += 1
        i += 1
    best = max(range(len(moves)), key=lambda i: totals[i] / tries[i])
    return moves[best]
