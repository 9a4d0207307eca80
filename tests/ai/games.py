"""A finished game against the computer, as a record, for the reproduce tests."""

from __future__ import annotations

import random
from dataclasses import replace

from pbem import ai
from pbem.ai.reproduce import computer_field
from pbem.engine import Match, Move, Record, Resign

from ..engine.records import play_record

SEED = bytes(range(7, 39))
COMPUTER = 1


def computer_game(level: str = "easy", resign_at: int = 24) -> Record:
    """A game where seat 1 is the computer at ``level`` (its dice from ``move_seed``) and
    seat 0 plays at random until it resigns at move ``resign_at``; with its ``computer``
    field as the server writes it."""
    rnd = random.Random(3)
    played: dict[int, str | None] = {}
    round_moves: list[Move] = []
    number = 1

    def chooser(state: Match, n: int) -> Move:
        nonlocal round_moves, number
        if state.round_number != number:
            number, round_moves = state.round_number, []
        if state.to_move == COMPUTER:
            move = ai.play(state, COMPUTER, round_moves, level, ai.move_seed(SEED, n))
            played[n] = ai.VERSION
        elif n >= resign_at:
            return Resign()
        else:
            move = rnd.choice(state.legal_moves())
        round_moves.append(move)
        return move

    record = play_record(SEED, 1, chooser=chooser)
    assert record.result is not None  # over: the person resigned
    field = computer_field(COMPUTER, level, played)
    players = ({"seat": 0, "name": "Ada"}, {"seat": 1, "name": ai.player_name(level)})
    return replace(record, players=players, extra={"computer": field})
