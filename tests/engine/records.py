"""Random finished and running games as records, for record, CLI and benchmark tests."""

from __future__ import annotations

import random
from collections.abc import Callable

from pbem.engine import (
    RECORD_FORMAT,
    Match,
    Move,
    Record,
    build_record,
    chain_start,
    log_move,
    position_digester,
    rng,
)

CREATED_AT = "2026-12-02T09:00:00Z"


def play_record(
    seed: bytes,
    choice_seed: int,
    stop_after: int | None = None,
    record_format: str = RECORD_FORMAT,
    chooser: Callable[[Match, int], Move] | None = None,
) -> Record:
    """A record of a random game; ``stop_after`` moves makes a running one (seed withheld).
    ``chooser(position, n)`` picks move ``n`` instead of a random legal move."""
    rnd = random.Random(choice_seed)
    commitment = rng.commitment(seed)
    game_id = f"g{choice_seed}"
    start = chain_start(
        record_format, commitment, game_id=game_id, created_at=CREATED_AT, first_player=None
    )
    digest = position_digester(record_format, seed)
    state, log, previous = Match.new(seed), [], start
    while not state.is_over and (stop_after is None or len(log) < stop_after):
        seat = state.to_move
        if chooser is not None:
            move = chooser(state, len(log) + 1)
        else:
            move = rnd.choice(state.legal_moves())
        state = state.apply(move, seat)
        at = f"2026-12-02T{9 + len(log) // 3600:02d}:{len(log) // 60 % 60:02d}:{len(log) % 60:02d}Z"
        entry = log_move(previous, len(log) + 1, seat, move, at, state, digest)
        log.append(entry)
        previous = entry.hash
    running = not state.is_over
    return build_record(
        seed=seed,
        commitment=commitment,
        moves=log,
        final=None if running else state,
        game_id=game_id,
        players=[{"seat": 0, "name": "Player A"}, {"seat": 1, "name": "Player B"}],
        created_at=CREATED_AT,
        record_format=record_format,
    )
