"""``pbem scheduler``: APScheduler runs the jobs in one process of its own.

Never inside web workers (each gunicorn worker would run every job). One scheduler is
active at a time, the holder of the lease (``leadership.py``); the others stand by. The
jobs themselves live in ``services`` and are idempotent, so a restart or an overlap
records nothing twice; what a crash can send twice is said in docs/scaling.md, "Mail".
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

import click
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler

from . import wakeup
from .cli_env import ready_env
from .leadership import Lease, prepare
from .mail.delivery import backend_for
from .services.core import limits
from .services.core.env import Env
from .services.events import rounds
from .services.play import computer
from .services.records import analysis, record_analysis
from .services.scheduled import jobs, retention
from .store.db import DatabaseUnavailable, Fenced

log = logging.getLogger("pbem.scheduler")
#: APScheduler's loggers, which write two lines at INFO for every run of every job.
APSCHEDULER_LOG = "apscheduler"

#: The one line a scheduler logs when it finds it is no longer the active one.
FENCED = "no longer the active scheduler"


def _guarded(
    name: str,
    job: Callable[[], Any],
    lease: Lease | None = None,
    lost: Callable[[Fenced], None] | None = None,
) -> Callable[[], None]:
    def run() -> None:
        try:
            if lease is not None:
                lease.ensure_live()  # woken from a hang after a takeover: run nothing
            result = job()
            if result:  # work done: a line at INFO; an idle tick only at DEBUG
                log.info("%s: %s", name, result)
            else:
                log.debug("%s: nothing to do", name)
        except Fenced as exc:
            if lost is None:
                raise
            lost(exc)
        except DatabaseUnavailable as exc:  # a restart, a cut connection: the pool reconnects
            log.warning("%s: the database did not answer (%s): the next run retries", name, exc)
        except Exception:  # one failing run must not stop the schedule; the next one retries
            log.exception("%s failed", name)

    run.__name__ = name
    return run


def _analyse(env: Env) -> str | None:
    """The finished games' analyses, then the uploaded records' asked for."""
    games = analysis.analyse(env)
    records = record_analysis.analyse(env)
    if not (games or records):
        return None
    return f"{games}; record files: {records}"


def add_jobs(
    scheduler: BaseScheduler,
    env: Env,
    lease: Lease | None = None,
    lost: Callable[[Fenced], None] | None = None,
) -> wakeup.Watcher:
    """Every job, each at its interval of ``Config.every`` (PBEM_DELIVER_EVERY etc.), and
    the computer's wake-up, which runs the ``computer`` job at once when it is its turn;
    with a ``lease``, each checks it first, and ``lost`` is told when it is gone."""
    backend = backend_for(env.config)
    every = env.config.every
    # one run of the computer's moves at a time, woken at once by the move that asks for it
    play = wakeup.Coalesced(lambda: computer.computer_moves(env))
    # one run of the analysis at a time, woken at once by the move that ends a game
    study = wakeup.Coalesced(lambda: _analyse(env))
    job_list: list[tuple[str, Callable[[], Any], int]] = [
        ("deliver", lambda: jobs.deliver_mail(env, backend), every.deliver),
        ("clock", lambda: jobs.run_clock(env), every.clock),
        ("digest", lambda: jobs.send_digests(env), every.digest),
        ("limits", lambda: limits.purge(env), every.purge),  # ended rate-limit windows
        ("computer", play, every.computer),
        ("computer-sweep", lambda: computer.computer_moves(env, recent=None), every.computer_sweep),
        ("analyse", study, every.analyse),  # finished games' moves
        # sent mails' words pruned, clients' addresses reduced (Config.retention)
        ("retention", lambda: retention.run(env), every.retention),
        # events due started; timeouts claimed, rounds ended, the next paired
        ("events", lambda: rounds.advance(env), every.events),
    ]
    if env.config.imap_host:
        from .receiver import poll_imap

        job_list.append(("imap", lambda: poll_imap(env), every.imap))
    if lease is not None:
        job_list.append(("lease", lease.renew, every.lease_renew))
    for name, job, seconds in job_list:
        scheduler.add_job(
            _guarded(name, job, lease, lost),
            "interval",
            seconds=seconds,
            id=name,
            max_instances=1,
            coalesce=True,
            next_run_time=env.clock.now(),
        )
    woken = wakeup.Both(
        _guarded("computer", play, lease, lost), _guarded("analyse", study, lease, lost)
    )
    return wakeup.attach(scheduler, env.db, woken)


def run_forever(env: Env) -> None:
    """Stand by until this is the active scheduler, run the jobs until the lease is lost,
    and stand by again; SIGTERM lets go of the lease, so a standby need not wait for it."""
    lease = Lease(env.db, env.clock, env.config.lease_seconds, env.config.every.lease_renew)
    prepare(env.db, env.config.lease_seconds)
    env.db.fence = lease  # every write of the jobs checks the lease's token first
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            lease.acquire()
            _lead(env, lease)
    finally:
        lease.release()


def _lead(env: Env, lease: Lease) -> None:
    """Run the jobs until another scheduler takes the lease over (or it lapses)."""
    scheduler = BlockingScheduler(timezone="UTC")
    gone = threading.Event()

    def lost(exc: Fenced) -> None:
        if not gone.is_set():
            gone.set()
            log.warning("%s (%s): standing by", FENCED, exc)
            scheduler.shutdown(wait=False)

    add_jobs(scheduler, env, lease, lost)
    scheduler.start()


def start_in_background(env: Env) -> BackgroundScheduler:
    """For ``pbem serve`` in development only."""
    scheduler = BackgroundScheduler(timezone="UTC", daemon=True)
    add_jobs(scheduler, env)
    scheduler.start()
    return scheduler


@click.command("scheduler")
def scheduler_command() -> None:
    """Run the jobs: deliver mail, remind, warn, time out, digests, analyse finished games,
    prune what the retention periods let go (one process of its own)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # its "Running job"/"executed successfully" for every tick; its warnings and errors stay
    logging.getLogger(APSCHEDULER_LOG).setLevel(logging.WARNING)
    env = ready_env()
    click.echo(f"pbem scheduler: mail by {env.config.mail_backend}; Ctrl+C stops it")
    run_forever(env)
