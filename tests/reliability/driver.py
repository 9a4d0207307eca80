"""An HTTP driver that plays whole games through the JSON API, as bots would."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.client import HTTPException
from typing import Any


class Failed(Exception):
    """The request did not get an answer (connection reset, worker killed …)."""


def call(
    base: str, path: str, token: str, body: Any = None, timeout: float = 30
) -> tuple[int, Any]:
    request = urllib.request.Request(
        base + path,
        method="POST" if body is not None else "GET",
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            try:
                return exc.code, json.loads(exc.read())
            except ValueError:
                return exc.code, None
    except (urllib.error.URLError, ConnectionError, TimeoutError, HTTPException) as exc:
        # HTTPException: e.g. IncompleteRead, a worker killed between headers and body.
        raise Failed(repr(exc)) from None


@dataclass
class Played:
    accepted: int = 0  # 201 answers
    refused_duplicates: int = 0  # 409 answers to the racing twin
    failures: int = 0  # requests without an answer
    over: bool = False
    seen: list[int] = field(default_factory=list)


def _legal(base: str, tokens: tuple[str, str]) -> tuple[int | None, list[str]]:
    for seat in (0, 1):
        status, data = call(base, "/api/seat/legal-moves", tokens[seat])
        if status == 200 and data["moves"]:
            return seat, data["moves"]
    return None, []


def _next_n(base: str, token: str) -> int:
    status, data = call(base, "/api/seat", token, timeout=10)
    if status != 200:
        raise Failed(f"status {status}")
    return data["next_n"]


def play(
    base: str,
    tokens: tuple[str, str],
    seed: int,
    *,
    race: bool = True,
    max_moves: int = 2000,
    deadline: float | None = None,
) -> Played:
    """Play to the end; with ``race`` every move is POSTed twice at once (one must win)."""
    rnd = random.Random(seed)
    result = Played()
    n = 1
    with ThreadPoolExecutor(2) as pool:
        while result.accepted < max_moves and (deadline is None or time.time() < deadline):
            try:
                seat, legal = _legal(base, tokens)
                if seat is None:
                    result.over = True
                    return result
                move = rnd.choice(legal)
                body = {"n": n, "move": move}
                twins = [
                    pool.submit(call, base, "/api/seat/moves", tokens[seat], body)
                    for _ in range(2 if race else 1)
                ]
                answers = []
                for twin in twins:
                    try:
                        answers.append(twin.result()[0])
                    except Failed:
                        result.failures += 1
                        answers.append(None)
            except Failed:
                result.failures += 1
                answers = [None]
            if 201 in answers:
                assert answers.count(201) == 1, answers  # never two moves for one number
                result.accepted += 1
                result.refused_duplicates += answers.count(409)
                result.seen.append(n)
                n += 1
            else:
                # no answer, or only refusals: ask the server where the game stands
                for _ in range(50):
                    if deadline is not None and time.time() > deadline + 30:
                        return result
                    try:
                        n = _next_n(base, tokens[0])
                        break
                    except Failed:
                        result.failures += 1
                        time.sleep(0.2)
    return result
