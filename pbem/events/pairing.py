"""Each round's pairings, from the seed and the results so far (docs/tournaments.md).

Every choice the organiser does not make is a function of the event's seed, the
entrants and the results of earlier rounds, so ``pbem verify`` recomputes it:

- round robin: the Berger tables, the players numbered in an order drawn from the seed;
  a double round robin plays them again with the first player swapped;
- Swiss: a maximum-weight matching (``networkx.max_weight_matching``) whose weights
  put, in this order, fewest rematches, then players of equal scores together (the bye
  to the lowest-scored player who has not had one), then colours, and last a seeded
  random tie-break that makes the best matching unique;
- elimination: a standard bracket seeded by rating (1 v N, …), byes to the top seeds,
  and a tie-break game, colours swapped, after a game with no winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .entrants import Entrant
from .formats import EventRules
from .results import GameResult


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game of a round: ``first`` takes seat 0 and moves first (the game's
    ``first_player`` is 0), ``second`` seat 1; ``second`` None is a bye (no game, one
    match point). ``game`` counts an elimination board's games: 2, 3, … are tie-breaks."""

    round: int
    board: int
    first: str
    second: str | None
    game: int = 1

    @property
    def is_bye(self) -> bool:
        return self.second is None


def pair_round(
    rules: EventRules,
    entrants: Sequence[Entrant],
    results: Sequence[GameResult],
    round_no: int,
    seed: bytes,
    pairings: Sequence[Pairing] = (),
) -> list[Pairing]:
    """The pairings of round ``round_no`` (1-based), boards numbered from 1, byes last.

    ``results`` and ``pairings`` are those of the earlier rounds (elimination and Swiss
    read them; a round robin's schedule is fixed from round 1). Deterministic: the same
    arguments give the same list, on any machine. ``ValueError`` for a round the
    event does not have, or an elimination round whose previous round is not decided.
    """
    raise NotImplementedError


def tie_breaks(
    rules: EventRules, round_pairings: Sequence[Pairing], results: Sequence[GameResult]
) -> list[Pairing]:
    """The tie-break games a round still needs: in elimination, one for each board whose
    last game ended with no winner (colours swapped, ``game`` + 1); none in other formats."""
    raise NotImplementedError


def round_finished(
    rules: EventRules, round_pairings: Sequence[Pairing], results: Sequence[GameResult]
) -> bool:
    """Whether every game of the round has a result and no tie-break game is needed."""
    raise NotImplementedError
