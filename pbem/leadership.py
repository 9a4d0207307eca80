"""One active scheduler: the holder of an unexpired lease runs the jobs; the others stand by.

The lease is a row (``store/leadership.py``) with an expiry the active scheduler renews
every ``PBEM_LEASE_RENEW_EVERY`` seconds, and a fencing token that grows at each
takeover. A standby takes the lease once it has lapsed (``PBEM_LEASE_SECONDS`` without a
renewal): a scheduler that died, hung or lost the database is replaced within the lease
time. The active scheduler's every write transaction checks the token first
(``Database.fence``), and before each job and each mail it checks that its lease has not
lapsed by its own clock: one that wakes from a hang after a takeover finds itself fenced,
logs one line and stands by, without running anything. Lease times come from the
injected clock, so the hosts of the schedulers must keep their clocks in step (NTP).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from .clock import Clock
from .store import leadership as lease_rows
from .store.db import Database, DatabaseUnavailable, Fenced

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

log = logging.getLogger("pbem.scheduler")


def prepare(db: Database, lease_seconds: float) -> None:
    """Before the first lease: PostgreSQL is to end a transaction this process leaves idle
    for the lease time, so a hang in the middle of one cannot keep a standby out."""
    lease_rows.end_hung_transactions(db.engine, lease_seconds)


class Lease:
    """This process's claim to be the active scheduler; the ``Database.fence`` of its writes."""

    def __init__(self, db: Database, clock: Clock, seconds: float, renew_every: float) -> None:
        self.db = db
        self.clock = clock
        self.seconds = seconds
        self.renew_every = renew_every
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.token: int | None = None
        self._valid_until: datetime | None = None

    @property
    def length(self) -> timedelta:
        return timedelta(seconds=self.seconds)

    def try_acquire(self) -> bool:
        """Take the lease if it is free or lapsed."""
        started = self.clock.now()
        try:
            with self.db.write(fenced=False) as session:
                token = lease_rows.take(
                    session, self.holder, started, started + self.length, self.renew_every
                )
        except DatabaseUnavailable as exc:  # unreachable, or a hung holder's transaction in the way
            log.warning("could not take the scheduler lease (%s): trying again", exc)
            return False
        if token is None:
            return False
        self.token, self._valid_until = token, started + self.length
        return True

    def acquire(self, sleep: float | None = None) -> None:
        """Wait (as a hot standby) until this process is the active scheduler."""
        waited = False
        while not self.try_acquire():
            if not waited:
                log.info("another scheduler is active: standing by")
                waited = True
            time.sleep(self.renew_every if sleep is None else sleep)
        log.info("this is the active scheduler (lease token %s)", self.token)

    def renew(self) -> None:
        """Extend the lease. ``Fenced`` if another scheduler took it over, or if it lapsed
        while the database could not be reached; a passing outage is only logged."""
        if self.token is None:
            raise Fenced("the lease is not held")
        started = self.clock.now()
        try:
            with self.db.write(fenced=False) as session:
                renewed = lease_rows.renew(session, self.token, started + self.length)
        except DatabaseUnavailable as exc:
            if self._lapsed(started):
                raise Fenced("the lease lapsed while the database could not be reached") from None
            log.warning("could not renew the scheduler lease (%s): trying again", exc)
            return
        if not renewed:
            self.token = None
            raise Fenced("another scheduler took the lease over")
        self._valid_until = started + self.length

    def ensure_live(self) -> None:
        """Before a job or a mail: renew first if the lease has lapsed by this clock (a
        hang, a slow database), and raise ``Fenced`` if it cannot be."""
        if self.token is None:
            raise Fenced("the lease is not held")
        if self._lapsed(self.clock.now()):
            self.renew()
            if self._lapsed(self.clock.now()):
                raise Fenced("the lease lapsed")

    def check(self, session: Session) -> None:
        """The fence: in the write transaction it guards, the token must still be ours."""
        if self.token is None or lease_rows.token(session) != self.token:
            self.token = None
            raise Fenced("another scheduler took the lease over")

    def release(self) -> None:
        """Let go, so a standby takes over at once instead of after the lease time."""
        token, self.token = self.token, None
        if token is None:
            return
        try:
            with self.db.write(fenced=False) as session:
                lease_rows.release(session, token, self.clock.now())
        except DatabaseUnavailable:  # it lapses on its own
            pass

    def _lapsed(self, now: datetime) -> bool:
        return self._valid_until is None or now >= self._valid_until
