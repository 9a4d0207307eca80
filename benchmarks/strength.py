"""How strong the computer is against a determinized Monte-Carlo player at equal time.

Run: ``.venv/bin/python -m benchmarks.strength [--level normal] [--matches 200]
[--workers 2] [--rounds]``. Prints figures; asserts nothing.

The yardstick is ``benchmarks/montecarlo.py`` (written apart from ``pbem.ai``). Each
pair of matches shares a deal with the seats swapped. Equal time: the Monte-Carlo
player thinks, for each of its moves, as many CPU seconds as the computer's moves of the
same match took on average so far (before the computer's first move, its average over
positions measured at the start). CPU time, not wall-clock, so the two workers sharing
two cores do not tilt it. ``--rounds`` plays single rounds instead of matches (quicker,
for trying changes; a match is the best of three rounds). Goals (issue 36): ``normal``
wins ≥ 90 % of matches, ``strong`` ≥ 97 %, over at least 200 matches, with 95 % intervals.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import time

from pbem.ai import play
from pbem.engine import Match, Move

from .ai import wilson
from .montecarlo import montecarlo_move


def calibrate(level: str, positions: int = 30) -> float:
    """The computer's mean CPU seconds a move over some positions of random play."""
    rnd = random.Random(f"calibrate {level}")
    spent = []
    for _ in range(positions):
        match = Match.new(rnd.randbytes(32), 0)
        for _ in range(rnd.randrange(30)):
            match = match.apply(rnd.choice(match.legal_moves()))
        if match.round_number != 1 or match.is_over:
            continue
        seat = match.to_move
        assert seat is not None
        start = time.process_time()
        play(match, seat, (), level, rnd.randrange(2**32))
        spent.append(time.process_time() - start)
    return statistics.fmean(spent)


def play_one(
    level: str, seed: bytes, computer_seat: int, first_budget: float, rounds_only: bool
) -> tuple[float, float, float]:
    """One match (or its first round): the computer's result (1, ½ for a tied round, 0),
    its mean and the Monte-Carlo player's mean CPU seconds a move."""
    rnd = random.Random(seed)
    match = Match.new(seed, 0)
    round_moves: list[Move] = []
    mine: list[float] = []
    theirs: list[float] = []
    while not match.is_over:
        seat = match.to_move
        assert seat is not None
        start = time.process_time()
        if seat == computer_seat:
            move = play(match, seat, round_moves, level, rnd.randrange(2**32))
            mine.append(time.process_time() - start)
        else:
            budget = statistics.fmean(mine) if mine else first_budget
            move = montecarlo_move(match, seat, budget, rnd)
            theirs.append(time.process_time() - start)
        number = match.round_number
        match = match.apply(move)
        if match.round_number != number or match.is_over:
            if rounds_only:
                seal = match.results[0].seal
                result = 0.5 if seal is None else float(seal == computer_seat)
                return result, statistics.fmean(mine), statistics.fmean(theirs)
            round_moves = []
        else:
            round_moves.append(move)
    return float(match.winner == computer_seat), statistics.fmean(mine), statistics.fmean(theirs)


def _job(args: tuple[str, int, float, bool]) -> tuple[float, float, float]:
    level, i, budget, rounds_only = args
    seed = random.Random(f"strength pair {i // 2}").randbytes(32)
    return play_one(level, seed, i % 2, budget, rounds_only)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--level", default="normal")
    parser.add_argument("--matches", type=int, default=200, help="even: pairs of seats")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", action="store_true", help="single rounds, not matches")
    parser.add_argument("--start", type=int, default=0, help="first pair's number")
    parser.add_argument("--every", type=int, default=20, help="a running tally every N")
    args = parser.parse_args()
    budget = calibrate(args.level)
    what = "rounds" if args.rounds else "matches"
    print(f"{args.level}: {budget:.3f} s CPU a move at first; {args.matches} {what}", flush=True)
    start = time.perf_counter()
    jobs = [(args.level, 2 * args.start + i, budget, args.rounds) for i in range(args.matches)]
    results: list[tuple[float, float, float]] = []
    with multiprocessing.Pool(args.workers) as pool:
        for result in pool.imap(_job, jobs, chunksize=1):
            results.append(result)
            if len(results) % args.every == 0 or len(results) == len(jobs):
                won = sum(r for r, _, _ in results)
                n = len(results)
                low, high = wilson(round(won), n)
                print(
                    f"  {args.level} vs Monte-Carlo: {won:g}/{n} {what} = {100 * won / n:.1f} % "
                    f"(95 % Wilson {100 * low:.1f}–{100 * high:.1f} %); CPU a move: computer "
                    f"{statistics.fmean(r[1] for r in results):.3f} s, Monte-Carlo "
                    f"{statistics.fmean(r[2] for r in results):.3f} s "
                    f"[{time.perf_counter() - start:.0f} s]",
                    flush=True,
                )


if __name__ == "__main__":
    main()
