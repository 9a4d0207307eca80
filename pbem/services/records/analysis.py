"""The analysis of finished games: judged in the background, shown with the replay.

Never while a game runs, to anyone: a correspondence game is played without the
engine's help, so a running game has no analysis at all, not even a hidden one. Once a
game is finished the scheduler's ``analyse`` job (woken by the move that ends it) judges
its moves with a process per core (``Config.analysis_workers``), up to
``Config.analysis_moves`` a run, and stores them as they come, a few at a time: the
replay shows the first within seconds, a crash loses at most a few, and the next run
goes on where the stored progress says. Each move is judged from its mover's
information only (``pbem.ai.analysis``).

The verdicts live in their own tables (``store/analyses.py``), never in the log or the
record: they are the computer's opinion, and ``pbem analyse`` throws them away and
computes them again. Two workers on the same game collide on a key; the loser's slice
is dropped (``AnalysisRace``) and the winner's kept.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from ... import engine as jaipur
from ...ai.analysis import MARKS, VERSION, Verdict, judge_all, pool, tasks
from ...i18n import lazy_gettext as _l
from ...store import analyses as rows
from ...store.models import Game
from ..core.access import Client
from ..core.env import Env
from ..core.errors import NotAllowed
from ..core.lookup import game_row, log_rows, use_seat
from ..core.status import GameStatus
from .replay_frames import Replay, from_game

log = logging.getLogger(__name__)

#: The labels, mildest first, as pages count them.
LABELS = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True, slots=True)
class Judged:
    """One logged move as judged (``before``/``after`` are the mover's chances, 0–1, to
    win the match with the best move found and with the move played)."""

    n: int
    seat: int
    before: float | None
    after: float | None
    best: str | None
    drop: float | None
    label: str | None

    @property
    def mark(self) -> str:
        return MARKS.get(self.label or "", "")

    def chance_of(self, seat: int) -> float | None:
        """``seat``'s chance after this move: the mover's own figure, or for the other seat
        what it leaves (a graph of one player's chance, which does not flip with the mover)."""
        if self.after is None:
            return None
        return self.after if seat == self.seat else 1 - self.after

    @property
    def better(self) -> bool:
        """Whether a better move than the one played was found (it is then named)."""
        return bool(self.drop) and self.best is not None


@dataclass(frozen=True, slots=True)
class Shown:
    """A game's analysis as pages and the API show it: done, or how far it has got."""

    status: str  # "waiting" (not begun), "running", "done"
    progress: int
    total: int
    version: int | None
    moves: dict[int, Judged] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.status == rows.DONE

    def counts(self, seat: int) -> dict[str, int]:
        """How many of each label ``seat``'s moves earned."""
        found = Counter(j.label for j in self.moves.values() if j.seat == seat and j.label)
        return {label: found[label] for label in LABELS}

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "progress": self.progress,
            "total": self.total,
            "version": self.version,
            "counts": {str(seat): self.counts(seat) for seat in (0, 1)},
            "moves": [
                {
                    "n": j.n,
                    "seat": j.seat,
                    "before": j.before,
                    "after": j.after,
                    "best": j.best,
                    "drop": j.drop,
                    "label": j.label,
                    "mark": j.mark,
                }
                for j in sorted(self.moves.values(), key=lambda j: j.n)
            ],
        }


@dataclass(frozen=True, slots=True)
class ChanceRound:
    """One round of the win-chance graph: the judged turns of the round in order, drawn as
    ``seat``'s chance (``Judged.chance_of``)."""

    number: int
    seat: int
    first: int  # the frame before the round's first move (its deal)
    last: int
    points: tuple[Judged, ...]


def chance_rounds(analysis: Shown, steps: Sequence[Any], seat: int) -> list[ChanceRound]:
    """The graph's rounds of ``seat``'s chance, from the replay's steps (each has ``n`` and
    ``round``)."""
    rounds: dict[int, list[Any]] = {}
    for step in steps:
        rounds.setdefault(step.round, []).append(step)
    out = []
    for number, in_round in sorted(rounds.items()):
        points = tuple(
            analysis.moves[s.n]
            for s in in_round
            if s.n in analysis.moves and analysis.moves[s.n].after is not None
        )
        out.append(ChanceRound(number, seat, in_round[0].n - 1, in_round[-1].n, points))
    return out


