"""One round of Jaipur: the deal, the legality of a move, its effect, the round's end.

A ``Round`` is immutable: ``apply`` returns a new one. Hands, market and
discard pile are 7-tuples of counts indexed by ``Card`` and the deck is the
shuffled tuple with the index of its top card, so checking and applying a move
touch a handful of small tuples; replaying a whole match stays in the
microseconds per move (see ``benchmarks/engine.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from . import rng
from .cards import (
    BONUS_SIZES,
    BONUS_TOKENS,
    CAMEL_TOKEN_VALUE,
    EMPTY_PILES_TO_END,
    EXCHANGE_MINIMUM,
    GOODS,
    GOODS_TOKENS,
    HAND_LIMIT,
    HAND_SIZE,
    MARKET_START_CAMELS,
    PRECIOUS_MINIMUM_SALE,
    SHUFFLED_CARDS,
    Card,
    bonus_size,
    cards_of,
)
from .errors import IllegalMoveError
from .moves import Exchange, Move, Sell, TakeCamels, TakeGood

CAMEL = int(Card.CAMEL)
_TOKEN_PILES: tuple[tuple[int, ...], ...] = tuple(GOODS_TOKENS[g] for g in GOODS)
#: The fewest cards of each kind a sale may hold: two of a precious good, one of the others
#: (camels are never sold). ``_sell`` refuses below it; ``legal_moves`` starts from it.
_MIN_SALE = tuple(PRECIOUS_MINIMUM_SALE if card.is_precious else 1 for card in Card)
_MIN_EXCHANGE = EXCHANGE_MINIMUM
_ZERO7 = (0, 0, 0, 0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How a round was scored (docs/record-format.md §4.6 ``result.rounds``)."""

    number: int
    starter: int
    scores: tuple[int, int]
    camel_token: int | None
    seal: int | None
    end: str  # "piles" (three goods piles empty) or "deck" (market could not be refilled)

    def next_starter(self) -> int:
        """The loser starts the next round; after a full tie, the one who did not start."""
        if self.seal is None:
            return 1 - self.starter
        return 1 - self.seal


def _add(counts: tuple[int, ...], card: int, n: int) -> tuple[int, ...]:
    lst = list(counts)
    lst[card] += n
    return tuple(lst)


