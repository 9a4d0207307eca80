"""What earlier rounds say about each entrant: the one reading of pairings and results
that pairing and standings share (match points, opponents, colours, byes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .results import GameResult

if TYPE_CHECKING:
    from .pairing import Pairing

Key = tuple[int, int, int]


def key_of(item: Pairing | GameResult) -> Key:
    return (item.round, item.board, item.game)


@dataclass(slots=True)
class Past:
    """One entrant's history. ``colours``: True where they moved first, in round order
    (games played, not byes nor forfeits); ``opponents``: every opponent of a game with a
    result, forfeits included, once per game."""

    points: int = 0
    wins: int = 0
    losses: int = 0
    byes: int = 0
    played: int = 0
    seals: int = 0
    round_points: int = 0
    opponents: list[str] = field(default_factory=list)
    beaten: list[str] = field(default_factory=list)
    colours: list[bool] = field(default_factory=list)
    met: dict[str, int] = field(default_factory=dict)


def results_by_key(results: Sequence[GameResult]) -> dict[Key, GameResult]:
    return {key_of(r): r for r in results}


def history(
    ids: Sequence[str], pairings: Sequence[Pairing], results: Sequence[GameResult]
) -> dict[str, Past]:
    """Each entrant's ``Past`` from the pairings and the results they have so far."""
    past = {i: Past() for i in ids}
    found = results_by_key(results)
    for p in pairings:
        if p.second is None:
            if p.first in past:
                past[p.first].points += 1
                past[p.first].byes += 1
            continue
        first, second = past.get(p.first), past.get(p.second)
        if first is None or second is None:
            continue
        for me, other in ((first, p.second), (second, p.first)):
            me.met[other] = me.met.get(other, 0) + 1
        result = found.get(key_of(p))
        if result is None:
            continue
        for me, other in ((first, p.second), (second, p.first)):
            me.played += 1
            me.opponents.append(other)
        if not result.forfeit:
            first.colours.append(True)
            second.colours.append(False)
            first.seals += result.seals[0]
            second.seals += result.seals[1]
            first.round_points += result.points[0]
            second.round_points += result.points[1]
        if result.winner in (p.first, p.second):
            loser = p.second if result.winner == p.first else p.first
            past[result.winner].points += 1
            past[result.winner].wins += 1
            past[result.winner].beaten.append(loser)
            past[loser].losses += 1
        else:
            first.losses += 1
            second.losses += 1
    return past
