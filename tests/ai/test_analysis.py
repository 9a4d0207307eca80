"""The analysis of a finished game: from the mover's information only, deterministic, and
its figures mean what docs/analysis.md says."""

from __future__ import annotations

import itertools
import random

import pytest

from pbem.ai import choose, information, statistics
from pbem.ai.analysis import (
    LABELS,
    judge,
    judge_move,
    label_of,
    match_chance,
    round_moves_before,
)
from pbem.ai.policies import greedy_move
from pbem.engine import Match, Move, Resign, Viewer, observe

from .test_player import SEED, _twin_decks, _with_round


def _game(seed: int = 3, length: int = 40) -> tuple[list[Match], list[Move]]:
    rnd = random.Random(seed)
    match = Match.new(bytes(range(32)), 0)
    states, moves = [match], []
    while not match.is_over and len(moves) < length:
        legal = match.legal_moves()
        move = greedy_move(match.round, legal) if rnd.random() < 0.7 else rnd.choice(legal)
        moves.append(move)
        match = match.apply(move)
        states.append(match)
    return states, moves


@pytest.mark.parametrize(
    ("p", "mine", "theirs", "expected"),
    [
        (0.5, 0, 0, 0.5),
        (1.0, 0, 0, 0.75),
        (0.0, 0, 0, 0.25),
        (0.6, 1, 0, 0.8),
        (0.6, 0, 1, 0.3),
        (0.6, 1, 1, 0.6),
    ],
)
def test_a_round_chance_becomes_a_match_chance_by_the_seals(
    p: float, mine: int, theirs: int, expected: float
) -> None:
    assert match_chance(p, mine, theirs) == pytest.approx(expected)


def test_the_analysis_searches_as_the_normal_level_plays() -> None:
    from pbem.ai import LEVELS
    from pbem.ai.analysis import ITERATIONS

    assert LEVELS["normal"].iterations == ITERATIONS


def test_labels_by_the_drop() -> None:
    assert [name for name, _ in LABELS] == ["blunder", "mistake", "inaccuracy"]
    assert label_of(0) is None
    assert label_of(9.9) is None
    assert label_of(10) == "inaccuracy"
    assert label_of(19.9) == "inaccuracy"
    assert label_of(20) == "mistake"
    assert label_of(30) == "blunder"
    assert label_of(75) == "blunder"


def test_statistics_rank_the_move_choose_plays_first() -> None:
    states, _ = _game()
    for i in (0, 7, 15):
        seat = states[i].to_move
        assert seat is not None
        info = information(observe(states[i], Viewer.seat(seat)))
        stats = statistics(info, "normal", i)
        assert stats[0].move == choose(info, "normal", i)
        assert all(a.visits >= b.visits for a, b in itertools.pairwise(stats))


def test_round_moves_are_the_public_moves_of_the_round_so_far() -> None:
    rnd = random.Random(8)
    match = Match.new(SEED, 0)
    states, moves = [match], []
    while match.round_number == 1:
        move = greedy_move(match.round, match.legal_moves())
        moves.append(move)
        match = match.apply(move)
        states.append(match)
    move = rnd.choice(match.legal_moves())
    moves.append(move)
    states.append(match.apply(move))
    k = len(moves) - 1
    assert round_moves_before(states, moves, 0) == []
    assert round_moves_before(states, moves, 3) == moves[:3]
    assert round_moves_before(states, moves, k) == []  # the first move of round 2
    assert round_moves_before(states, moves, k - 1) == moves[: k - 1]


def test_a_verdict_is_deterministic_and_consistent() -> None:
    states, moves = _game()
    for i in (2, 11, 23):
        rounds = round_moves_before(states, moves, i)
        a = judge_move(states[i], moves[i], rounds)
        b = judge_move(states[i], moves[i], rounds)
        assert a is not None and a == b
        assert a.seat == states[i].to_move
        assert 0.0 <= a.after <= a.before <= 1.0
        assert a.drop == pytest.approx(100 * (a.before - a.after), abs=0.06)
        assert a.label == label_of(a.drop)
        assert states[i].is_legal(a.best)


def test_the_best_move_played_drops_nothing() -> None:
    states, moves = _game()
    seat = states[4].to_move
    assert seat is not None
    info = information(observe(states[4], Viewer.seat(seat)), moves[:4])
    first = judge(info, moves[4], samples=30)
    best = judge(info, first.best, samples=30)
    assert best.best == first.best
    assert best.drop == 0 and best.label is None and best.after == best.before


def test_resigning_or_a_timeout_is_not_judged() -> None:
    match = Match.new(SEED, 0)
    assert judge_move(match, Resign()) is None


def test_the_analysis_cannot_cheat() -> None:
    """Two deals the mover cannot tell apart give the same verdict on the same move."""
    deck, twin = _twin_decks()
    a, b = _with_round(deck), _with_round(twin)
    assert a.round.hands[1] != b.round.hands[1]
    for move in a.legal_moves()[:3]:
        va, vb = judge_move(a, move), judge_move(b, move)
        assert va == vb


@pytest.mark.slow  # a whole match searched or judged: seconds on its own
def test_a_careless_game_has_marked_moves() -> None:
    """A game played partly at random has moves marked, each with a better move named."""
    states, moves = _game(seed=5, length=60)
    found = False
    for i in range(len(moves)):
        verdicts = judge_move(states[i], moves[i], round_moves_before(states, moves, i))
        if verdicts is not None and verdicts.label is not None:
            found = True
            assert verdicts.best != moves[i]
            break
    assert found


def test_judged_in_parallel_the_verdicts_are_the_serial_ones():
    """A process pool (the scheduler's, one process a core) gives the very verdicts one
    process gives: the dice are the mover's information's and the move's, not a worker's."""
    from pbem.ai.analysis import judge_all, pool, tasks

    states, moves = _game(5, 8)
    todo = tasks(states, moves, range(len(moves)))
    serial = list(judge_all(todo))
    with pool(2) as executor:
        assert executor is not None
        parallel = list(judge_all(todo, executor))
    assert parallel == serial
    assert all(v is not None for v in serial)
