"""What a finished game of an event contributes: who won, seals and round points."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbem.engine import Match

    from .pairing import Pairing


@dataclass(frozen=True, slots=True)
class GameResult:
    """The result of the game played for one pairing (``round``, ``board``, ``game``).

    ``winner`` is an entrant id, or None for a game with no winner (both absent, or
    stopped by the operator): it scores 0 for both, and in elimination a tie-break game
    follows. ``seals`` and ``points`` are (first's, second's), in the pairing's order;
    ``points`` are the round points each scored over the match. ``forfeit``: not played
    to its end (a withdrawal): the winner scores the point, and neither seals nor points
    count. ``game_id`` and ``chain_hash`` (the last move's hash, or ``hash_0`` for a game
    without moves) tie the result to the game record; None for a forfeit never played.
    """

    round: int
    board: int
    game_id: str | None
    chain_hash: str | None
    winner: str | None
    seals: tuple[int, int] = (0, 0)
    points: tuple[int, int] = (0, 0)
    forfeit: bool = False
    game: int = 1


def from_match(
    pairing: Pairing, game_id: str | None, chain_hash: str | None, match: Match
) -> GameResult:
    """The result of an event game from its finished ``Match``: ``first`` sits at seat 0
    (and moves first: the game's ``first_player`` is 0), so seat i's winner, seals and
    round points (the sum of its scores over the rounds) are read in that order."""
    players = (pairing.first, pairing.second)
    points = (sum(r.scores[0] for r in match.results), sum(r.scores[1] for r in match.results))
    return GameResult(
        round=pairing.round,
        board=pairing.board,
        game=pairing.game,
        game_id=game_id,
        chain_hash=chain_hash,
        winner=None if match.winner is None else players[match.winner],
        seals=(match.seals[0], match.seals[1]),
        points=points,
    )
