"""The components of Jaipur (docs/rules.md §1).

Cards are an ``IntEnum`` so that a card is also the index of its count in the
7-tuples the engine keeps for hands, market and discard pile: that keeps
replay cheap without a second numbering scheme. The integer order is the
canonical card order of docs/record-format.md §3.
"""

from __future__ import annotations

from enum import IntEnum


class Card(IntEnum):
    DIAMOND = 0
    GOLD = 1
    SILVER = 2
    CLOTH = 3
    SPICE = 4
    LEATHER = 5
    CAMEL = 6

    def __str__(self) -> str:
        return self.name.lower()

    @property
    def word(self) -> str:
        """The card's name in the notation (``diamond``)."""
        return self.name.lower()

    @property
    def is_precious(self) -> bool:
        return self <= Card.SILVER

    @classmethod
    def from_word(cls, word: str) -> Card:
        return cls[word.upper()]


GOODS: tuple[Card, ...] = tuple(c for c in Card if c is not Card.CAMEL)
CARDS: tuple[Card, ...] = tuple(Card)
PRECIOUS: frozenset[Card] = frozenset(c for c in GOODS if c.is_precious)

#: How many of each card the game has (55 in all).
CARD_COUNTS: dict[Card, int] = {
    Card.DIAMOND: 6,
    Card.GOLD: 6,
    Card.SILVER: 6,
    Card.CLOTH: 8,
    Card.SPICE: 8,
    Card.LEATHER: 10,
    Card.CAMEL: 11,
}
TOTAL_CARDS = sum(CARD_COUNTS.values())

#: Camels that start every round face up in the market.
MARKET_START_CAMELS = 3
MARKET_SIZE = 5
HAND_SIZE = 5
HAND_LIMIT = 7

#: The 52 cards that are shuffled, in the order docs/record-format.md §2.4 lists them.
SHUFFLED_CARDS: tuple[Card, ...] = tuple(
    card
    for card in CARDS
    for _ in range(CARD_COUNTS[card] - (MARKET_START_CAMELS if card is Card.CAMEL else 0))
)

#: Goods tokens per good, top of the pile (most valuable) first.
GOODS_TOKENS: dict[Card, tuple[int, ...]] = {
    Card.DIAMOND: (7, 7, 5, 5, 5),
    Card.GOLD: (6, 6, 5, 5, 5),
    Card.SILVER: (5, 5, 5, 5, 5),
    Card.CLOTH: (5, 3, 3, 2, 2, 1, 1),
    Card.SPICE: (5, 3, 3, 2, 2, 1, 1),
    Card.LEATHER: (4, 3, 2, 1, 1, 1, 1, 1, 1),
}

#: Bonus piles by the sale size they reward, in the order docs/record-format.md §2.4 shuffles them.
BONUS_TOKENS: dict[int, tuple[int, ...]] = {
    3: (1, 1, 2, 2, 2, 3, 3),
    4: (4, 4, 5, 5, 6, 6),
    5: (8, 8, 9, 10, 10),
}
BONUS_SIZES: tuple[int, ...] = (3, 4, 5)

CAMEL_TOKEN_VALUE = 5
#: The fewest cards a sale of a precious good (diamond, gold, silver) holds.
PRECIOUS_MINIMUM_SALE = 2
#: The fewest cards an exchange takes (one for one is a plain take).
EXCHANGE_MINIMUM = 2
#: A round ends at once when this many goods token piles are empty.
EMPTY_PILES_TO_END = 3
SEALS_TO_WIN = 2


def bonus_size(cards_sold: int) -> int | None:
    """Which bonus pile a sale of this many cards draws from (6 or 7 take the 5-card one)."""
    if cards_sold < 3:
        return None
    return min(cards_sold, 5)


def cards_of(counts: tuple[int, ...] | list[int]) -> tuple[Card, ...]:
    """The cards of a count tuple, in canonical order."""
    out: list[Card] = []
    for card, n in zip(CARDS, counts, strict=False):
        if n:
            out.extend((card,) * n)
    return tuple(out)
