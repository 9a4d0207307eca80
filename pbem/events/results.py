"""What a finished game of an event contributes: who won, seals and round points."""

from __future__ import annotations

from dataclasses import dataclass


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
