"""Tournament benchmark: pairing a 200-player Swiss round, and verifying its event.

Run: ``.venv/bin/python -m benchmarks.events [--players N] [--rounds N]``. Prints the CPU
time of each round's pairing (the maximum-weight matching dominates) and of
``verify_event`` recomputing every round. Goal: every round of a 200-player Swiss event
paired in under a second (tests/events/test_benchmark.py holds it for the slowest round).
"""

from __future__ import annotations

import argparse
import random
import time

from pbem.events import (
    Entrant,
    EventRecord,
    EventRules,
    Format,
    GameResult,
    Pairing,
    commit,
    pair_round,
    standings,
    verify_event,
)

SEED = bytes(range(32))


def swiss_event(players: int, rounds: int, choices: int = 2) -> tuple[EventRecord, list[float]]:
    """A Swiss event of random results (no games played) and each round's pairing time."""
    rules = EventRules(Format.SWISS, rounds)
    entrants = [Entrant(f"p{i}", f"Player {i}") for i in range(players)]
    rnd = random.Random(choices)
    pairings: list[Pairing] = []
    results: list[GameResult] = []
    times = []
    for r in range(1, rounds + 1):
        start = time.process_time()
        new = pair_round(rules, entrants, results, r, SEED, pairings)
        times.append(time.process_time() - start)
        pairings += new
        results += [
            GameResult(r, p.board, None, None, rnd.choice([p.first, p.second]), (2, 1), (60, 50))
            for p in new
            if p.second is not None
        ]
    record = EventRecord(
        event_id="bench",
        name="Benchmark",
        rules=rules,
        created_at="2026-12-01T00:00:00Z",
        commitment=commit(SEED),
        seed=SEED.hex(),
        entrants=tuple(entrants),
        pairings=tuple(pairings),
        results=tuple(results),
        standings=tuple(standings(rules, entrants, pairings, results, SEED)),
    )
    return record, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    record, times = swiss_event(args.players, args.rounds)
    for r, t in enumerate(times, start=1):
        print(f"round {r}: paired {args.players} players in {t:.3f} s of CPU")
    start = time.process_time()
    report = verify_event(record)
    took = time.process_time() - start
    print(f"verify_event: {'ok' if report.ok else 'FAIL'} in {took:.2f} s of CPU")


if __name__ == "__main__":
    main()
