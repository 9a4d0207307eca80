"""The scheduler plays the computer's move as soon as it is the computer's turn, and
begins a game's analysis as soon as it ends.

The move that makes it the computer's turn wakes the scheduler (``store/wakeup.py``:
NOTIFY on PostgreSQL, a short poll of the move log on SQLite), and a thread of the
scheduler's own, started and stopped with it, then runs the ``computer`` job at once.
The job's interval (``PBEM_COMPUTER_EVERY``) stays, for a wake-up that was missed (the
listener's connection lost, a scheduler started after the move). Both go through one
``Coalesced`` run, so the job never runs twice at once and a wake-up during a run makes
one more run after it, not one lost. The move that ends a game wakes it the same way,
and each wake-up also runs the ``analyse`` job in a thread of its own (``Both``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from apscheduler.events import EVENT_SCHEDULER_SHUTDOWN, EVENT_SCHEDULER_START
from apscheduler.schedulers.base import BaseScheduler

from .store import wakeup as signals
from .store.db import Database, DatabaseUnavailable

log = logging.getLogger("pbem.scheduler")

#: Seconds between two tries to listen again after the listener failed.
RETRY = 5.0


class Coalesced:
    """A job run by one caller at a time: asked while it runs, it runs once more after."""

    def __init__(self, job: Callable[[], Any]) -> None:
        self._job = job
        self._lock = threading.Lock()
        self._asked = False
        self._running = False

    def __call__(self) -> Any:
        """Run the job (again, while asked meanwhile); None at once if another caller runs it."""
        with self._lock:
            self._asked = True
            if self._running:
                return None
            self._running = True
        result = None
        try:
            while True:
                with self._lock:
                    if not self._asked:
                        return result
                    self._asked = False
                result = self._job()
        finally:
            with self._lock:
                self._running = False


class Both:
    """A wake-up's two jobs: the computer's move in the watcher's thread, and the analysis
    of a game just ended in a thread of its own (a match's analysis takes seconds, which
    the computer's next move must not wait for). Both are ``Coalesced``: a wake-up while
    one runs makes it run once more, never twice at once."""

    def __init__(self, play: Callable[[], Any], study: Callable[[], Any]) -> None:
        self.play, self.study = play, study
        self.threads: list[threading.Thread] = []

    def __call__(self) -> None:
        self.threads = [t for t in self.threads if t.is_alive()]
        thread = threading.Thread(target=self.study, name="pbem-analyse", daemon=True)
        self.threads.append(thread)
        thread.start()
        self.play()

    def join(self, timeout: float) -> None:
        """Wait for the analyses it started (a run stores as it goes: a cut loses little)."""
        for thread in self.threads:
            if thread is not threading.current_thread():  # the lease lost in an analysis
                thread.join(timeout)


class Watcher:
    """Calls ``wake`` each time a move makes it the computer's turn, in a thread of its own."""

    def __init__(self, db: Database, wake: Callable[[], Any]) -> None:
        self.db, self.wake = db, wake
        self.stop = threading.Event()
        #: Set while a listener is open: a move from then on wakes it.
        self.listening = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, name="pbem-wakeup", daemon=True)
        self.thread.start()

    def close(self, timeout: float = 10.0) -> None:
        """Stop listening, and wait for a run it started to end."""
        self.stop.set()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(timeout)
        if isinstance(self.wake, Both):
            self.wake.join(timeout)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self._listen()
            except DatabaseUnavailable as exc:  # a restart, a cut connection: no traceback
                self.listening.clear()
                log.warning(
                    "the computer's wake-up lost the database (%s); again in %s s", exc, RETRY
                )
                self.stop.wait(RETRY)
            except Exception:  # anything else: the job's interval covers meanwhile
                self.listening.clear()
                log.exception("the computer's wake-up stopped listening; again in %s s", RETRY)
                self.stop.wait(RETRY)

    def _listen(self) -> None:
        with signals.listening(self.db) as listener:
            self.listening.set()
            while not self.stop.is_set():
                if listener.wait(1.0):
                    self.wake()
        self.listening.clear()


def attach(scheduler: BaseScheduler, db: Database, wake: Callable[[], Any]) -> Watcher:
    """Listen for the computer's turn while ``scheduler`` runs."""
    watcher = Watcher(db, wake)
    scheduler.add_listener(lambda _event: watcher.start(), EVENT_SCHEDULER_START)
    scheduler.add_listener(lambda _event: watcher.close(), EVENT_SCHEDULER_SHUTDOWN)
    return watcher
