"""deploy/gunicorn.conf.py serves the app with several workers on the run's database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from pbem.engine import load_record, verify
from pbem.services import games, records
from tests.mail.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def gunicorn(database_url, tmp_path):
    port = free_port()
    log = tmp_path / "access.log"
    environ = {
        **os.environ,
        "PBEM_DATABASE_URL": database_url,
        "PBEM_ENV": "testing",
        "PBEM_SECRET_KEY": "test-secret-key",
        "PBEM_BASE_URL": "http://pbem.test",
        "PBEM_INSTANCE_PATH": str(tmp_path),
        "PBEM_BIND": f"127.0.0.1:{port}",
        "PBEM_WORKERS": "3",
        "PBEM_ACCESS_LOG": str(log),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy" / "gunicorn.conf.py")],
        env=environ,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/", timeout=1)
            break
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail(proc.stderr.read().decode()[-2000:])
    yield base, log
    proc.terminate()
    proc.wait(10)


def call(base, path, token, body=None):
    request = urllib.request.Request(
        base + path,
        method="POST" if body else "GET",
        data=json.dumps(body).encode() if body else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_several_workers_serve_one_game_and_log_no_token(gunicorn, env):
    base, log = gunicorn
    created = games.create_game(
        env, (games.PlayerIn("A", "a@example.test"), games.PlayerIn("B", "b@example.test"))
    )
    for n in range(1, 31):  # each request may land on another worker
        seat = games.public_page(env, created.public_id).view.table.to_move
        token = created.tokens[seat]
        legal = call(base, "/api/seat/legal-moves", token)["moves"]
        done = call(base, "/api/seat/moves", token, {"n": n, "move": legal[0]})
        assert done["n"] == n
        urllib.request.urlopen(f"{base}/s/{token}", timeout=10).read()
    assert verify(load_record(records.operator_record(env, created.public_id))).ok
    time.sleep(0.5)
    text = log.read_text()
    assert "/s/[token]" in text
    assert all(t not in text for t in created.tokens)