def shown(session: Session, game: Game) -> Shown | None:
    """The analysis of ``game`` as stored; ``None`` while the game runs (nothing is shown
    then, not even that an analysis will come)."""
    if game.status != GameStatus.FINISHED:
        return None
    row = rows.of_game(session, game.id)
    if row is None:
        return Shown("waiting", 0, 0, None)
    judged = {
        m.n: Judged(m.n, m.seat, m.before, m.after, m.best, m.drop, m.label)
        for m in rows.judged(session, game.id)
    }
    return Shown(row.status, row.progress, row.total, row.version, judged)


#: The refusal of an analysis while the game runs, the same to everyone.
RUNNING = _l("A game is analysed only once it is over: it is played without the engine's help.")


def public_analysis(env: Env, public_id: str) -> Shown:
    """A finished game's analysis for anyone (``GET /api/games/<id>/analysis``)."""
    with env.db.read() as session:
        game = game_row(session, public_id)
        result = shown(session, game)
    if result is None:
        raise NotAllowed(RUNNING)
    return result


def seat_analysis(env: Env, token: str, client: Client) -> Shown:
    """The same through a seat's link (``GET /api/seat/analysis``), with its access-log line;
    refused while the game runs, to its own players too."""
    with env.db.write() as session:
        game, _seat, _rows = use_seat(env, session, token, "api-analysis", client)
        result = shown(session, game)
    if result is None:
        raise NotAllowed(RUNNING)
    return result


# ------------------------------------------------------------ computing it


@dataclass
class AnalyseReport:
    games: int = 0
    moves: int = 0
    races: int = 0
    failed: int = 0  # games whose slice failed (logged with the error)

    def __bool__(self) -> bool:
        return bool(self.moves or self.races or self.failed)

    def __str__(self) -> str:
        failed = f", {self.failed} failed" if self.failed else ""
        return f"{self.moves} moves of {self.games} games analysed, {self.races} races lost{failed}"


#: Judged moves stored together (but the first of a game alone): the replay shows them
#: this soon, and a crash loses at most these (each a few tenths of a second of a core).
STORE_EVERY = 4


def analyse(env: Env, budget: int | None = None) -> AnalyseReport:
    """The scheduler's job: judge up to ``budget`` moves (``Config.analysis_moves``) of the
    finished games waiting for their analysis, oldest first; then, with the time left
    over, those analysed by an older method (``VERSION``), so that a better method
    reaches the old games by itself. The moves are judged by ``Config.analysis_workers``
    processes side by side (the same verdicts as one: ``pbem.ai.analysis.judge_all``),
    started only when a game waits."""
    left = env.config.analysis_moves if budget is None else budget
    report = AnalyseReport()
    tried: set[int] = set()
    executor: Executor | None = None
    with ExitStack() as stack:
        while left > 0:
            with env.db.read() as session:
                ids = [i for i in rows.waiting(session, len(tried) + 8, VERSION) if i not in tried]
            if not ids:
                break
            if executor is None:
                executor = stack.enter_context(pool(env.config.analysis_workers))
            for game_id in ids:
                tried.add(game_id)
                try:
                    done = analyse_slice(env, game_id, left, report, executor)
                except Exception:  # one game that fails must not keep the others waiting
                    log.exception("the analysis of game %s failed", game_id)
                    report.failed += 1
                    continue
                left -= done
                if left <= 0:
                    break
    return report


def analyse_slice(
    env: Env,
    game_id: int,
    budget: int,
    report: AnalyseReport | None = None,
    executor: Executor | None = None,
) -> int:
    """Judge the next ``budget`` moves of one finished game, stored ``STORE_EVERY`` at a
    time as they come; how many were stored."""
    report = report if report is not None else AnalyseReport()
    with env.db.read() as session:
        game = session.get(Game, game_id)
        if game is None or game.status != GameStatus.FINISHED or game.integrity_error:
            return 0
        replay = from_game(game, log_rows(session, game))
        row = rows.of_game(session, game_id)
        progress = row.progress if row is not None else 0
        version = row.version if row is not None else None
    if replay.broken or not replay.finished:
        return 0  # a log that stopped verifying is flagged, and never judged
    if version is not None and version > VERSION:
        return 0  # made by a newer method: the newer workers' to finish, never mixed
    total = len(replay.moves)
    if version is None or version < VERSION:
        # not begun, or by an older method: its verdicts are dropped, not mixed with new
        try:
            with rows.racing(), env.db.write() as session:
                if version is None:
                    rows.start(session, game_id, total, VERSION, env.clock.now())
                else:
                    rows.restart(session, game_id, version, total, VERSION, env.clock.now())
        except rows.AnalysisRace:
            report.races += 1
            return 0
        progress = 0
    return judge_and_store(
        env,
        replay,
        progress,
        budget,
        report,
        executor,
        lambda session, batch, start: rows.store(session, game_id, batch, start, env.clock.now()),
    )


