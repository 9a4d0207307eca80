"""What a seat knows, and hidden worlds sampled consistently with it.

``Information`` is built from an ``Observation`` of one seat (``views.observe(match,
Viewer.seat(s))``) and the public moves of the round in progress: it has no slot for the
opponent's hand, the deck order or the bonus piles, so nothing built on it can read them.

What is known (docs/rules.md §9):

- open: the market, the discard pile, the goods tokens left and won, both herd sizes,
  both hand sizes, the deck size, how many bonus tokens each pile still has and how many
  each player won; the seat's own hand and its own bonus values;
- from the public moves of the round: every good the opponent took from the market
  (a take or an exchange) is in its hand until it sells or gives back cards of that good.

Everything else is unseen: the 55 cards of the round less the market, the seat's hand,
the discard pile and the two herds are the opponent's hand and the deck together. A
*determinization* (``sample``) deals them at random, the opponent's known cards first,
its other cards uniformly from the unseen goods (a hand holds no camel), the rest
shuffled into the deck; and it deals the bonus tokens nobody has seen (the opponent's
won tokens and the piles' order) from what the three piles held less the seat's own.

A preview (``explain.preview``) is worked out in such worlds only, never in the real
match: with the bonus tokens dealt as well as they can fall for the seat (``Luck.BEST``)
and as badly (``Luck.WORST``), it says who wins a round only when both agree.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from .cards import BONUS_SIZES, BONUS_TOKENS, CARD_COUNTS, GOODS, GOODS_TOKENS, Card
from .match import Match
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood
from .round import Round
from .views import Observation, SeatView

CAMEL = int(Card.CAMEL)
_ZERO7 = (0, 0, 0, 0, 0, 0, 0)
#: The moves that are turns of the card game (resign, timeout and claim are not).
_TURNS = (TakeGood, TakeCamels, Exchange, Sell)


class Luck(Enum):
    """How a sampled world deals the bonus tokens the seat cannot see."""

    RANDOM = "random"  #: shuffled, as every other unseen thing
    BEST = "best"  #: the seat's next draws the highest, the opponent's tokens the lowest
    WORST = "worst"  #: the seat's next draws the lowest, the opponent's tokens the highest


def _counts(cards: Sequence[Card]) -> tuple[int, ...]:
    out = [0] * 7
    for card in cards:
        out[card] += 1
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Information:
    """One seat's information set: its view and the opponent's cards the moves revealed."""

    seat: int
    view: SeatView
    #: Counts (indexed by ``Card``) of the cards the opponent is known to hold.
    opponent_known: tuple[int, ...] = _ZERO7

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    def unseen(self) -> tuple[int, ...]:
        """Counts of the cards the seat cannot see: the opponent's hand and the deck."""
        t, me, opp = self.view.table, self.view.me, self.view.opponent
        seen = [
            a + b + c
            for a, b, c in zip(_counts(t.market), _counts(me.hand), _counts(t.discard), strict=True)
        ]
        seen[CAMEL] += me.herd + opp.herd
        return tuple(CARD_COUNTS[Card(c)] - seen[c] for c in range(7))

    def sample(self, rnd: random.Random, luck: Luck = Luck.RANDOM) -> Round:
        """One hidden world consistent with the information: a full ``Round`` to search in.

        ``luck`` deals the unseen bonus tokens at random or at one of the two extremes
        for the seat (the cards are dealt by ``rnd`` either way)."""
        return Dealer(self, luck).deal(rnd)

    def world(self, rnd: random.Random, luck: Luck = Luck.RANDOM) -> Match:
        """A sampled world as a whole match: the sampled round with the open seals, round
        results and overdue seat around it (``Match.around``: its next deal is a stand-in)."""
        table = self.view.table
        return Match.around(self.sample(rnd, luck), table.seals, table.results, table.overdue)


