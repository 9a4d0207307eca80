"""Engine benchmark: validated replay, verify, legal-move generation, previews and
narrations, random matches.

Run: ``.venv/bin/python -m benchmarks.engine [--matches N]``. Prints figures; asserts nothing.
Goals: a validated replay at 12 µs per move or less on a 2-core machine, and a whole
``verify`` (chain, times, keyed digests, result) at 0.15 or less of the naive replay
that lists every legal move before each move.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time

from pbem.engine import Match, load_record, replay_moves, verify
from pbem.engine.explain import narrate, preview
from pbem.engine.record import LoggedMove, Record
from tests.engine.records import play_record


def _best(fn, repeat: int) -> float:
    """The best of ``repeat`` timings of ``fn()`` in seconds (least disturbed by the machine)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    rnd = random.Random(2026)
    records: list[Record] = [
        play_record(rnd.randbytes(32), rnd.randrange(2**32)) for _ in range(args.matches)
    ]
    moves = sum(len(r.moves) for r in records)
    seeds = [(r.seed_bytes, r.moves) for r in records]
    lengths = [len(r.moves) for r in records]
    print(
        f"{args.matches} random matches, {moves} moves "
        f"(median {statistics.median(lengths):.0f}, max {max(lengths)} moves per match)"
    )

    def replay_all() -> None:
        for seed, log in seeds:
            replay_moves(seed, log)

    t = _best(replay_all, args.repeat)
    print(
        f"validated replay:   {t / moves * 1e6:6.2f} µs/move   "
        f"{t / args.matches * 1e3:6.3f} ms/match"
    )

    bare = [(seed, [LoggedMove(m.n, m.move) for m in log]) for seed, log in seeds]

    def replay_cold() -> None:
        from pbem.engine.record import parse_logged

        parse_logged.cache_clear()
        for seed, log in bare:
            replay_moves(seed, log)

    t = _best(replay_cold, args.repeat)
    print(f"  (cold parse cache){t / moves * 1e6:6.2f} µs/move")

    def naive_all() -> None:
        """The reference an auditor writes first: every legal move listed before each move."""
        for seed, log in seeds:
            state = Match.new(seed)
            for m in log:
                move = _parse(m.move)
                if move not in state.legal_moves():
                    raise AssertionError(f"move {m.n} is not legal")
                state = state.apply(move, m.seat)

    naive = _best(naive_all, max(1, args.repeat // 2))
    print(f"naive replay:       {naive / moves * 1e6:6.2f} µs/move   (legal moves listed first)")

    def verify_all() -> None:
        for r in records:
            assert verify(r).ok

    t = _best(verify_all, max(1, args.repeat // 2))
    print(
        f"full verify:        {t / moves * 1e6:6.2f} µs/move   "
        f"{t / args.matches * 1e3:6.3f} ms/match  (chain, times, v2 keyed digests, result)"
        f"  = {t / naive:.2f} of the naive replay (goal: 0.15 or less)"
    )

    bare_records = [
        dataclasses.replace(r, moves=tuple(dataclasses.replace(m, position=None) for m in r.moves))
        for r in records
    ]

    def verify_bare() -> None:
        for r in bare_records:
            assert verify(r).ok

    t = _best(verify_bare, max(1, args.repeat // 2))
    print(f"verify, no digests: {t / moves * 1e6:6.2f} µs/move   (a record that carries none)")

    texts = [r.dumps() for r in records]

    def load_all() -> None:
        for text in texts:
            load_record(text)

    t = _best(load_all, max(1, args.repeat // 2))
    print(f"strict load:        {t / moves * 1e6:6.2f} µs/move   (JSON, duplicate keys, bounds)")

    positions: list[Match] = []
    for seed, log in seeds[:50]:
        state = Match.new(seed)
        for m in log:
            state = state.apply(_parse(m.move))
            if not state.is_over:
                positions.append(state)
    counts = [len(p.legal_moves()) for p in positions]

    def generate() -> None:
        for p in positions:
            p.legal_moves()

    t = _best(generate, args.repeat)
    print(
        f"legal moves:        {t / len(positions) * 1e6:6.2f} µs/position   "
        f"(mean {statistics.mean(counts):.1f}, max {max(counts)} moves)"
    )

    # a preview is worked out in worlds sampled from the mover's information, and a
    # narration from the public's observations (pbem/engine/explain.py)
    sample = positions[:: max(1, len(positions) // 400)]
    asked = [(p, move) for p in sample for move in p.legal_moves()]

    def previews() -> None:
        for p, move in asked:
            preview(p, move, p.round.to_move)

    def narrations() -> None:
        for p, move in asked:
            narrate(p, move, p.round.to_move, "A")

    for label, fn in (("preview:", previews), ("narration:", narrations)):
        t = _best(fn, max(1, args.repeat // 2))
        print(f"{label:<20}{t / len(asked) * 1e6:6.2f} µs/move   ({len(asked)} moves)")

    def random_matches() -> int:
        r = random.Random(1)
        n = 0
        for _ in range(50):
            state = Match.new(r.randbytes(32))
            while not state.is_over:
                state = state.apply(r.choice(state.legal_moves()))
            n += 1
        return n

    t = _best(random_matches, max(1, args.repeat // 2))
    print(f"random matches:     {50 / t:6.1f} matches/s (legal-move generation + apply)")


def _parse(text: str):
    from pbem.engine.record import parse_logged

    return parse_logged(text)


if __name__ == "__main__":
    main()
