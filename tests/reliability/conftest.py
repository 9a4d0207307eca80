"""A real gunicorn (deploy/gunicorn.conf.py) on a free loopback port, on the run's database."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.mail.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]


class Gunicorn:
    def __init__(self, database_url: str, folder: Path, workers: int) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = folder / "access.log"
        self.errors = folder / "error.log"  # a file: a pipe nobody reads stalls the workers
        if not database_url.startswith("sqlite"):  # tag the app's connections, to cut only those
            database_url += ("&" if "?" in database_url else "?") + "application_name=pbem-web"
        self.environ = {
            **os.environ,
            "PBEM_DATABASE_URL": database_url,
            "PBEM_ENV": "testing",
            "PBEM_SECRET_KEY": "test-secret-key",
            "PBEM_BASE_URL": "http://pbem.test",
            "PBEM_INSTANCE_PATH": str(folder),
            "PBEM_BIND": f"127.0.0.1:{self.port}",
            "PBEM_WORKERS": str(workers),
            "PBEM_ACCESS_LOG": str(self.log),
        }
        with self.errors.open("ab") as errors:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy" / "gunicorn.conf.py")],
                env=self.environ,
                cwd=folder,
                stdout=subprocess.DEVNULL,
                stderr=errors,
            )
        for _ in range(150):
            try:
                urllib.request.urlopen(self.base + "/", timeout=1)
                return
            except OSError:  # refused, reset, or bound but no worker answering yet
                time.sleep(0.1)
        self.proc.kill()
        pytest.fail(self.errors.read_text(errors="replace")[-2000:] or "no start")

    def worker_pids(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True)
        return [int(p) for p in out.stdout.split()]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:  # workers stuck after the havoc: no grace left
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def database_url(migrated_database) -> str:
    """A database of these tests' own: thousands of games must not crowd the shared one."""
    return migrated_database()


@pytest.fixture
def env(database_url, config):
    """An env on the real clock: the servers and schedulers these tests start run on it,
    and games made on the frozen clock's day would be days late to them (a scheduler
    timed them out while the test waited for their other mail)."""
    from pbem.clock import SystemClock
    from pbem.services.core.env import Env
    from pbem.store.db import Database

    db = Database(database_url)
    yield Env(config=config.with_(database_url=database_url), db=db, clock=SystemClock())
    db.dispose()


@pytest.fixture
def start_gunicorn(database_url, tmp_path) -> Iterator[Callable[[int], Gunicorn]]:
    started: list[Gunicorn] = []

    def start(workers: int = 3) -> Gunicorn:
        server = Gunicorn(database_url, tmp_path, workers)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def gunicorn(start_gunicorn) -> tuple[str, Path]:
    server = start_gunicorn(3)
    return server.base, server.log
