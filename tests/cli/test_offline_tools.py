"""docs/record-format.md §5: ``pbem replay|moves|verify`` on record files, with their exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from tests.engine.records import play_record

SEED = bytes.fromhex("ab" * 32)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("records")
    finished = play_record(SEED, 1)
    running = play_record(SEED, 1, stop_after=30)
    paths = {
        "finished": d / "finished.json",
        "running": d / "running.json",
        "bad_json": d / "bad.json",
        "illegal": d / "illegal.json",
        "tampered": d / "tampered.json",
    }
    paths["finished"].write_text(finished.dumps())
    paths["running"].write_text(running.dumps())
    paths["bad_json"].write_text("{ this is not a record")
    data = json.loads(finished.dumps())
    data["moves"] = [*data["moves"][:3], {"n": 4, "move": "sell 1 diamond"}]
    del data["result"]
    paths["illegal"].write_text(json.dumps(data))
    data = json.loads(finished.dumps())
    data["moves"][5]["move"] = "camels" if data["moves"][5]["move"] != "camels" else "take gold"
    paths["tampered"].write_text(json.dumps(data))
    return {k: str(v) for k, v in paths.items()}


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_replay_prints_the_result_and_position(files):
    result = run("replay", files["finished"])
    assert result.exit_code == 0, result.output
    assert "Finished:" in result.output and "wins" in result.output
    assert "Round 1:" in result.output
    assert "market:" in result.output


def test_replay_json_has_the_section_5_shape(files):
    result = run("replay", "--json", files["finished"])
    assert result.exit_code == 0
    out = json.loads(result.output)
    assert set(out) == {"result", "position"}
    assert set(out["position"]) == {
        "round",
        "to_move",
        "round_over",
        "hands",
        "herds",
        "market",
        "deck",
        "discard",
        "tokens",
        "bonus",
        "goods_tokens",
        "bonus_tokens",
        "seals",
    }
    assert out["result"]["status"] == "finished"
    assert out["position"]["to_move"] is None
    assert set(out["position"]["bonus"]) == {"3", "4", "5"}


def test_replay_exits_1_at_the_first_illegal_move_naming_it(files):
    result = run("replay", files["illegal"])
    assert result.exit_code == 1
    assert "illegal move 4" in result.output
    assert "diamond must be sold at least 2 at a time" in result.output


def test_replay_exits_2_on_a_file_that_is_not_a_record(files, tmp_path):
    assert run("replay", files["bad_json"]).exit_code == 2
    assert run("replay", str(tmp_path / "missing.json")).exit_code == 2
    assert run("moves", files["bad_json"]).exit_code == 2


def test_moves_lists_the_legal_moves_canonically(files):
    result = run("moves", files["running"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines and len(lines) == len(set(lines))
    from pbem.engine import parse_move

    assert all(str(parse_move(line)) == line for line in lines)


def test_moves_exits_1_when_the_game_is_over(files):
    assert run("moves", files["finished"]).exit_code == 1


def test_verify_passes_good_records_and_names_the_broken_check(files):
    ok = run("verify", files["finished"], files["running"])
    assert ok.exit_code == 0, ok.output
    assert ok.output.count("ok ") == 2
    bad = run("verify", files["finished"], files["tampered"])
    assert bad.exit_code == 1
    lines = bad.output.splitlines()
    assert lines[0].startswith("ok")
    assert lines[1].startswith("FAIL") and "chain" in lines[1]
    worse = run("verify", files["finished"], files["tampered"], files["bad_json"])
    assert worse.exit_code == 2  # a file that is not a record outranks a failed check
    third = worse.output.splitlines()[2]  # §5.1: not a record is not a failed check
    assert third.startswith("NOT A RECORD ") and "FAIL" not in third


def test_the_installed_command_runs_without_server_or_database(files):
    proc = subprocess.run(
        [sys.executable, "-m", "pbem", "verify", files["finished"]],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ok" in proc.stdout


@pytest.mark.parametrize(
    "content",
    ["[" * 6000, '{"format": "jaipur-record/2", "a": 1, "a": 2}', '{"n": 1' + "0" * 40 + "}"],
    ids=["nested brackets", "duplicate key", "huge number"],
)
def test_a_malformed_file_is_exit_2_with_one_line_for_every_tool(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    for command in ("replay", "moves", "verify", "reproduce"):
        proc = subprocess.run(
            [sys.executable, "-m", "pbem", command, str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        said = (proc.stdout + proc.stderr).strip()
        assert "Traceback" not in said and len(said.splitlines()) == 1, (command, said)
        if command == "verify":  # §5.1: its line names the verdict first
            assert said.startswith("NOT A RECORD ") and "FAIL" not in said, said
        else:
            assert "not a" in said  # "not a game record"


def test_a_running_games_file_verifies_and_says_what_it_could_not_check(tmp_path):
    running = json.loads(play_record(SEED, 1, stop_after=12).dumps())
    running["seed"] = None
    path = tmp_path / "running.json"
    path.write_text(json.dumps(running))
    result = run("verify", str(path))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok") and "not checked: the deal" in result.output


def test_replay_and_moves_read_no_move_text_liberally(files, tmp_path):
    """§3.4: a record is not read liberally, by ``replay`` and ``moves`` as by ``verify``."""
    data = json.loads(Path(files["running"]).read_text())
    data["moves"][-1]["move"] = data["moves"][-1]["move"].upper()
    path = tmp_path / "shouting.json"
    path.write_text(json.dumps(data))
    for command in ("replay", "moves"):
        result = run(command, str(path))
        assert result.exit_code == 1, (command, result.output)
        assert "not canonical" in result.output, (command, result.output)
    assert run("verify", str(path)).exit_code == 1  # its chain breaks there first


def test_verify_reports_every_file_even_after_one_that_is_no_text(files, tmp_path):
    path = tmp_path / "surrogate.json"
    path.write_text(Path(files["finished"]).read_text().replace('"move": "', '"move": "\\ud800', 1))
    result = run("verify", str(path), files["finished"])
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("NOT A RECORD ") and "surrogate" in lines[0]
    assert any(line.startswith("ok") for line in lines[1:])
    assert "Traceback" not in result.output
