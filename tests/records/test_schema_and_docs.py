"""The published formats hold: every kind of record the server exports matches
docs/jaipur-record.schema.json, and docs/record-format.md's vectors and test values are
what the engine computes. Someone writes a verifier from those pages alone, so a page
that drifts from the code misleads them; these tests make the drift fail here.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from pbem.engine import (
    Claim,
    Match,
    Resign,
    TakeGood,
    Timeout,
    chain_hash,
    parse_move,
    position_json,
    rng,
)
from pbem.engine.cards import Card
from pbem.engine.position import canonical_json
from pbem.services.core import access
from pbem.services.play import game_clock, game_pages, moves
from pbem.services.records import game_records
from pbem.services.scheduled import jobs
from tests.mail.play import new_game, token
from tests.support import play_random

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FORMAT_DOC = (DOCS / "record-format.md").read_text(encoding="utf-8")
SCHEMA = json.loads((DOCS / "jaipur-record.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
CLOCK = game_clock.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)


def jaipur_chain_start(data: dict[str, Any]) -> str:
    """hash_0 of a version-2 record, from docs/record-format.md §6.3."""
    header = {k: data.get(k) for k in ("format", "rules", "tie_policy", "game_id")}
    header |= {"created_at": data.get("created_at"), "first_player": data.get("first_player")}
    text = f"{data['commitment']}\n{canonical_json(header)}"
    return hashlib.sha256(text.encode()).hexdigest()


def valid(data: dict[str, Any]) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(data)]
    assert not errors, errors[:5]


def invalid(data: dict[str, Any]) -> bool:
    return not VALIDATOR.is_valid(data)


def next_n(env, public_id: str) -> int:
    return len(game_records.operator_record(env, public_id)["moves"]) + 1


# ------------------------------------------------------------ the server's exports


@pytest.fixture(scope="module")  # the module's tests only read it
def finished(module_env) -> str:
    env = module_env
    public_id = new_game(env)
    play_random(env, public_id)
    return public_id


@pytest.fixture(scope="module")  # the module's tests only read it
def running(module_env) -> str:
    env = module_env
    public_id = new_game(env, first=0)
    play_random(env, public_id, 9)
    return public_id


def test_a_finished_match_matches_the_schema(client, env, finished):
    data = client.get(f"/g/{finished}/record.json").get_json()
    valid(data)
    assert data["chain_start"] == jaipur_chain_start(data)  # §6.3: hash_0, stated
    assert data["result"]["status"] == "finished"
    assert "resigned" not in data["result"] and "claimed" not in data["result"]
    assert all("position" in m for m in data["moves"])
    valid(game_records.operator_record(env, finished))


def test_a_resigned_game_matches_the_schema(client, env):
    public_id = new_game(env, first=0)
    play_random(env, public_id, 5)
    moves.resign(env, token(env, public_id, 0), next_n(env, public_id), access.Client())
    data = client.get(f"/g/{public_id}/record.json").get_json()
    valid(data)
    assert data["moves"][-1]["move"] == "resign" and data["moves"][-1]["seat"] == 0
    assert data["result"]["resigned"] == 0 and data["result"]["winner"] == 1


def test_a_game_claimed_on_timeout_matches_the_schema(client, env):
    public_id = new_game(env, CLOCK, first=0)
    env.clock.advance(days=3, minutes=1)
    jobs.run_clock(env)
    moves.claim_win(env, token(env, public_id, 1), 2, access.Client())
    data = client.get(f"/g/{public_id}/record.json").get_json()
    valid(data)
    assert [(m["move"], m["seat"]) for m in data["moves"]] == [("timeout", 0), ("claim", 1)]
    assert data["result"]["claimed"] == 1 and data["result"]["winner"] == 1


def test_a_running_games_seat_export_matches_the_schema(client, env, running):
    data = client.get(f"/s/{token(env, running, 0)}/export").get_json()
    valid(data)
    assert data["chain_start"] == jaipur_chain_start(data)
    assert data["seed"] is None and "result" not in data and data["view"]["seat"] == 0
    valid(game_records.operator_record(env, running))  # the operator's copy, seed and all


def test_every_evidence_file_matches_the_schema(client, env, finished, running):
    files = {
        "public, finished": client.get(f"/g/{finished}/audit/7/evidence.json"),
        "seat, finished": client.get(f"/s/{token(env, finished, 1)}/audit/7/evidence.json"),
        "seat, running": client.get(f"/s/{token(env, running, 0)}/audit/3/evidence.json"),
        "seat, running, the opponent's move": client.get(
            f"/s/{token(env, running, 0)}/audit/2/evidence.json"
        ),
    }
    for what, response in files.items():
        assert response.status_code == 200, what
        data = response.get_json()
        valid(data)
        evidence, last = data["evidence"], data["moves"][-1]
        assert evidence["disputed_move"] == len(data["moves"]), what
        for field, entry_field in (("move", "move"), ("seat", "seat"), ("at", "at")):
            assert evidence[field] == last[entry_field], (what, field)
        assert evidence["chain_hash"] == last["hash"], what
        if data["seed"] is not None:
            assert evidence["position_hash"] == last["position"], what
        times = [a["at"] for a in evidence["access_log"]]
        assert times == sorted(times), what
    # nobody but the players sees a running game's evidence
    assert client.get(f"/g/{running}/audit/3/evidence.json").status_code == 403


def test_the_demo_games_records_match_the_schema(monkeypatch, tmp_path, database_url):
    from pbem.cli import main
    from pbem.cli_env import command_env as _env

    monkeypatch.setenv("PBEM_DATABASE_URL", database_url)
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("PBEM_ENV", "development")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["demo", "--moves", "6"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    public_id = re.search(r"Demo game (\w+):", result.output).group(1)
    demo_env = _env()
    try:
        seat_token = game_pages.seat_tokens(demo_env, public_id)[0]
        valid(game_records.export_record(demo_env, token=seat_token))
        valid(game_records.operator_record(demo_env, public_id))
    finally:
        demo_env.db.dispose()


def test_the_schema_refuses_what_no_record_holds(env, finished):
    good = game_records.operator_record(env, finished)
    valid(good)

    def changed(path: list[Any], value: Any) -> dict[str, Any]:
        data = json.loads(json.dumps(good))
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return data

    assert invalid(changed(["seed"], good["seed"].upper()))
    assert invalid(changed(["commitment"], good["commitment"][:62]))
    assert invalid(changed(["moves", 0, "at"], "2026-12-02 09:00:00"))
    assert invalid(changed(["moves", 0, "seat"], 2))
    assert invalid(changed(["moves", 0, "move"], "sell 2 spices"))
    assert invalid(changed(["moves", 0, "move"], "exchange spice diamond for camel camel"))
    assert invalid(changed(["moves", 0, "extra"], 1))
    assert invalid(changed(["format"], "jaipur-record/3"))
    assert invalid(changed(["result", "resigned"], 2))
    without_header = {k: v for k, v in good.items() if k != "game_id"}
    assert invalid({**without_header, "format": "jaipur-record/2"})
    assert invalid(changed(["moves", 0, "move"], good["moves"][0]["move"] + "\n"))
    assert invalid(changed(["chain_start"], good["chain_start"].upper()))
    assert invalid(changed(["players", 0], {"seat": 0}))
    # §6.3: a version-2 file with no entries states its chain_start; one with entries may not
    assert invalid({**changed(["moves"], []), "chain_start": None})
    no_start = {k: v for k, v in good.items() if k not in ("chain_start", "result")}
    assert invalid({**no_start, "moves": []})
    assert not invalid(no_start)
    assert not invalid(changed(["moves"], []))
    assert not invalid({**good, "something_new": [1, 2]})  # unknown top-level fields are ignored


# ------------------------------------------------------------ the pages themselves


def _json_blocks(text: str) -> list[str]:
    return re.findall(r"```json\n(.*?)```", text, flags=re.S)


def test_the_shuffle_vectors_in_the_format_page_are_the_files():
    """§2.6 shows both vectors of the file it names, in full."""
    vectors = json.loads((ROOT / "tests" / "data" / "shuffle-vectors.json").read_text())
    inline = [json.loads(b) for b in _json_blocks(FORMAT_DOC) if '"round1_deck"' in b]
    assert len(vectors) == 2 and inline == vectors
    for vector in inline:
        seed = bytes.fromhex(vector["seed"])
        assert rng.commitment(seed) == vector["commitment"]
        assert rng.first_player(seed) == vector["first_player"]


def test_the_format_pages_test_values_are_what_the_engine_computes():
    seed = bytes(32)
    start = Match.new(seed)
    text = canonical_json(position_json(start))
    after = start.apply(TakeGood(Card.GOLD), 0)
    after_text = canonical_json(position_json(after))
    commitment = rng.commitment(seed)
    header = {
        "format": "jaipur-record/2",
        "rules": "jaipur/1",
        "tie_policy": "no-seal",
        "game_id": "abcdefghjk",
        "created_at": "2026-12-02T09:00:00Z",
        "first_player": None,
    }
    hash0_v2 = hashlib.sha256(f"{commitment}\n{canonical_json(header)}".encode()).hexdigest()
    at = "2026-12-02T09:05:11Z"
    values = [
        commitment,
        text,
        hashlib.sha256(text.encode()).hexdigest(),
        hmac.new(seed, text.encode(), hashlib.sha256).hexdigest(),
        canonical_json(header),
        hash0_v2,
        chain_hash(commitment, 1, 0, "take gold", at),
        chain_hash(hash0_v2, 1, 0, "take gold", at),
        hashlib.sha256(after_text.encode()).hexdigest(),
        hmac.new(seed, after_text.encode(), hashlib.sha256).hexdigest(),
        hmac.new(seed, b"jaipur/1/round/1/deck:0", hashlib.sha256).hexdigest(),
        rng.Stream(seed, "jaipur/1/first-player").read(8).hex(),
        rng.mix_seed(seed, bytes([0x11]) * 16, bytes([0x22]) * 16).hex(),
    ]
    for value in values:
        assert value in FORMAT_DOC, value
    deck = rng.Stream(seed, "jaipur/1/round/1/deck")
    draws = [deck.below(i + 1) for i in range(51, 43, -1)]
    assert "`j = x mod 52 = 22`" in FORMAT_DOC and "35, 44, 3, 47, 4, 38, 19" in FORMAT_DOC
    assert draws == [22, 35, 44, 3, 47, 4, 38, 19]


def test_the_position_after_each_kind_of_entry_is_the_one_the_page_names():
    """docs/record-format.md §4.5, entry by entry."""
    start = Match.new(bytes(32))
    assert position_json(start.apply(Timeout(), 0)) == position_json(start)
    for ended in (start.apply(Resign(), 1), start.apply(Timeout(), 0).apply(Claim(), 1)):
        p = position_json(ended)
        assert p["to_move"] is None and not p["round_over"]
        assert {k: v for k, v in p.items() if k != "to_move"} == {
            k: v for k, v in position_json(start).items() if k != "to_move"
        }
    rnd, state, round_ends = random.Random(5), start, 0
    while not state.is_over:
        before = state
        state = state.apply(rnd.choice(state.legal_moves()))
        p = position_json(state)
        if state.is_over:
            assert p["round_over"] and p["to_move"] is None and 2 in p["seals"]
            assert p["round"] == before.round_number
        elif p["round"] != before.round_number:  # the next round's fresh deal
            round_ends += 1
            assert p["round"] == before.round_number + 1 and not p["round_over"]
            assert p["goods_tokens"] == [[], []] and p["bonus_tokens"] == [[], []]
            assert len(p["deck"]) == 40 and p["to_move"] == state.results[-1].next_starter()
        else:
            assert not p["round_over"] and p["to_move"] == 1 - before.to_move
    assert round_ends >= 1


def test_the_positions_shown_have_exactly_the_engines_fields():
    fields = set(position_json(Match.new(bytes(32))))
    shown = [json.loads(b) for b in _json_blocks(FORMAT_DOC) if b.startswith('{"round"')]
    assert shown and all(set(p) == fields for p in shown)


def test_the_record_example_matches_the_schema():
    example = next(json.loads(b) for b in _json_blocks(FORMAT_DOC) if '"format"' in b)
    valid(example)


def _move_pattern() -> str:
    block = FORMAT_DOC.split("### 3.2", 1)[1].split("```", 2)[1]
    return "".join(line.strip() for line in block.strip().splitlines())


def test_the_move_pattern_of_the_page_and_the_schema_agree_with_the_notation():
    pattern = _move_pattern()
    assert pattern == SCHEMA["$defs"]["moveText"]["pattern"]
    compiled = re.compile(pattern)
    seen = 0
    for choice in range(12):
        rnd, state = random.Random(choice), Match.new(bytes([choice]) * 32)
        while not state.is_over:
            legal = state.legal_moves()
            for move in legal:
                assert compiled.match(str(move)), str(move)
            seen += len(legal)
            state = state.apply(rnd.choice(legal))
    assert seen > 10_000
    for text in ("resign", "timeout", "claim"):
        assert compiled.match(text) and str(parse_move(text)) == text
    for text in (
        "sell 3 spices",
        "take camel",
        "exchange gold diamond for camel camel",
        "exchange spice for camel",
        "Take diamond",
        "sell 03 cloth",
        "camels ",
        "take gold\n",
        "exchange spice spice for cloth camel\n",
        "resign\n",
    ):
        assert not compiled.match(text), text
        assert not compiled.search(text), text  # as a JSON Schema validator applies it


def test_the_computer_field_has_its_schema() -> None:
    """§4.2 ``computer``: the server's field validates, a malformed one does not, and the
    schema's levels are the computer's."""
    from pbem import ai
    from tests.ai.games import computer_game

    data = computer_game().to_json()
    valid(data)
    assert SCHEMA["$defs"]["computer"]["properties"]["level"]["enum"] == list(ai.LEVELS)
    field = data["computer"]
    for bad in (
        {**field, "seat": 2},
        {**field, "level": "grandmaster"},
        {**field, "programs": [{"program": "a\nb", "moves": [2]}]},
        {**field, "programs": [{"program": "p", "moves": [0]}]},
        {**field, "extra": 1},
        {k: v for k, v in field.items() if k != "programs"},
    ):
        assert invalid({**data, "computer": bad}), bad
