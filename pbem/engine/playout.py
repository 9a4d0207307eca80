"""A round played on in place, for the computer's rollouts.

The computer plays thousands of rounds to their end for every move it makes, and
``Round.apply`` builds fresh tuples for every move (right for a game's log, where a
position must never change under a reader). A ``Playout`` is a private, mutable copy of
one ``Round`` that takes, camels and sales change in place, about three times faster.
It knows the moves a rollout makes (takes, camels, sales: never an exchange) with the
same checks and the same ends as ``Round.apply``, from the same constants; the round it
ends in is scored by ``Round.result`` (``finished``), so the scoring is written once.
tests/engine/test_playout.py plays random rounds both ways and holds them equal.
"""

from __future__ import annotations

from .cards import (
    BONUS_SIZES,
    EMPTY_PILES_TO_END,
    GOODS,
    GOODS_TOKENS,
    HAND_LIMIT,
    PRECIOUS_MINIMUM_SALE,
    Card,
    bonus_size,
)
from .errors import IllegalMoveError
from .moves import Move, Sell, TakeCamels, TakeGood
from .round import Round

CAMEL = int(Card.CAMEL)
_PILES: tuple[tuple[int, ...], ...] = tuple(GOODS_TOKENS[g] for g in GOODS)
_PILE_SIZES = tuple(len(p) for p in _PILES)
_MIN_SALE = tuple(PRECIOUS_MINIMUM_SALE if g.is_precious else 1 for g in GOODS)
_FIRST_BONUS = BONUS_SIZES[0]
#: ``_BONUS_PILE[n]``: the bonus pile (its index) a sale of ``n`` cards draws from, or None.
_BONUS_PILE = tuple(
    None if (size := bonus_size(n)) is None else size - _FIRST_BONUS for n in range(HAND_LIMIT + 1)
)


class Playout:
    """One round's state in lists, changed in place by ``apply`` (takes, camels, sales)."""

    # the round's own fields, by the same names: the rollout policy reads either
    __slots__ = Round.__slots__

    def __init__(self, r: Round) -> None:
        self.number = r.number
        self.starter = r.starter
        self.deck = r.deck
        self.top = r.top
        self.market = list(r.market)
        self.hands = [list(r.hands[0]), list(r.hands[1])]
        self.herds = list(r.herds)
        self.discard = list(r.discard)
        self.tokens_taken = list(r.tokens_taken)
        self.bonus = r.bonus
        self.bonus_taken = list(r.bonus_taken)
        self.goods_won = [list(r.goods_won[0]), list(r.goods_won[1])]
        self.bonus_won = [list(r.bonus_won[0]), list(r.bonus_won[1])]
        self.to_move = r.to_move
        self.end = r.end

    def apply(self, move: Move) -> None:
        """Play ``move`` for the seat to move; ``IllegalMoveError`` as ``Round.apply`` says."""
        if self.end is not None:
            raise IllegalMoveError("round_over")
        kind = type(move)
        if kind is Sell:
            self.sell(move.good, move.count)  # type: ignore[union-attr]
        elif kind is TakeGood:
            self.take_good(move.good)  # type: ignore[union-attr]
        elif kind is TakeCamels:
            self.take_camels()
        else:
            raise TypeError(f"a playout takes, takes camels and sells, not {move!r}")

    def _refill(self, n: int) -> None:
        available = len(self.deck) - self.top
        drawn = n if n <= available else available
        market, deck, top = self.market, self.deck, self.top
        for i in range(top, top + drawn):
            market[deck[i]] += 1
        self.top = top + drawn
        if drawn < n:
            self.end = "deck"

    def take_good(self, good: int) -> None:
        g = int(good)
        if g == CAMEL:
            raise IllegalMoveError("camels_take_all")
        hand = self.hands[self.to_move]
        size = sum(hand)
        if size >= HAND_LIMIT:
            raise IllegalMoveError("hand_limit_take", hand=size)
        if not self.market[g]:
            word = Card(g).word
            raise IllegalMoveError("not_in_market", have=0, card=word, want=word)
        self.market[g] -= 1
        hand[g] += 1
        self.to_move = 1 - self.to_move
        self._refill(1)

    def take_camels(self) -> None:
        n = self.market[CAMEL]
        if not n:
            raise IllegalMoveError("no_camels_in_market")
        self.market[CAMEL] = 0
        self.herds[self.to_move] += n
        self.to_move = 1 - self.to_move
        self._refill(n)

    def sell(self, good: int, count: int) -> None:
        g, me = int(good), self.to_move
        if g == CAMEL:
            raise IllegalMoveError("sell_camel")
        if count < 1:
            raise IllegalMoveError("sell_nothing")
        if count < _MIN_SALE[g]:
            raise IllegalMoveError("sell_too_few_precious", card=Card(g).word)
        hand = self.hands[me]
        if hand[g] < count:
            word = Card(g).word
            raise IllegalMoveError("not_in_hand", have=hand[g], card=word, want=f"{count} {word}")
        hand[g] -= count
        self.discard[g] += count
        taken = self.tokens_taken[g]
        got = _PILES[g][taken : taken + count]
        if got:
            self.tokens_taken[g] = taken + len(got)
            self.goods_won[me].extend(got)
        i = _BONUS_PILE[count]
        if i is not None:
            drawn = self.bonus_taken[i]
            if drawn < len(self.bonus[i]):
                self.bonus_taken[i] = drawn + 1
                self.bonus_won[me].append(self.bonus[i][drawn])
        self.to_move = 1 - me
        if got:
            taken_all = self.tokens_taken
            empty = sum(1 for k in range(len(_PILES)) if taken_all[k] == _PILE_SIZES[k])
            if empty >= EMPTY_PILES_TO_END:
                self.end = "piles"

    def finished(self) -> Round:
        """The position as an immutable ``Round`` (to score with ``result()``)."""
        r = Round.__new__(Round)
        r.number = self.number
        r.starter = self.starter
        r.deck = self.deck
        r.top = self.top
        r.market = tuple(self.market)
        r.hands = (tuple(self.hands[0]), tuple(self.hands[1]))
        r.herds = (self.herds[0], self.herds[1])
        r.discard = tuple(self.discard)
        r.tokens_taken = tuple(self.tokens_taken)
        r.bonus = self.bonus
        r.bonus_taken = tuple(self.bonus_taken)
        r.goods_won = (tuple(self.goods_won[0]), tuple(self.goods_won[1]))
        r.bonus_won = (tuple(self.bonus_won[0]), tuple(self.bonus_won[1]))
        r.to_move = self.to_move
        r.end = self.end
        return r
