"""One active scheduler: whoever holds the lock runs the jobs; a second one waits.

On PostgreSQL the lock is a session advisory lock held by a dedicated connection
(its statements are ``store/leadership.py``'s): if the active scheduler dies, its
connection closes, the lock is released and a standby takes over within seconds. On
SQLite (one machine) it is a file lock.
"""

from __future__ import annotations

import fcntl
import logging
import os
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from .store import leadership as advisory_lock
from .store.db import Database, is_sqlite

log = logging.getLogger("pbem.scheduler")


class Leadership:
    def __init__(self, db: Database, instance: Path) -> None:
        self.db = db
        self.instance = instance
        self._connection: Connection | None = None
        self._file: Any = None

    def try_acquire(self) -> bool:
        if is_sqlite(self.db.url):
            self.instance.mkdir(parents=True, exist_ok=True)
            handle = open(self.instance / "scheduler.lock", "a+")  # noqa: SIM115 - held open
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                return False
            handle.write(f"{os.getpid()}\n")
            handle.flush()
            self._file = handle
            return True
        connection = advisory_lock.try_lock(self.db.engine)
        if connection is None:
            return False
        self._connection = connection
        return True

    def acquire(self, poll: float = 5.0) -> None:
        """Wait (as a hot standby) until this process is the active scheduler."""
        waited = False
        while not self.try_acquire():
            if not waited:
                log.info("another scheduler is active: standing by")
                waited = True
            time.sleep(poll)
        log.info("this is the active scheduler")

    def held(self) -> bool:
        """Still ours? (False once the lock's connection is gone.)"""
        if self._file is not None:
            return True
        if self._connection is None:
            return False
        return advisory_lock.held(self._connection)

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            self._file.close()
            self._file = None
        if self._connection is not None:
            connection, self._connection = self._connection, None
            advisory_lock.unlock(connection)
