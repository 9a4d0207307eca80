"""Every route, every method, with hostile values: a 4xx with a message, never a 500.

The walk takes the routes from the app's URL map, so a route added later is
walked too. Each path argument gets a real value (a seat token, a game id, a
digest) and hostile ones; each request carries hostile query arguments, form
fields or JSON bodies.
"""

from __future__ import annotations

import json

import pytest

from pbem.web import inputs
from tests.helpers import csrf_of
from tests.mail.play import new_game, token
from tests.support import play_random

HUGE = "99999999999999999999999"
MEGA = "9" * (1024 * 1024)
DEEP = "[" * 10_000 + "]" * 10_000
HOSTILE_NUMBERS = (HUGE, "-1", "-99999999999999999999", "1e308", "nan", "inf", "0x10", "", "x")
FIELDS = (
    "n", "move", "message", "days", "days_per_move", "reminder_after_hours",
    "reminder_every_hours", "vacation_days", "email", "my_name", "my_email", "their_name",
    "their_email", "my_language", "their_language", "my_timezone", "language", "timezone",
    "entropy", "phrase", "mode", "confirm", "name", "mail_mode", "starter", "note",
    "timeout_action",
)  # fmt: skip


@pytest.fixture
def world(client, env):
    """A finished game and a running one, a seat token of each, and a CSRF token."""
    done = new_game(env)
    play_random(env, done)
    running = new_game(env, first=0)
    play_random(env, running, 3)
    csrf = csrf_of(client.get("/").text)
    return {
        "public_id": [done, running],
        "token": [token(env, running, 0), token(env, done, 1)],
        "digest": ["0" * 64],
        "challenge_id": ["abcdefghjk"],
        "n": ["1"],
        "message_id": ["1"],
        "csrf": csrf,
    }


def paths(app, world):
    """Each rule with real arguments, then with hostile ones in each numeric/string slot."""
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        names = sorted(rule.arguments)
        real = {name: world.get(name, ["x"])[0] for name in names}
        variants = [real]
        for name in names:
            for bad in (HUGE, "-1", "0" * 30, "x" * 5000):
                variants.append({**real, name: bad})
        for values in variants:
            path = rule.rule
            for name in names:
                path = path.replace(f"<int:{name}>", values[name]).replace(
                    f"<{name}>", values[name]
                )
            yield rule, path


def check(response, where) -> None:
    assert response.status_code < 500, (where, response.status_code, response.text[:500])
    if response.status_code >= 400 and response.mimetype == "application/json":
        assert response.get_json()["error"], where


@pytest.mark.slow
def test_every_route_refuses_hostile_values_without_a_500(app, client, world):
    headers = {"Authorization": f"Bearer {world['token'][0]}"}
    walked = 0
    for rule, path in paths(app, world):
        for number in HOSTILE_NUMBERS:
            query = {"n": number, "as": number, "page": number, "done": number, "try": number}
            if "GET" in rule.methods:
                check(client.get(path, query_string=query, headers=headers), (path, number))
            if "POST" in rule.methods:
                form = {name: number for name in FIELDS} | {"csrf_token": world["csrf"]}
                check(client.post(path, data=form, headers=headers), (path, number))
                check(client.post(path, json={"n": number, "move": number}, headers=headers), path)
                walked += 1
        if "POST" in rule.methods:
            long_form = {name: "x" * 100_000 for name in FIELDS} | {"csrf_token": world["csrf"]}
            check(client.post(path, data=long_form, headers=headers), (path, "long"))
            check(client.post(path, data={"move": MEGA}, headers=headers), (path, "1 MB"))
            check(client.post(path, data=DEEP, headers=headers | _json), (path, "deep"))
            check(client.post(path, data=b"\xff{not json", headers=headers | _json), path)
            check(client.post(path, json={"n": int(HUGE), "move": "camels"}, headers=headers), path)
            check(client.post(path, json=[1, 2], headers=headers), (path, "array"))
        if "GET" in rule.methods:
            check(client.get(path, query_string={"n": MEGA[:5000], "lang": MEGA[:5000]}), path)
            check(client.get(path, query_string=[("try", "x")] * 1000), (path, "repeats"))
    assert walked > 20


_json = {"Content-Type": "application/json"}


def test_the_api_says_what_is_wrong_in_json(client, world):
    auth = {"Authorization": f"Bearer {world['token'][0]}"}
    for body in (
        json.dumps({"n": int(HUGE), "move": "camels"}),
        json.dumps({"n": -1, "move": "camels"}),
        json.dumps({"n": True, "move": "camels"}),
        DEEP[:5000] + DEEP[-5000:],  # 5,000 deep, within the size bound
        "not json",
        json.dumps({"n": 4, "move": ["camels"]}),
    ):
        for path in ("/api/seat/moves", "/api/seat/preview"):
            answer = client.post(path, data=body, headers=auth | _json)
            assert answer.status_code == 400, (path, body[:40])
            assert answer.get_json()["status"] == 400 and answer.get_json()["error"]
    nested = client.post("/api/seat/moves", data=DEEP[:40] + DEEP[-40:], headers=auth | _json)
    assert "nested too deeply" in nested.get_json()["error"]
    ten_thousand = client.post("/api/seat/moves", data=DEEP, headers=auth | _json)
    assert ten_thousand.status_code == 413  # 20 KB: refused before it is read
    big = client.post("/api/seat/moves", data=" " * 20_000 + "{}", headers=auth | _json)
    assert big.status_code == 413 and big.get_json()["status"] == 413
    huge = client.post("/", data={"my_name": MEGA})  # beyond MAX_CONTENT_LENGTH
    assert huge.status_code == 413


def test_a_huge_move_number_on_the_seat_page_is_a_400_in_the_readers_language(client, env, world):
    link = f"/s/{world['token'][0]}"
    csrf = csrf_of(client.get(link).text)
    for path in (f"{link}/move", f"{link}/preview"):
        answer = client.post(path, data={"csrf_token": csrf, "n": HUGE, "move": "camels"})
        assert answer.status_code == 400
        assert "Move: a number from 1 to 100000" in answer.text
    greek = client.post(
        f"{link}/move?lang=el", data={"csrf_token": csrf, "n": HUGE, "move": "camels"}
    )
    assert greek.status_code == 400 and '<html lang="el"' in greek.text
    assert "100000" in greek.text and "Move: a number" not in greek.text
    audit = client.get(f"/g/{world['public_id'][0]}/audit/{HUGE}?lang=en")
    assert audit.status_code == 400 and "out of range" in audit.text


def test_the_json_depth_is_counted_without_parsing():
    assert inputs.json_depth('{"a": [[1], {"b": "[[[[["}]}') == 3
    assert inputs.json_depth(DEEP) == 10_000
    assert inputs.json_depth('"\\"[[["') == 0