def judge_and_store(
    env: Env,
    replay: Replay,
    progress: int,
    budget: int,
    report: AnalyseReport,
    executor: Executor | None,
    store: Callable[[Session, list[dict[str, Any]], int], None],
) -> int:
    """Judge moves ``progress + 1`` on (at most ``budget``) and ``store`` the verdicts as
    they come: the first of an analysis alone (the page shows it at once), then
    ``STORE_EVERY`` at a time; a racing worker that stored them first ends the slice.
    A game's log and an uploaded file (``record_analysis.py``) alike."""
    stop = min(len(replay.moves), progress + budget)
    moves = [jaipur.parse_move(m.move) for m in replay.moves]
    indices = range(progress, stop)
    verdicts = judge_all(tasks(replay.states, moves, indices), executor)
    stored, batch = 0, []
    for i, verdict in zip(indices, verdicts, strict=True):
        batch.append(judged_row(replay, i, verdict))
        if len(batch) < STORE_EVERY and i + 1 < stop and stored + progress > 0:
            continue  # the first verdict is stored alone: the page shows it at once
        try:
            with rows.racing(), env.db.write() as session:
                store(session, batch, progress + stored)
        except rows.AnalysisRace:
            report.races += 1
            break
        stored += len(batch)
        batch = []
    if stored:
        report.games += 1
        report.moves += stored
    return stored


def judged_row(replay: Replay, i: int, verdict: Verdict | None) -> dict[str, Any]:
    """Move ``i + 1`` of the log as judged, as the recorder stores it."""
    entry = replay.moves[i]
    before = replay.states[i]
    seat = entry.seat if entry.seat is not None else before.to_move
    if verdict is None:  # resign, timeout, claim: not a turn of the card game
        empty = dict(before=None, after=None, best=None, drop=None, label=None)
        return dict(n=entry.n, seat=seat or 0, **empty)
    return dict(
        n=entry.n,
        seat=verdict.seat,
        before=verdict.before,
        after=verdict.after,
        best=str(verdict.best),
        drop=verdict.drop,
        label=verdict.label,
    )


class StillRunning(NotAllowed):
    """``pbem analyse`` was asked for a game that has not ended."""


def recompute(
    env: Env,
    public_ids: Iterable[str] | None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[str]:
    """Throw away and compute again the analysis of each game (every finished game with
    ``None``); refuses, before touching any, a game that still runs. The games done."""
    with env.db.read() as session:
        if public_ids is None:
            ids = [(g, session.get(Game, g)) for g in rows.finished_ids(session)]
            games = [(game_id, game.public_id) for game_id, game in ids if game is not None]
        else:
            games = []
            for public_id in public_ids:
                game = game_row(session, public_id)
                if game.status != GameStatus.FINISHED:
                    raise StillRunning(
                        _l(
                            "Game %(game)s is still running: it is analysed once it is over.",
                            game=public_id,
                        )
                    )
                games.append((game.id, game.public_id))
    done: list[str] = []
    for game_id, public_id in games:
        with env.db.write() as session:
            rows.forget(session, game_id)
        while True:
            step = analyse_slice(env, game_id, env.config.analysis_moves)
            with env.db.read() as session:
                row = rows.of_game(session, game_id)
                state = (row.progress, row.total, row.status) if row is not None else None
            if state is None:  # its log stopped verifying: flagged, never judged
                break
            if progress is not None:
                progress(public_id, state[0], state[1])
            if state[2] == rows.DONE:
                done.append(public_id)
                break
            if step == 0:  # another worker holds it: it finishes the game
                break
    return done
