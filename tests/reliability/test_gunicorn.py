"""deploy/gunicorn.conf.py serves the app with several workers on the run's database."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from pbem.engine import load_record, verify
from pbem.services.play import game_pages, new_games
from pbem.services.records import game_records

pytestmark = [pytest.mark.reliability, pytest.mark.slow]


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
    created = new_games.create_game(
        env, (new_games.PlayerIn("A", "a@example.test"), new_games.PlayerIn("B", "b@example.test"))
    )
    for n in range(1, 31):  # each request may land on another worker
        seat = game_pages.public_page(env, created.public_id).view.table.to_move
        token = created.tokens[seat]
        legal = call(base, "/api/seat/legal-moves", token)["moves"]
        done = call(base, "/api/seat/moves", token, {"n": n, "move": legal[0]})
        assert done["n"] == n
        urllib.request.urlopen(f"{base}/s/{token}", timeout=10).read()
    assert verify(load_record(game_records.operator_record(env, created.public_id))).ok
    end = time.monotonic() + 10  # gunicorn writes its access log after it answers
    while "/s/[token]" not in (text := log.read_text()) and time.monotonic() < end:
        time.sleep(0.05)
    assert "/s/[token]" in text
    assert all(t not in text for t in created.tokens)