class Round:
    """The full (omniscient) state of one round."""

    __slots__ = (
        "bonus",
        "bonus_taken",
        "bonus_won",
        "deck",
        "discard",
        "end",
        "goods_won",
        "hands",
        "herds",
        "market",
        "number",
        "starter",
        "to_move",
        "tokens_taken",
        "top",
    )

    number: int
    starter: int
    deck: tuple[int, ...]
    top: int
    market: tuple[int, ...]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    herds: tuple[int, int]
    discard: tuple[int, ...]
    tokens_taken: tuple[int, ...]
    bonus: tuple[tuple[int, ...], ...]
    bonus_taken: tuple[int, ...]
    goods_won: tuple[tuple[int, ...], tuple[int, ...]]
    bonus_won: tuple[tuple[int, ...], tuple[int, ...]]
    to_move: int
    end: str | None

    # ------------------------------------------------------------------ setup

    @classmethod
    def deal(cls, seed: bytes, number: int, starter: int) -> Round:
        """Set up round ``number`` from the seed (docs/record-format.md §2.5)."""
        deck = tuple(
            int(c) for c in rng.shuffled(seed, SHUFFLED_CARDS, rng.round_label(number, "deck"))
        )
        bonus = tuple(
            tuple(rng.shuffled(seed, BONUS_TOKENS[size], rng.round_label(number, f"bonus{size}")))
            for size in BONUS_SIZES
        )
        return cls.from_parts(number, starter, deck, bonus)

    @classmethod
    def from_parts(
        cls,
        number: int,
        starter: int,
        deck: tuple[int, ...],
        bonus: tuple[tuple[int, ...], ...],
    ) -> Round:
        """A round dealt from a given deck order and bonus piles (tests build edge cases so)."""
        hands = [list(_ZERO7), list(_ZERO7)]
        for i in range(HAND_SIZE):
            hands[starter][deck[i]] += 1
            hands[1 - starter][deck[HAND_SIZE + i]] += 1
        market = list(_ZERO7)
        market[CAMEL] = MARKET_START_CAMELS
        for card in deck[2 * HAND_SIZE : 2 * HAND_SIZE + 2]:
            market[card] += 1
        herds = [0, 0]
        for seat in (0, 1):  # camels dealt into a hand go straight to the herd
            herds[seat] = hands[seat][CAMEL]
            hands[seat][CAMEL] = 0
        r = cls.__new__(cls)
        r.number = number
        r.starter = starter
        r.deck = tuple(deck)
        r.top = 2 * HAND_SIZE + 2
        r.market = tuple(market)
        r.hands = (tuple(hands[0]), tuple(hands[1]))
        r.herds = (herds[0], herds[1])
        r.discard = _ZERO7
        r.tokens_taken = (0,) * len(GOODS)
        r.bonus = bonus
        r.bonus_taken = (0,) * len(BONUS_SIZES)
        r.goods_won = ((), ())
        r.bonus_won = ((), ())
        r.to_move = starter
        r.end = None
        return r

    def _clone(self) -> Round:
        r = Round.__new__(Round)
        r.number = self.number
        r.starter = self.starter
        r.deck = self.deck
        r.top = self.top
        r.market = self.market
        r.hands = self.hands
        r.herds = self.herds
        r.discard = self.discard
        r.tokens_taken = self.tokens_taken
        r.bonus = self.bonus
        r.bonus_taken = self.bonus_taken
        r.goods_won = self.goods_won
        r.bonus_won = self.bonus_won
        r.to_move = self.to_move
        r.end = self.end
        return r

    # -------------------------------------------------------------- questions

    @property
    def is_over(self) -> bool:
        return self.end is not None

    @property
    def deck_size(self) -> int:
        return len(self.deck) - self.top

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    def tokens_left(self, good: Card) -> tuple[int, ...]:
        """The goods tokens still on the pile of ``good``, top first."""
        return _TOKEN_PILES[good][self.tokens_taken[good] :]

    def bonus_left(self, size: int) -> tuple[int, ...]:
        i = BONUS_SIZES.index(size)
        return self.bonus[i][self.bonus_taken[i] :]

    def empty_piles(self) -> int:
        return sum(1 for g in GOODS if self.tokens_taken[g] == len(_TOKEN_PILES[g]))

    def rupees(self, seat: int) -> int:
        """Goods and bonus tokens won so far (the camel token is settled at the round's end)."""
        return sum(self.goods_won[seat]) + sum(self.bonus_won[seat])

    def camel_token(self) -> int | None:
        a, b = self.herds
        if a == b:
            return None
        return 0 if a > b else 1

    def result(self) -> RoundResult:
        """Score a finished round: camel token, rupees, and the seal with its tie-breaks."""
        if self.end is None:
            raise ValueError("the round is not over")
        token = self.camel_token()
        scores = (
            self.rupees(0) + (CAMEL_TOKEN_VALUE if token == 0 else 0),
            self.rupees(1) + (CAMEL_TOKEN_VALUE if token == 1 else 0),
        )
        keys = [
            (scores[seat], len(self.bonus_won[seat]), len(self.goods_won[seat])) for seat in (0, 1)
        ]
        seal = None if keys[0] == keys[1] else (0 if keys[0] > keys[1] else 1)
        return RoundResult(self.number, self.starter, scores, token, seal, self.end)

    # ------------------------------------------------------------ legality

    def check(self, move: Move, seat: int | None = None) -> None:
        """Raise ``IllegalMoveError`` saying why, if ``move`` is not legal now."""
        self.apply(move, seat)

    def is_legal(self, move: Move, seat: int | None = None) -> bool:
        try:
            self.apply(move, seat)
        except IllegalMoveError:
            return False
        return True

    def apply(self, move: Move, seat: int | None = None) -> Round:
        """The round after ``move`` by the seat to move; ``IllegalMoveError`` if it is not legal.

        Checking and applying are one pass, so a replay validates every move at
        no extra cost and no rule is written twice.
        """
        if self.end is not None:
            raise IllegalMoveError("round_over")
        me = self.to_move
        if seat is not None and seat != me:
            raise IllegalMoveError("not_your_turn", to_move=me)
        kind = type(move)
        if kind is Sell:
            return self._sell(me, move)  # type: ignore[arg-type]
        if kind is TakeGood:
            return self._take_good(me, move.good)  # type: ignore[union-attr]
        if kind is Exchange:
            return self._exchange(me, move)  # type: ignore[arg-type]
        if kind is TakeCamels:
            return self._take_camels(me)
        raise TypeError(f"not a move of a round: {move!r}")

    def _refill(self, r: Round, n: int) -> None:
        """Draw ``n`` cards into the market; a deck that cannot give them all ends the round."""
        deck, top = self.deck, self.top
        available = len(deck) - top
        drawn = n if n <= available else available
        if drawn:
            market = list(r.market)
            for card in deck[top : top + drawn]:
                market[card] += 1
            r.market = tuple(market)
            r.top = top + drawn
        if drawn < n:
            r.end = "deck"

    def _take_good(self, me: int, good: Card) -> Round:
        g = int(good)
        if g == CAMEL:
            raise IllegalMoveError("camels_take_all")
        hand = self.hands[me]
        size = sum(hand)
        if not _room_to_take(size):
            raise IllegalMoveError("hand_limit_take", hand=size)
        if not self.market[g]:
            raise IllegalMoveError("not_in_market", have=0, card=good.word, want=good.word)
        r = self._clone()
        r.market = _add(self.market, g, -1)
        r.hands = _set_seat(self.hands, me, _add(hand, g, 1))
        r.to_move = 1 - me
        self._refill(r, 1)
        return r

    def _take_camels(self, me: int) -> Round:
        n = self.market[CAMEL]
        if not n:
            raise IllegalMoveError("no_camels_in_market")
        r = self._clone()
        market = list(self.market)
        market[CAMEL] = 0
        r.market = tuple(market)
        herds = list(self.herds)
        herds[me] += n
        r.herds = (herds[0], herds[1])
        r.to_move = 1 - me
        self._refill(r, n)
        return r

    def _exchange(self, me: int, move: Exchange) -> Round:
        taken, given = move.taken, move.given
        k = len(taken)
        if k < _MIN_EXCHANGE:
            raise IllegalMoveError("exchange_too_few")
        if len(given) != k:
            raise IllegalMoveError("exchange_unequal", taken=k, given=len(given))
        take_counts = list(_ZERO7)
        for card in taken:
            take_counts[card] += 1
        give_counts = list(_ZERO7)
        for card in given:
            give_counts[card] += 1
        if take_counts[CAMEL]:
            raise IllegalMoveError("exchange_camel_taken")
        market, hand = self.market, self.hands[me]
        for kind in range(6):
            t = take_counts[kind]
            if t and give_counts[kind]:
                raise IllegalMoveError("exchange_same_type", card=Card(kind).word)
            if t > market[kind]:
                raise IllegalMoveError(
                    "not_in_market",
                    have=market[kind],
                    card=Card(kind).word,
                    want=_n_cards(t, kind),
                )
            if give_counts[kind] > hand[kind]:
                raise IllegalMoveError(
                    "not_in_hand",
                    have=hand[kind],
                    card=Card(kind).word,
                    want=_n_cards(give_counts[kind], kind),
                )
        camels_given = give_counts[CAMEL]
        if camels_given > self.herds[me]:
            raise IllegalMoveError("not_in_herd", have=self.herds[me], want=camels_given)
        after = sum(hand) - (k - camels_given) + k
        if _goods_to_give(sum(hand), k) > k - camels_given:
            raise IllegalMoveError("hand_limit_exchange", after=after)
        r = self._clone()
        r.market = tuple(market[c] - take_counts[c] + give_counts[c] for c in range(7))
        new_hand = [hand[c] + take_counts[c] - give_counts[c] for c in range(7)]
        new_hand[CAMEL] = 0
        r.hands = _set_seat(self.hands, me, tuple(new_hand))
        if camels_given:
            herds = list(self.herds)
            herds[me] -= camels_given
            r.herds = (herds[0], herds[1])
        r.to_move = 1 - me
        return r

    def _sell(self, me: int, move: Sell) -> Round:
        g, count = int(move.good), move.count
        if g == CAMEL:
            raise IllegalMoveError("sell_camel")
        if count < 1:
            raise IllegalMoveError("sell_nothing")
        if count < _MIN_SALE[g]:
            raise IllegalMoveError("sell_too_few_precious", card=move.good.word)
        hand = self.hands[me]
        if hand[g] < count:
            raise IllegalMoveError(
                "not_in_hand", have=hand[g], card=move.good.word, want=_n_cards(count, g)
            )
        r = self._clone()
        r.hands = _set_seat(self.hands, me, _add(hand, g, -count))
        r.discard = _add(self.discard, g, count)
        pile = _TOKEN_PILES[g]
        taken = self.tokens_taken[g]
        got = pile[taken : taken + count]
        if got:
            tokens_taken = list(self.tokens_taken)
            tokens_taken[g] = taken + len(got)
            r.tokens_taken = tuple(tokens_taken)
            r.goods_won = _set_seat(self.goods_won, me, self.goods_won[me] + got)
        size = bonus_size(count)
        if size is not None:
            i = size - 3
            taken_bonus = self.bonus_taken[i]
            if taken_bonus < len(self.bonus[i]):
                bonus_taken = list(self.bonus_taken)
                bonus_taken[i] = taken_bonus + 1
                r.bonus_taken = tuple(bonus_taken)
                r.bonus_won = _set_seat(
                    self.bonus_won, me, (*self.bonus_won[me], self.bonus[i][taken_bonus])
                )
        r.to_move = 1 - me
        if got and r.empty_piles() >= EMPTY_PILES_TO_END:
            r.end = "piles"
        return r

    # ------------------------------------------------------------ legal moves

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move: takes, camels, every exchange, every sale."""
        if self.end is not None:
            return []
        me = self.to_move
        herd = self.herds[me]
        # An exchange gives at most 5 camels, so a larger herd allows the same moves.
        return list(_legal_moves(self.hands[me], self.market, herd if herd < 5 else 5))

    def simple_moves(self) -> list[Move]:
        """The legal moves of the seat to move but the exchanges (takes, camels, sales):
        the few a search looks at first, at a fraction of the cost of every exchange."""
        if self.end is not None:
            return []
        takes, sales = _simple_moves(self.hands[self.to_move], self.market)
        return [*takes, *sales]

    # --------------------------------------------------------------- export

    def cards_in_play(self) -> int:
        """Every card of the round, wherever it is (the 55-card conservation check)."""
        return (
            self.deck_size
            + sum(self.market)
            + sum(self.hands[0])
            + sum(self.hands[1])
            + self.herds[0]
            + self.herds[1]
            + sum(self.discard)
        )

    def deck_cards(self) -> tuple[Card, ...]:
        """The draw pile, top first (hidden from everyone while the game runs)."""
        return tuple(Card(c) for c in self.deck[self.top :])

    def hand(self, seat: int) -> tuple[Card, ...]:
        return cards_of(self.hands[seat])

    def market_cards(self) -> tuple[Card, ...]:
        return cards_of(self.market)

    def discard_cards(self) -> tuple[Card, ...]:
        return cards_of(self.discard)


@lru_cache(maxsize=8192)
def _legal_moves(hand: tuple[int, ...], market: tuple[int, ...], herd: int) -> tuple[Move, ...]:
    """The legal moves of a seat with this hand and herd at this market.

    They depend on nothing else, and searches (``pbem.ai``) meet the same few hands and
    markets again and again, so the list is kept: moves are immutable values, and every
    caller gets its own list. Takes and the camels come first, then the exchanges, then
    the sales.
    """
    takes, sales = _simple_moves(hand, market)
    return (*takes, *_exchanges(hand, market, herd), *sales)


@lru_cache(maxsize=8192)
def _simple_moves(
    hand: tuple[int, ...], market: tuple[int, ...]
) -> tuple[tuple[Move, ...], tuple[Move, ...]]:
    """The legal takes (goods, then the camels) and sales: every move but the exchanges
    (kept as ``_legal_moves`` are, for the same reason)."""
    takes: list[Move] = []
    if _room_to_take(sum(hand)):
        takes.extend(TakeGood(g) for g in GOODS if market[g])
    if market[CAMEL]:
        takes.append(TakeCamels())
    sales = [Sell(g, count) for g in GOODS for count in range(_MIN_SALE[g], hand[g] + 1)]
    return tuple(takes), tuple(sales)


def _exchanges(hand: tuple[int, ...], market: tuple[int, ...], herd: int) -> list[Move]:
    """Every legal exchange, each once in its canonical form."""
    size = sum(hand)
    moves: list[Move] = []
    market_goods = market[:6]
    total_market = sum(market_goods)
    for k in range(_MIN_EXCHANGE, total_market + 1):
        min_goods_given = _goods_to_give(size, k)
        for take in _submultisets(market_goods, k):
            taken = _cards(take)
            offer = tuple(0 if take[c] else hand[c] for c in range(6))
            for camels in range(min(herd, k - min_goods_given), -1, -1):
                camel_cards = (Card.CAMEL,) * camels
                for give in _submultisets(offer, k - camels):
                    moves.append(Exchange.canonical(taken, _cards(give) + camel_cards))
    return moves


#: ``cards_of`` of the count vectors exchanges take and give, kept (at most five cards
#: each: a few hundred vectors) because a search lists the exchanges of thousands of hands.
_cards = lru_cache(maxsize=None)(cards_of)


def _room_to_take(hand_size: int) -> bool:
    """A single good may be taken only below the hand limit (camels go to the herd)."""
    return hand_size < HAND_LIMIT


def _goods_to_give(hand_size: int, taken: int) -> int:
    """The fewest goods from the hand an exchange of ``taken`` cards must give back, so the
    hand stays within its limit (the rest may be camels from the herd)."""
    over = hand_size + taken - HAND_LIMIT
    return over if over > 0 else 0


def _set_seat(pair: tuple, seat: int, value: object) -> tuple:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _n_cards(n: int, card: int) -> str:
    return f"{n} {Card(card).word}"


@lru_cache(maxsize=16384)
def _submultisets(counts: tuple[int, ...], size: int) -> tuple[tuple[int, ...], ...]:
    """Every way to choose ``size`` cards from a count vector, as count vectors (kept: the
    exchanges of a search's sampled hands ask for the same few thousand again and again)."""
    return tuple(_each_submultiset(counts, size))


def _each_submultiset(counts: tuple[int, ...], size: int) -> Iterator[tuple[int, ...]]:
    n = len(counts)
    chosen = [0] * n

    def rec(i: int, left: int, room: int) -> Iterator[tuple[int, ...]]:
        if left == 0:
            yield tuple(chosen)
            return
        if i == n or room < left:
            return
        rest = room - counts[i]
        for k in range(min(counts[i], left), -1, -1):
            if left - k > rest:
                break
            chosen[i] = k
            yield from rec(i + 1, left - k, rest)
        chosen[i] = 0

    yield from rec(0, size, sum(counts))
