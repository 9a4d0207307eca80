"""The analysis of an uploaded record file (``/r/<digest>``), on demand.

A record file is a finished game the server may not hold; its analysis is asked for
with a button on its replay (rate-limited per client: each costs the scheduler seconds
of every core), kept by the file's SHA-256 and judged by the scheduler's ``analyse`` job
as a game's is: each move from its mover's information only (``pbem.ai.analysis``), a
few stored at a time, shown like a game's analysis (``analysis.Shown``). Only a file
that passes verification and ends with its game is judged: a verdict on a doctored or
unfinished record would lend it the computer's word.
"""

from __future__ import annotations

import logging
from concurrent.futures import Executor
from contextlib import ExitStack
from datetime import timedelta

from ...ai.analysis import VERSION, pool
from ...i18n import lazy_gettext as _l
from ...store import record_analyses as rows
from ...store import wakeup
from ...store.analyses import AnalysisRace
from ..core import limits
from ..core.access import Client
from ..core.env import Env
from ..core.errors import InvalidInput
from .analysis import AnalyseReport, Judged, Shown, judge_and_store
from .uploads import RecordFile, read_file

log = logging.getLogger(__name__)

#: The rate limit on asking (``Config.limits``).
LIMIT = "record_analyses_per_client"


def analysable(opened: RecordFile) -> bool:
    """Whether the file may be analysed: it passes verification and its game is over."""
    return opened.flag is None and opened.replay.finished and not opened.replay.broken


def shown(env: Env, digest: str) -> Shown | None:
    """The file's analysis as stored; ``None`` if nobody asked for it."""
    with env.db.read() as session:
        row = rows.of_record(session, digest)
        if row is None:
            return None
        judged = {
            m["n"]: Judged(
                m["n"], m["seat"], m["before"], m["after"], m["best"], m["drop"], m["label"]
            )
            for m in rows.verdicts(row)
        }
        return Shown(row.status, row.progress, row.total, row.version, judged)


def ask(env: Env, digest: str, opened: RecordFile, client: Client) -> bool:
    """Ask for the analysis of the kept file ``digest``; False if it was asked already
    (which counts against no limit). The scheduler is woken to begin at once."""
    if not analysable(opened):
        raise InvalidInput(
            _l("Only a record file that passes verification and ends with its game is analysed.")
        )
    if shown(env, digest) is not None:
        return False
    wanted = limits.check(
        env,
        LIMIT,
        limits.network(client.ip),
        _l("Too many analyses asked for from here; try again later."),
    )
    with env.db.write() as session:
        new = rows.ask(
            session, digest, opened.data, len(opened.replay.moves), VERSION, env.clock.now()
        )
        if new:
            wakeup.game_over(session)  # the same wake-up as a game's end: at once
    if new:
        limits.count(env, wanted)
    return new


def analyse(env: Env, budget: int | None = None) -> AnalyseReport:
    """The scheduler's job, after the games': judge up to ``budget`` moves of the files
    waiting for their analysis, first asked first; drop those asked for longer ago than
    uploads are kept (``Config.upload_days``)."""
    left = env.config.analysis_moves if budget is None else budget
    report = AnalyseReport()
    expired = env.clock.now() - timedelta(days=env.config.upload_days)
    with env.db.read() as session:
        stale = rows.any_before(session, expired)
    if stale:  # a write only then: the job runs at every wake-up
        with env.db.write() as session:
            rows.forget_before(session, expired)
    tried: set[str] = set()
    executor: Executor | None = None
    with ExitStack() as stack:
        while left > 0:
            with env.db.read() as session:
                digests = [
                    d for d in rows.waiting(session, len(tried) + 8, VERSION) if d not in tried
                ]
            if not digests:
                break
            if executor is None:
                executor = stack.enter_context(pool(env.config.analysis_workers))
            for digest in digests:
                tried.add(digest)
                try:
                    left -= analyse_slice(env, digest, left, report, executor)
                except Exception:  # one file that fails must not keep the others waiting
                    log.exception("the analysis of record %s failed", digest)
                    report.failed += 1
                if left <= 0:
                    break
    return report


def analyse_slice(
    env: Env,
    digest: str,
    budget: int,
    report: AnalyseReport,
    executor: Executor | None = None,
) -> int:
    """Judge the next ``budget`` moves of one file, stored ``STORE_EVERY`` at a time."""
    with env.db.read() as session:
        row = rows.of_record(session, digest)
        if row is None:
            return 0
        data, progress, version = row.record, row.progress, row.version
    if version > VERSION:
        return 0  # a newer method's: the newer workers' to finish
    if version < VERSION:
        try:
            with env.db.write() as session:
                rows.restart(session, digest, version, VERSION)
        except AnalysisRace:
            report.races += 1
            return 0
        progress = 0
    replay = read_file(data).replay
    return judge_and_store(
        env,
        replay,
        progress,
        budget,
        report,
        executor,
        lambda session, batch, start: rows.store(session, digest, batch, start, env.clock.now()),
    )
