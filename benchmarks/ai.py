"""Computer player benchmark: strength against random, greedy and itself, and its speed.

Run: ``.venv/bin/python -m benchmarks.ai [--matches N] [--workers 2]``. Prints figures;
asserts nothing. Each pair of matches shares a seed with the seats swapped. Goals:
"normal" wins ≥ 99 % against random and ≥ 75 % against greedy (the most valuable sale
if any, else the most valuable take), ≤ 2 s per move of "normal" on a 2-core machine,
and the analysis of a 150-move match (every position searched at "normal" from the
mover's information) in ≤ 60 s.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable

from pbem.ai import information, play
from pbem.ai.policies import greedy_move
from pbem.engine import Match, Move, Viewer, observe

Player = Callable[[Match, int, list[Move], random.Random], Move]


def _random(match: Match, seat: int, moves: list[Move], rnd: random.Random) -> Move:
    legal = match.legal_moves()
    return legal[rnd.randrange(len(legal))]


def _greedy(match: Match, seat: int, moves: list[Move], rnd: random.Random) -> Move:
    # reads the seat's own hand (through its legal moves) and the open piles only
    return greedy_move(match.round, match.legal_moves())


def _level(name: str) -> Player:
    def player(match: Match, seat: int, moves: list[Move], rnd: random.Random) -> Move:
        return play(match, seat, moves, name, rnd.randrange(2**32))

    return player


PLAYERS: dict[str, Player] = {
    "random": _random,
    "greedy": _greedy,
    "easy": _level("easy"),
    "normal": _level("normal"),
    "strong": _level("strong"),
}


def play_match(a: str, b: str, seed: bytes, a_seat: int, rnd_seed: int) -> tuple[int, list[float]]:
    """Play ``a`` (in ``a_seat``) against ``b``; 1 if ``a`` wins, and ``a``'s seconds per move."""
    rnd = random.Random(rnd_seed)
    match = Match.new(seed, 0)
    names = {a_seat: a, 1 - a_seat: b}
    round_moves: list[Move] = []
    times: list[float] = []
    while not match.is_over:
        seat = match.to_move
        assert seat is not None
        start = time.perf_counter()
        move = PLAYERS[names[seat]](match, seat, round_moves, rnd)
        if seat == a_seat:
            times.append(time.perf_counter() - start)
        number = match.round_number
        match = match.apply(move)
        round_moves = [] if match.round_number != number else [*round_moves, move]
    return int(match.winner == a_seat), times


def _job(args: tuple[str, str, int]) -> tuple[int, list[float]]:
    a, b, i = args
    seed = random.Random(f"pair {i // 2}").randbytes(32)
    return play_match(a, b, seed, i % 2, i)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def duel(pool, a: str, b: str, matches: int) -> list[float]:
    start = time.perf_counter()
    results = pool.map(_job, [(a, b, i) for i in range(matches)], chunksize=1)
    wins = sum(w for w, _ in results)
    low, high = wilson(wins, matches)
    times = [t for _, ts in results for t in ts]
    print(
        f"{a:>6} vs {b:<6}: {wins}/{matches} won = {100 * wins / matches:5.1f} % "
        f"(95 % Wilson {100 * low:.1f}–{100 * high:.1f} %)   "
        f"[{time.perf_counter() - start:.0f} s]",
        flush=True,
    )
    return times


def _analyse_position(args: tuple[bytes, list[Move], int]) -> float:
    seed, log, upto = args
    match = Match.new(seed, 0)
    round_moves: list[Move] = []
    for move in log[:upto]:
        number = match.round_number
        match = match.apply(move)
        round_moves = [] if match.round_number != number else [*round_moves, move]
    seat = match.to_move
    assert seat is not None
    start = time.perf_counter()
    info = information(observe(match, Viewer.seat(seat)), round_moves)
    from pbem.ai import choose

    choose(info, "normal", upto)
    return time.perf_counter() - start


def analysis(pool, moves: int) -> None:
    """Search every position of a ``moves``-move game (greedy against greedy, the rounds
    strung together) at "normal", from the mover's information, as an analysis would."""
    rnd = random.Random(150)
    log: list[Move] = []
    while len(log) < moves:
        match = Match.new(rnd.randbytes(32), 0)
        log = []
        while not match.is_over and len(log) < moves:
            move = (
                _random(match, match.to_move or 0, log, rnd)
                if rnd.random() < 0.3
                else (greedy_move(match.round, match.legal_moves()))
            )
            log.append(move)
            match = match.apply(move)
        seed = match.seed
    start = time.perf_counter()
    times = pool.map(_analyse_position, [(seed, log, i) for i in range(len(log))], chunksize=4)
    wall = time.perf_counter() - start
    print(
        f"analysis of a {len(log)}-move match at normal: {wall:.1f} s wall with "
        f"{pool._processes} workers ({sum(times):.1f} s of search, "
        f"median {statistics.median(times):.2f} s, max {max(times):.2f} s a position)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=200, help="per duel (even)")
    parser.add_argument("--strong-matches", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--duels", default="random,greedy,strong,analysis")
    args = parser.parse_args()
    duels = args.duels.split(",")
    with multiprocessing.Pool(args.workers) as pool:
        times: list[float] = []
        if "random" in duels:
            times += duel(pool, "normal", "random", args.matches)
        if "greedy" in duels:
            times += duel(pool, "normal", "greedy", args.matches)
        if times:
            print(
                f"normal, seconds per move: median {statistics.median(times):.3f}, "
                f"mean {statistics.fmean(times):.3f}, max {max(times):.3f} "
                f"({len(times)} moves, {args.workers} matches at once)"
            )
        if "strong" in duels:
            duel(pool, "strong", "normal", args.strong_matches or args.matches)
        if "analysis" in duels:
            analysis(pool, 150)


if __name__ == "__main__":
    main()
