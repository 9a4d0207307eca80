"""``pbem scheduler``: APScheduler runs the jobs in one process of its own.

Never inside web workers (each gunicorn worker would run every job). The jobs
themselves live in ``services.jobs`` and are idempotent,
so a restart, an overlap or a second scheduler sends nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import click
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler

from . import wakeup
from .cli_env import ready_env
from .leadership import Leadership
from .mail.delivery import backend_for
from .services import analysis, computer, jobs, ratelimit
from .services.env import Env

log = logging.getLogger("pbem.scheduler")


def _guarded(name: str, job: Callable[[], Any]) -> Callable[[], None]:
    def run() -> None:
        try:
            result = job()
            if result:
                log.info("%s: %s", name, result)
        except Exception:  # one failing run must not stop the schedule; the next one retries
            log.exception("%s failed", name)

    run.__name__ = name
    return run


def add_jobs(scheduler: BaseScheduler, env: Env) -> wakeup.Watcher:
    """Every job, each at its interval of ``Config.every`` (PBEM_DELIVER_EVERY etc.), and
    the computer's wake-up, which runs the ``computer`` job at once when it is its turn."""
    backend = backend_for(env.config)
    every = env.config.every
    # one run of the computer's moves at a time, woken at once by the move that asks for it
    play = wakeup.Coalesced(lambda: computer.computer_moves(env))
    job_list: list[tuple[str, Callable[[], Any], int]] = [
        ("deliver", lambda: jobs.deliver_mail(env, backend), every.deliver),
        ("clock", lambda: jobs.run_clock(env), every.clock),
        ("digest", lambda: jobs.send_digests(env), every.digest),
        ("limits", lambda: ratelimit.purge(env), every.purge),  # ended rate-limit windows
        ("computer", play, every.computer),
        ("computer-sweep", lambda: computer.computer_moves(env, recent=None), every.computer_sweep),
        ("analyse", lambda: analysis.analyse(env), every.analyse),  # finished games' moves
    ]
    if env.config.imap_host:
        from .receiver import poll_imap

        job_list.append(("imap", lambda: poll_imap(env), every.imap))
    for name, job, seconds in job_list:
        scheduler.add_job(
            _guarded(name, job),
            "interval",
            seconds=seconds,
            id=name,
            max_instances=1,
            coalesce=True,
            next_run_time=env.clock.now(),
        )
    return wakeup.attach(scheduler, env.db, _guarded("computer", play))


def run_forever(env: Env) -> None:
    """Wait to be the active scheduler, then run the jobs until the lock is lost."""
    leadership = Leadership(env.db, env.config.instance_path)
    leadership.acquire()
    scheduler = BlockingScheduler(timezone="UTC")
    add_jobs(scheduler, env)

    def check_lock() -> None:
        if not leadership.held():  # the lock's connection died: another scheduler may run now
            log.error("lost the scheduler lock: stopping (a standby takes over)")
            scheduler.shutdown(wait=False)

    scheduler.add_job(check_lock, "interval", seconds=10, id="lock", max_instances=1)
    try:
        scheduler.start()
    finally:
        leadership.release()


def start_in_background(env: Env) -> BackgroundScheduler:
    """For ``pbem serve`` in development only."""
    scheduler = BackgroundScheduler(timezone="UTC", daemon=True)
    add_jobs(scheduler, env)
    scheduler.start()
    return scheduler


@click.command("scheduler")
def scheduler_command() -> None:
    """Run the jobs: deliver mail, remind, warn, time out, digests, analyse finished games
    (one process of its own)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    env = ready_env()
    click.echo(f"pbem scheduler: mail by {env.config.mail_backend}; Ctrl+C stops it")
    run_forever(env)
