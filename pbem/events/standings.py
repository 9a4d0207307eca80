"""Standings and the round robin's crosstable (docs/tournaments.md, "Standings").

Match points: a win 1, a loss 0, a bye 1, a forfeit win 1; a game with no winner 0 for
both (Jaipur has no draw: a match ends with two seals). Then, by format:

- round robin: Sonneborn–Berger (the match points of the players one beat), head-to-head
  (match points in the games among the players still tied), seals won, round points;
- Swiss: Buchholz (the opponents' match points; a bye adds 0), median Buchholz
  (without the best and worst opponent, with three or more), seals won, round points;
- elimination: rounds won, seals won, round points.

Players tied on all of these are ordered by lot: a shuffle of their ids drawn from the
seed (``jaipur-event/1/lot/0``), shown as a shared rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .entrants import Entrant
from .formats import EventRules
from .pairing import Pairing
from .results import GameResult


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings. ``rank`` is shared by players tied on every number
    (their order among themselves is the lot's). ``tiebreaks`` are (name, value) in the
    order they count: names ``sonneborn_berger``, ``head_to_head``, ``buchholz``,
    ``median_buchholz``, ``rounds_won``, ``seals``, ``round_points``."""

    rank: int
    entrant: str
    match_points: int
    played: int
    wins: int
    losses: int
    byes: int
    tiebreaks: tuple[tuple[str, int], ...]


def standings(
    rules: EventRules,
    entrants: Sequence[Entrant],
    pairings: Sequence[Pairing],
    results: Sequence[GameResult],
    seed: bytes | None = None,
) -> list[Standing]:
    """The standings after ``results`` (live while games run: a game without a result
    counts for nothing yet). Without ``seed`` (a running event seen from outside the
    server) full ties keep the entrants' order and share a rank."""
    raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Cell:
    """One game between a row's player and a column's: ``score`` 1, 0, or None (not
    finished); ``first`` whether the row's player moved first."""

    score: int | None
    first: bool
    forfeit: bool
    game_id: str | None


@dataclass(frozen=True, slots=True)
class Crosstable:
    """Rows and columns in standings order; ``cells[(row, column)]`` the games between
    them (two in a double round robin), in round order."""

    order: tuple[str, ...]
    cells: dict[tuple[str, str], tuple[Cell, ...]]


def crosstable(
    rules: EventRules,
    entrants: Sequence[Entrant],
    pairings: Sequence[Pairing],
    results: Sequence[GameResult],
    seed: bytes | None = None,
) -> Crosstable:
    """The round robin's crosstable (``ValueError`` for another format)."""
    raise NotImplementedError
