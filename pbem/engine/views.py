"""What one seat, or a spectator, may know (docs/rules.md §9, "What each player may see").

A view is its own value, built field by field from the state: it has no slot
for what its reader may not see, so no template or API answer can leak the
opponent's hand, bonus values or the deck order by forgetting to blank a field.

Herd sizes are open to everyone: every camel taken and given back is a public move,
so anyone who counts knows both herds; hiding them helped only those who count.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .cards import BONUS_SIZES, GOODS, Card
from .match import Match
from .round import RoundResult


@dataclass(frozen=True, slots=True)
class OpenPlayer:
    """What everybody may know of a player: card count, herd size, goods tokens, how many
    bonus tokens (the herd follows from the public moves, so it is shown, not left to counting)."""

    seat: int
    hand_size: int
    herd: int
    goods_tokens: tuple[int, ...]
    bonus_count: int


@dataclass(frozen=True, slots=True)
class OwnPlayer:
    """What a seat knows of itself."""

    seat: int
    hand: tuple[Card, ...]
    herd: int
    goods_tokens: tuple[int, ...]
    bonus_tokens: tuple[int, ...]

    @property
    def hand_size(self) -> int:
        return len(self.hand)

    @property
    def rupees(self) -> int:
        return sum(self.goods_tokens) + sum(self.bonus_tokens)


@dataclass(frozen=True, slots=True)
class Table:
    """The open part of the table that every view shares."""

    round: int
    to_move: int | None
    round_over: bool
    game_over: bool
    winner: int | None
    seals: tuple[int, int]
    market: tuple[Card, ...]
    discard: tuple[Card, ...]
    deck_size: int
    tokens: dict[Card, tuple[int, ...]]  # goods tokens left per good, top first
    bonus_left: dict[int, int]  # how many bonus tokens each pile still has
    results: tuple[RoundResult, ...]  # rounds already scored


@dataclass(frozen=True, slots=True)
class SeatView:
    """Seat ``me.seat``'s view: its own hand and bonus values; of the opponent, counts and herd."""

    table: Table
    me: OwnPlayer
    opponent: OpenPlayer

    @property
    def seat(self) -> int:
        return self.me.seat

    @property
    def my_turn(self) -> bool:
        return self.table.to_move == self.me.seat


@dataclass(frozen=True, slots=True)
class PublicView:
    """A spectator's view: no hand contents, no bonus values; counts and herd sizes."""

    table: Table
    players: tuple[OpenPlayer, OpenPlayer]


def _table(match: Match) -> Table:
    r = match.round
    return Table(
        round=r.number,
        to_move=match.to_move,
        round_over=r.is_over,
        game_over=match.is_over,
        winner=match.winner,
        seals=match.seals,
        market=r.market_cards(),
        discard=r.discard_cards(),
        deck_size=r.deck_size,
        tokens={g: r.tokens_left(g) for g in GOODS},
        bonus_left={size: len(r.bonus_left(size)) for size in BONUS_SIZES},
        results=match.results,
    )


def _open_player(match: Match, seat: int) -> OpenPlayer:
    r = match.round
    return OpenPlayer(
        seat=seat,
        hand_size=r.hand_size(seat),
        herd=r.herds[seat],
        goods_tokens=r.goods_won[seat],
        bonus_count=len(r.bonus_won[seat]),
    )


def seat_view(match: Match, seat: int) -> SeatView:
    """What ``seat`` may know now."""
    if seat not in (0, 1):
        raise ValueError("a seat is 0 or 1")
    r = match.round
    me = OwnPlayer(
        seat=seat,
        hand=r.hand(seat),
        herd=r.herds[seat],
        goods_tokens=r.goods_won[seat],
        bonus_tokens=r.bonus_won[seat],
    )
    return SeatView(_table(match), me, _open_player(match, 1 - seat))


def public_view(match: Match) -> PublicView:
    """What a spectator may know now."""
    return PublicView(_table(match), (_open_player(match, 0), _open_player(match, 1)))


def view_to_json(view: SeatView | PublicView) -> dict[str, Any]:
    """A view as plain JSON data (cards as words), for the API and the seat's own export."""

    def plain(value: Any) -> Any:
        if isinstance(value, Card):
            return value.word
        if isinstance(value, dict):
            return {plain(k) if isinstance(k, Card) else str(k): plain(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return value

    return plain(asdict(view))
