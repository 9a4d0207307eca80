"""Moves as small immutable values whose ``str`` is the canonical notation
(docs/record-format.md §3).

A move says only what the player chose; whether the position allows it is the
state's business (``RoundState.check``), as a ``chess.Move`` knows nothing of
the board.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card


def _canonical(cards: tuple[Card, ...] | list[Card]) -> tuple[Card, ...]:
    return tuple(sorted(Card(c) for c in cards))


def _words(cards: tuple[Card, ...]) -> str:
    return " ".join(card.word for card in cards)


@dataclass(frozen=True, slots=True)
class TakeGood:
    """Take one goods card from the market, then refill it from the deck."""

    good: Card

    def __str__(self) -> str:
        return f"take {self.good.word}"


@dataclass(frozen=True, slots=True)
class TakeCamels:
    """Take all the camels in the market into the herd, then refill the market."""

    def __str__(self) -> str:
        return "camels"


@dataclass(frozen=True, slots=True)
class Exchange:
    """Take 2+ goods from the market and give back as many cards from hand and herd.

    Both lists are kept in canonical card order, so two ways of writing the same
    exchange are the same value.
    """

    taken: tuple[Card, ...]
    given: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "taken", _canonical(self.taken))
        object.__setattr__(self, "given", _canonical(self.given))

    @classmethod
    def canonical(cls, taken: tuple[Card, ...], given: tuple[Card, ...]) -> Exchange:
        """Build from lists already in canonical order (move generation), skipping the sort."""
        move = object.__new__(cls)
        object.__setattr__(move, "taken", taken)
        object.__setattr__(move, "given", given)
        return move

    def __str__(self) -> str:
        return f"exchange {_words(self.taken)} for {_words(self.given)}"


@dataclass(frozen=True, slots=True)
class Sell:
    """Sell ``count`` cards of one good from the hand."""

    good: Card
    count: int

    def __str__(self) -> str:
        return f"sell {self.count} {self.good.word}"


@dataclass(frozen=True, slots=True)
class Resign:
    """A seat gives up the match; the other seat wins at once.

    Not a turn of the card game: either seat may resign at any time while the
    match runs, so it is logged (and chained) like a move but never listed
    among the legal moves.
    """

    def __str__(self) -> str:
        return "resign"


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat to move let its deadline pass (logged by the server's clock, for that seat).

    It changes nothing on the table; it only makes a claim of the win possible
    for the other seat until the late seat moves.
    """

    def __str__(self) -> str:
        return "timeout"


@dataclass(frozen=True, slots=True)
class Claim:
    """The waiting seat claims the win because the other seat's time ran out."""

    def __str__(self) -> str:
        return "claim"


Move = TakeGood | TakeCamels | Exchange | Sell | Resign | Timeout | Claim
#: Entries of the log that are not turns of the card game (never listed as legal moves).
MATCH_ACTIONS = (Resign, Timeout, Claim)
