"""The search's early stop: ``choose`` ends a search once its move is settled, and still
plays the move the whole search would have named (docs/computer.md, "Levels")."""

from __future__ import annotations

import random

from pbem.ai import information
from pbem.ai.search import ranked, search
from pbem.engine import Match, Viewer, observe
from pbem.engine.information import Information


def _positions(count: int) -> list[Information]:
    """Seat views of random-play positions of round 1, a few moves in."""
    rnd = random.Random(36)
    out: list[Information] = []
    while len(out) < count:
        match = Match.new(rnd.randbytes(32), 0)
        for _ in range(rnd.randrange(30)):
            match = match.apply(rnd.choice(match.legal_moves()))
        seat = match.to_move
        if match.round_number == 1 and not match.is_over and seat is not None:
            out.append(information(observe(match, Viewer.seat(seat))))
    return out


def test_a_decided_search_names_the_whole_searchs_move_for_fewer_iterations() -> None:
    iterations = 400
    stopped_early = 0
    for i, info in enumerate(_positions(12)):
        whole = ranked(info, iterations, random.Random(i))
        cut = ranked(info, iterations, random.Random(i), decided=True)
        assert cut[0].move == whole[0].move == search(info, iterations, random.Random(i))
        if len(whole) > 1:
            assert sum(s.visits for s in whole) == iterations
            done = sum(s.visits for s in cut)
            assert done <= iterations
            stopped_early += done < iterations
    assert stopped_early >= 3  # (4 of these 12 at 400 iterations; more at higher counts)


def test_the_analysis_table_runs_every_iteration() -> None:
    info = _positions(1)[0]
    table = ranked(info, 300, random.Random(1))
    assert sum(s.visits for s in table) == 300
