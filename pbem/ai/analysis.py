"""The analysis of a finished game: each move judged from its mover's information only.

For a move, the mover's information (``Information``: its view before the move and the
public moves of the round) is all that is used, never the hidden cards of the game as it
was played: a verdict says what the mover could have known, not what luck later showed.

1. The search (``ranked``, the loop behind ``choose``) names the move it would play, and
   its runner-up.
2. Those candidates and the move played are each played out on the same ``SAMPLES``
   hidden worlds drawn consistently with the information (common random numbers: the
   same deal and the same rollout dice for every candidate, so their difference is not
   drowned by the deals' own noise). The share of won rounds (a tied round counts ½) is
   the mover's chance ``p`` to win the round after that move.
3. The round's chance becomes the chance to win the match from the seals (best of three
   rounds, the later rounds taken as even): at 0–0 ``¼ + ½p``, one seal up ``½ + ½p``,
   one seal down ``½p``, one seal each ``p``.
4. ``before`` is the best of the candidates, ``after`` the move played; the drop
   ``before − after`` in percentage points marks the move (``LABELS``).

Everything is seeded by a hash of the mover's information and the move, so the same game
analysed again (on any machine) gives the same figures, and two games that differ only in
cards the mover could not see give the same verdict. docs/analysis.md explains the
thresholds and the noise.
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

from pbem.engine.information import Dealer, Information, information
from pbem.engine.match import Match
from pbem.engine.moves import Exchange, Move, Sell, TakeCamels, TakeGood
from pbem.engine.round import Round
from pbem.engine.views import Viewer, observe

from .policies import play_out
from .search import ranked

#: Bumped when the method changes: stored analyses say which version made them.
VERSION = 2
#: Search iterations to name the best move: the "normal" level's, so that the analysis
#: names the move the computer would play (tests/ai/test_analysis.py holds them equal).
ITERATIONS = 800
#: Hidden worlds each candidate move is played out on.
SAMPLES = 150
#: The search's best moves evaluated beside the move played.
CANDIDATES = 2
#: Drops (percentage points of the chance to win the match) that mark a move, worst first.
LABELS: tuple[tuple[str, float], ...] = (("blunder", 30.0), ("mistake", 20.0), ("inaccuracy", 10.0))
#: How each label is marked in a move list (as in chess annotation).
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
#: The moves of the card game; resign, timeout and claim are not judged.
TURNS = (TakeGood, TakeCamels, Exchange, Sell)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One move judged: the mover's chances to win the match (0–1) with the best move found
    and with the move played, the best move, the drop in points and the label, if any."""

    seat: int
    before: float
    after: float
    best: Move
    drop: float
    label: str | None

    @property
    def mark(self) -> str:
        return MARKS.get(self.label or "", "")


def label_of(drop: float) -> str | None:
    """The label a drop of ``drop`` percentage points earns (``None``: a fair move)."""
    for name, threshold in LABELS:
        if drop >= threshold:
            return name
    return None


def match_chance(round_chance: float, mine: int, theirs: int) -> float:
    """The chance to win a best-of-three match from the chance to win this round, by the
    seals each side holds; the rounds after this one are taken as even."""
    if mine >= 2 or theirs >= 2:
        return 1.0 if mine >= 2 else 0.0
    if mine == theirs:
        return round_chance if mine == 1 else 0.25 + 0.5 * round_chance
    return 0.5 + 0.5 * round_chance if mine > theirs else 0.5 * round_chance


def seed_of(info: Information, move: Move, salt: int = 0) -> int:
    """The dice of one move's analysis: the mover's information and the move, nothing else
    (``salt``, only to measure how much the verdicts owe to the dice: docs/analysis.md)."""
    # a str seeds ``random`` through SHA-512 of its text: stable across runs and machines
    extra = f"|{salt}" if salt else ""
    return random.Random(f"{VERSION}|{info!r}|{move}{extra}").getrandbits(64)


def _won(r: Round, seat: int) -> float:
    seal = r.result().seal
    return 0.5 if seal is None else float(seal == seat)


