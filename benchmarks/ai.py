"""Computer player benchmark: strength against random, greedy and itself, and its speed.

Run: ``.venv/bin/python -m benchmarks.ai [--matches N] [--workers 2] [--duels a:b,...]``.
Prints figures; asserts nothing. Each pair of matches shares a seed with the seats
swapped. Goals: "normal" wins ≥ 99 % against random and ≥ 75 % against greedy (the most
valuable sale if any, else the most valuable take), "easy" loses sometimes to greedy (a
beginner can beat it), each level beats the one below, ≤ 2 s per move of "normal" on a
2-core machine,
and the analysis of a 150-move match (``pbem.ai.analysis``: every move judged from its
mover's information, in one process; the scheduler's job runs one per core, which
``benchmarks/analysis.py`` measures) in ≤ 60 s.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable

from pbem.ai import play
from pbem.ai.analysis import judge_move, round_moves_before
from pbem.ai.policies import greedy_move
from pbem.engine import Match, Move

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


Timing = tuple[float, float]  # one move's wall-clock and CPU seconds


def play_match(a: str, b: str, seed: bytes, a_seat: int, rnd_seed: int) -> tuple[int, list[Timing]]:
    """Play ``a`` (in ``a_seat``) against ``b``; 1 if ``a`` wins, and ``a``'s wall-clock and
    CPU seconds per move (the CPU figure holds when other work shares the cores)."""
    rnd = random.Random(rnd_seed)
    match = Match.new(seed, 0)
    names = {a_seat: a, 1 - a_seat: b}
    round_moves: list[Move] = []
    times: list[Timing] = []
    while not match.is_over:
        seat = match.to_move
        assert seat is not None
        start, cpu = time.perf_counter(), time.process_time()
        move = PLAYERS[names[seat]](match, seat, round_moves, rnd)
        if seat == a_seat:
            times.append((time.perf_counter() - start, time.process_time() - cpu))
        number = match.round_number
        match = match.apply(move)
        round_moves = [] if match.round_number != number else [*round_moves, move]
    return int(match.winner == a_seat), times


def _job(args: tuple[str, str, int]) -> tuple[int, list[Timing]]:
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


def duel(pool, a: str, b: str, matches: int, every: int = 20) -> list[Timing]:
    """``matches`` matches of ``a`` against ``b``; a running tally every ``every`` pairs'
    worth, so that a long duel cut short still tells what it had found."""
    start = time.perf_counter()
    results: list[tuple[int, list[Timing]]] = []
    for result in pool.imap(_job, [(a, b, i) for i in range(matches)], chunksize=1):
        results.append(result)
        done = len(results)
        if done % every == 0 and done < matches:
            won = sum(w for w, _ in results)
            low, high = wilson(won, done)
            print(
                f"  … {a} vs {b}: {won}/{done} (Wilson {100 * low:.1f}–{100 * high:.1f} %) "
                f"[{time.perf_counter() - start:.0f} s]",
                flush=True,
            )
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


def _greedy_match(moves: int) -> tuple[list[Match], list[Move]]:
    """A match of about ``moves`` moves, greedy with some random moves (as people play)."""
    rnd = random.Random(150)
    while True:
        match = Match.new(rnd.randbytes(32), 0)
        states, log = [match], []
        while not match.is_over:
            legal = match.legal_moves()
            move = greedy_move(match.round, legal) if rnd.random() < 0.7 else rnd.choice(legal)
            log.append(move)
            match = match.apply(move)
            states.append(match)
        if abs(len(log) - moves) <= 10:
            return states, log


def analysis(moves: int, noise_every: int = 3, salts: int = 2) -> None:
    """The analysis of a ``moves``-move match in one process (``pbem.ai.analysis.judge_move``
    for every move; the scheduler's job spreads them over a process per core), then its
    noise: every ``noise_every``-th move judged again with ``salts`` other dice."""
    states, log = _greedy_match(moves)
    times: list[float] = []
    verdicts = []
    start, cpu = time.perf_counter(), time.process_time()
    for i, move in enumerate(log):
        t = time.process_time()  # CPU: the figure a shared machine does not inflate
        verdicts.append(judge_move(states[i], move, round_moves_before(states, log, i)))
        times.append(time.process_time() - t)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    labels = statistics_of(v.label for v in verdicts if v is not None)
    print(
        f"analysis of a {len(log)}-move match, one process: {wall:.1f} s ({cpu:.1f} s CPU) "
        f"(CPU a move: median {statistics.median(times):.2f} s, max {max(times):.2f} s); {labels}",
        flush=True,
    )
    after_spread, drop_spread, same_label, same_best, count = [], [], 0, 0, 0
    for i in range(0, len(log), noise_every):
        first = verdicts[i]
        if first is None:
            continue
        again = [
            judge_move(states[i], log[i], round_moves_before(states, log, i), salt=s)
            for s in range(1, salts + 1)
        ]
        runs = [first, *(v for v in again if v is not None)]
        after_spread.append(100 * (max(v.after for v in runs) - min(v.after for v in runs)))
        drop_spread.append(max(v.drop for v in runs) - min(v.drop for v in runs))
        same_label += all(v.label == first.label for v in runs)
        same_best += all(v.best == first.best for v in runs)
        count += 1
    print(
        f"noise over {count} moves, {salts + 1} runs each with other dice: chance after the "
        f"move varies by median {statistics.median(after_spread):.1f}, max "
        f"{max(after_spread):.1f} points; the drop by median {statistics.median(drop_spread):.1f}"
        f", max {max(drop_spread):.1f} points; same label {100 * same_label / count:.0f} %, "
        f"same best move {100 * same_best / count:.0f} % of moves"
    )


def statistics_of(labels: Iterable[str | None]) -> str:
    found = Counter(label or "fair" for label in labels)
    return ", ".join(f"{found[k]} {k}" for k in ("fair", "inaccuracy", "mistake", "blunder"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=200, help="per duel (even)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--duels",
        default="normal:random,normal:greedy,easy:greedy,normal:easy,strong:normal,analysis",
        help="comma-separated duels a:b (a's wins counted), and 'analysis'",
    )
    args = parser.parse_args()
    duels = args.duels.split(",")
    with multiprocessing.Pool(args.workers) as pool:
        for pair in duels:
            if ":" not in pair:
                continue
            a, b = pair.split(":")
            times = duel(pool, a, b, args.matches)
            for kind, column in (("wall-clock", 0), ("CPU", 1)):
                seconds = [t[column] for t in times]
                print(
                    f"  {a}, {kind} seconds per move: median {statistics.median(seconds):.3f}, "
                    f"mean {statistics.fmean(seconds):.3f}, max {max(seconds):.3f} "
                    f"({len(seconds)} moves, {args.workers} matches at once)",
                    flush=True,
                )
    if "analysis" in duels:
        analysis(150)


if __name__ == "__main__":
    main()