class Dealer:
    """Deals hidden worlds of one ``Information`` again and again (a search deals one per
    iteration): what every world shares is worked out once, each deal only shuffles."""

    __slots__ = (
        "_camels",
        "_goods",
        "_known",
        "_luck",
        "_need",
        "_opponent",
        "_piles",
        "_template",
    )

    def __init__(self, info: Information, luck: Luck = Luck.RANDOM) -> None:
        table, me, opp = info.view.table, info.view.me, info.view.opponent
        pool = list(info.unseen())
        known = info.opponent_known
        for c in range(7):
            pool[c] -= known[c]
        self._goods = [c for c in range(6) for _ in range(pool[c])]
        self._camels = [CAMEL] * pool[CAMEL]
        self._known = list(known)
        self._need = opp.hand_size - sum(known)
        self._opponent = info.opponent
        self._luck = luck
        piles: list[tuple[list[int], int]] = []
        for size in BONUS_SIZES:
            full = list(BONUS_TOKENS[size])
            for value in me.bonus_tokens:
                if value in full:
                    full.remove(value)
            if luck is not Luck.RANDOM:  # a pile is drawn from its start: the seat's next first
                full.sort(reverse=luck is Luck.BEST)
            piles.append((full, table.bonus_left[size]))
        self._piles = piles

        r = Round.__new__(Round)
        r.number = table.round
        r.starter = 0  # the result's starter only picks the next round's starter
        r.deck, r.top, r.bonus = (), 0, ()  # dealt by ``deal``
        r.market = _counts(table.market)
        hands: list[tuple[int, ...]] = [_ZERO7, _ZERO7]
        hands[info.seat] = _counts(me.hand)
        r.hands = (hands[0], hands[1])
        herds = [0, 0]
        herds[info.seat], herds[info.opponent] = me.herd, opp.herd
        r.herds = (herds[0], herds[1])
        r.discard = _counts(table.discard)
        r.tokens_taken = tuple(len(GOODS_TOKENS[g]) - len(table.tokens[g]) for g in GOODS)
        r.bonus_taken = (0, 0, 0)
        won: list[tuple[int, ...]] = [(), ()]
        won[info.seat], won[info.opponent] = me.goods_tokens, opp.goods_tokens
        r.goods_won = (won[0], won[1])
        bonus_won: list[tuple[int, ...]] = [(), ()]
        bonus_won[info.seat] = me.bonus_tokens
        r.bonus_won = (bonus_won[0], bonus_won[1])
        r.to_move = table.to_move if table.to_move is not None else info.seat
        r.end = None
        self._template = r

    def deal(self, rnd: random.Random) -> Round:
        """One world: the opponent's unknown cards from the unseen goods (a hand holds no
        camel), the rest shuffled into the deck, the unseen bonus tokens dealt by ``luck``."""
        goods = self._goods[:]
        _shuffle(goods, rnd)
        need = self._need
        hand = self._known[:]
        for c in goods[:need]:
            hand[c] += 1
        deck = goods[need:] + self._camels
        _shuffle(deck, rnd)
        bonus_piles: list[tuple[int, ...]] = []
        opp_bonus: list[int] = []
        shuffle = self._luck is Luck.RANDOM
        for full, left in self._piles:
            if shuffle:
                full = full[:]
                _shuffle(full, rnd)
            opp_bonus.extend(full[left:])
            bonus_piles.append(tuple(full[:left]))
        r = self._template._clone()
        r.deck = tuple(deck)
        r.bonus = tuple(bonus_piles)
        if self._opponent == 0:
            r.hands = (tuple(hand), r.hands[1])
            r.bonus_won = (tuple(opp_bonus), r.bonus_won[1])
        else:
            r.hands = (r.hands[0], tuple(hand))
            r.bonus_won = (r.bonus_won[0], tuple(opp_bonus))
        return r


def _shuffle(items: list[int], rnd: random.Random) -> None:
    """A uniform shuffle in place, sorted by independent random keys: twice as fast as
    ``random.shuffle`` (whose draws are Python code) for the deals of a search."""
    draw = rnd.random
    items.sort(key=lambda _: draw())


def information(observation: Observation, round_moves: Sequence[Move] = ()) -> Information:
    """A seat's information from its observation and the moves of the round in progress.

    ``round_moves`` are the card-game moves of the current round in order (public: every
    log shows them); without them the opponent's hand is sampled uniformly. The seats
    alternate, so the round's starter follows from the seat to move and the count.
    """
    view = observation.view
    if not isinstance(view, SeatView):
        raise TypeError("the computer player needs one seat's observation")
    seat = view.seat
    to_move = view.table.to_move
    moves = [m for m in round_moves if isinstance(m, _TURNS)]
    if to_move is None or not moves:
        return Information(seat, view)
    starter = to_move if len(moves) % 2 == 0 else 1 - to_move
    known = [0] * 7
    for i, move in enumerate(moves):
        if (starter + i) % 2 == seat:
            continue
        if isinstance(move, TakeGood):
            known[move.good] += 1
        elif isinstance(move, Exchange):
            for card in move.taken:
                known[card] += 1
            for card in move.given:
                if card != CAMEL and known[card]:
                    known[card] -= 1
        elif isinstance(move, Sell):
            known[move.good] = max(0, known[move.good] - move.count)
    unseen = Information(seat, view).unseen()
    if sum(known) > view.opponent.hand_size or any(
        k > u for k, u in zip(known, unseen, strict=True)
    ):
        return Information(seat, view)  # a history that does not fit the view: ignore it
    return Information(seat, view, tuple(known))