def round_chances(info: Information, moves: Sequence[Move], samples: int, seed: int) -> list[float]:
    """Each move's chance (0–1) to win the round for the mover, played out on the same
    ``samples`` worlds with the same rollout dice."""
    totals = [0.0] * len(moves)
    dealer = Dealer(info)
    for k in range(samples):
        world = dealer.deal(random.Random(seed * 1_000_003 + k))
        for i, move in enumerate(moves):
            state = play_out(world.apply(move), random.Random(seed * 7_919 + k))
            totals[i] += _won(state, info.seat)
    return [t / samples for t in totals]


def judge(
    info: Information,
    played: Move,
    *,
    iterations: int = ITERATIONS,
    samples: int = SAMPLES,
    salt: int = 0,
) -> Verdict:
    """The verdict on ``played`` from ``info`` (the mover's information before it)."""
    seed = seed_of(info, played, salt)
    seat = info.seat
    stats = ranked(info, iterations, random.Random(seed))
    candidates = [s.move for s in stats[:CANDIDATES]]
    if played not in candidates:
        candidates.append(played)
    mine, theirs = info.view.table.seals[seat], info.view.table.seals[1 - seat]
    chances = [
        match_chance(p, mine, theirs) for p in round_chances(info, candidates, samples, seed)
    ]
    best_i = max(range(len(candidates)), key=lambda i: (chances[i], candidates[i] == played))
    after = chances[candidates.index(played)]
    before = chances[best_i]
    drop = round(100 * (before - after), 1)
    return Verdict(seat, before, after, candidates[best_i], drop, label_of(drop))


def judge_move(
    before: Match, move: Move, round_moves: Sequence[Move] = (), salt: int = 0
) -> Verdict | None:
    """``judge`` for ``move`` played in ``before``, seen by its mover through the observer
    (nothing hidden passes); ``None`` for a move that is not a turn of the card game."""
    seat = before.to_move
    if not isinstance(move, TURNS) or seat is None:
        return None
    info = information(observe(before, Viewer.seat(seat)), round_moves)
    return judge(info, move, salt=salt)


def round_moves_before(states: Sequence[Match], moves: Sequence[Move], i: int) -> list[Move]:
    """The public moves of the round in progress before ``moves[i]`` (``states[i]`` is the
    match before it, ``states[0]`` the deal)."""
    number = states[i].round_number
    out: list[Move] = []
    k = i - 1
    while k >= 0 and states[k].round_number == number:
        out.append(moves[k])
        k -= 1
    out.reverse()
    return out


#: One move to judge: the match before it, the move, the round's public moves before it.
Task = tuple[Match, Move, Sequence[Move]]


def tasks(states: Sequence[Match], moves: Sequence[Move], indices: range) -> list[Task]:
    """The moves ``indices`` of a match to judge (``states[i]``: the match before ``moves[i]``)."""
    return [(states[i], moves[i], round_moves_before(states, moves, i)) for i in indices]


def _judge_task(task: Task) -> Verdict | None:
    return judge_move(*task)


@contextmanager
def pool(workers: int) -> Iterator[Executor | None]:
    """Processes to judge moves side by side (``None`` for one worker: judged in this
    process). Forked from a server process that has imported this module already (a
    "forkserver", started the first time and kept): the scheduler that asks runs threads,
    which a plain fork would copy mid-lock, and a fresh interpreter for each pool would
    cost a second or more before the first verdict."""
    if workers <= 1:
        yield None
        return
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    with ProcessPoolExecutor(workers, mp_context=context) as executor:
        yield executor


def judge_all(todo: Sequence[Task], executor: Executor | None = None) -> Iterator[Verdict | None]:
    """Each task's verdict, in order, as soon as it and those before it are judged. A
    verdict owes nothing to the process that made it (its dice are seeded by the mover's
    information and the move), so judging in parallel gives the serial figures."""
    if executor is None:
        yield from map(_judge_task, todo)
    else:
        yield from executor.map(_judge_task, todo)


__all__ = [
    "LABELS",
    "MARKS",
    "VERSION",
    "Verdict",
    "judge",
    "judge_all",
    "judge_move",
    "label_of",
    "match_chance",
    "pool",
    "round_chances",
    "round_moves_before",
    "tasks",
]
