"""``pbem reproduce``: a finished game's computer moves played again from its record file,
with its exit codes (0 all played again and the same, 1 a failed check, 2 nothing to play
again, 3 the same as far as played again, some not)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from pbem import ai
from pbem.cli import main
from tests.ai.games import COMPUTER, computer_game
from tests.engine.records import play_record


@pytest.fixture(scope="module")
def record():
    return computer_game().to_json()


def write(tmp_path, data) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    return str(path)


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_finished_games_computer_moves_are_played_again_the_same(tmp_path, record):
    moves = [m["n"] for m in record["moves"] if m["seat"] == COMPUTER]
    result = run("reproduce", write(tmp_path, record))
    assert result.exit_code == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ok ") and "hold" in lines[0]  # verified first
    assert lines[1] == (
        f"ok   {tmp_path / 'game.json'}: the computer (seat 1, easy): all {len(moves)} of its "
        f"moves played again by {ai.VERSION}, the same"
    )


def test_the_installed_command_runs_offline(tmp_path, record):
    proc = subprocess.run(
        [sys.executable, "-m", "pbem", "reproduce", write(tmp_path, record)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "played again by" in proc.stdout and "the same" in proc.stdout


def test_a_level_named_wrong_is_a_failure_naming_the_move(tmp_path, record):
    data = {**record, "computer": {**record["computer"], "level": "strong"}}
    result = run("reproduce", write(tmp_path, data))
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and "named 'Computer (easy)', not 'Computer (strong)'" in (
        result.output
    )
    # the name edited as well: the moves say it
    data["players"] = [{"seat": 0, "name": "Ada"}, {"seat": 1, "name": "Computer (strong)"}]
    result = run("reproduce", write(tmp_path, data))
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and "the record has" in result.output
    assert "(seat 1, strong), move" in result.output and f"{ai.VERSION} plays" in result.output
    assert "which no hash binds" in result.output


def test_moves_of_another_program_are_listed_not_judged_exit_3(tmp_path, record):
    moves = record["computer"]["programs"][0]["moves"]
    programs = [
        {"program": None, "moves": moves[:2]},
        {"program": "pbem-ai/1", "moves": moves[2:4]},
        {"program": ai.VERSION, "moves": moves[4:]},
    ]
    data = {**record, "computer": {**record["computer"], "programs": programs}}
    path = write(tmp_path, data)
    result = run("reproduce", path)
    assert result.exit_code == 3, result.output
    assert result.stdout.splitlines()[1] == (
        f"PART {path}: the computer (seat 1, easy): {len(moves) - 4} of its {len(moves)} "
        f"moves played again by {ai.VERSION}, the same; 4 not played again"
    )
    assert f"not played again: moves {moves[0]}, {moves[1]} (no program named; " in result.stdout
    assert f"not played again: moves {moves[2]}, {moves[3]} ('pbem-ai/1'; " in result.stdout
    assert "--assume-program" in result.stderr
    # the person checking says the unnamed ones are this program's
    result = run("reproduce", "--assume-program", ai.VERSION, path)
    assert result.exit_code == 3 and f"{len(moves) - 2} of its" in result.stdout
    # none of them this version's: nothing was played again, said so (exit 2)
    programs = [{"program": None, "moves": moves}]
    data = {**record, "computer": {**record["computer"], "programs": programs}}
    result = run("reproduce", write(tmp_path, data))
    assert result.exit_code == 2
    assert "no program named" in result.stdout
    assert f"cannot reproduce: {ai.VERSION} chose none of its moves" in result.stderr


@pytest.mark.parametrize("edit", ["left out", "unnamed after named"])
def test_a_field_that_contradicts_the_record_fails(tmp_path, record, edit):
    moves = record["computer"]["programs"][0]["moves"]
    if edit == "left out":  # a move the server would hide from the check
        programs = [{"program": ai.VERSION, "moves": [n for n in moves if n != moves[3]]}]
    else:
        programs = [
            {"program": ai.VERSION, "moves": [n for n in moves if n != moves[3]]},
            {"program": None, "moves": [moves[3]]},
        ]
    data = {**record, "computer": {**record["computer"], "programs": programs}}
    result = run("reproduce", write(tmp_path, data))
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[-1].startswith("FAIL") and f"move {moves[3]}" in result.stdout


def test_a_tampered_log_fails_verification_before_anything_is_played(tmp_path, record):
    data = json.loads(json.dumps(record))
    data["moves"][4]["move"] = "camels" if data["moves"][4]["move"] != "camels" else "take gold"
    result = run("reproduce", write(tmp_path, data))
    assert result.exit_code == 1
    assert result.stdout.startswith("FAIL") and "played again" not in result.stdout


@pytest.mark.parametrize(
    "which",
    ["no computer", "running", "running with its seed", "bad field"],
)
def test_nothing_to_reproduce_is_exit_2_with_a_reason(tmp_path, record, which):
    if which == "no computer":
        data = json.loads(play_record(bytes(range(32)), 4).dumps())
        says = "no computer field"
    elif which == "running":
        data = {**record, "seed": None}
        data.pop("result")
        says = "not a finished game's record"
    elif which == "running with its seed":  # the operator's copy of a running game
        data = {k: v for k, v in record.items() if k != "result"}
        says = "not a finished game's record"
    else:
        data = {**record, "computer": {**record["computer"], "seat": "1"}}
        says = "seat is not 0 or 1"
    result = run("reproduce", write(tmp_path, data))
    assert result.exit_code == 2, result.output
    assert says in result.stderr and "Traceback" not in result.stdout + result.stderr


def test_a_file_name_cannot_forge_a_line(tmp_path, record):
    """A name with a line break is shown quoted, so no line of the answer starts as it likes."""
    data = {**record, "computer": {**record["computer"], "level": "strong"}}
    path = tmp_path / "x\nok   all fine.json"
    path.write_text(json.dumps(data))
    result = run("reproduce", str(path))
    assert result.exit_code == 1
    assert not any(line.startswith("ok   all fine") for line in result.output.splitlines())
    assert "\\nok   all fine.json" in result.output


def test_an_assumed_program_is_named_with_the_moves_it_left_unplayed(tmp_path, record):
    moves = record["computer"]["programs"][0]["moves"]
    programs = [
        {"program": None, "moves": moves[:2]},
        {"program": ai.VERSION, "moves": moves[2:]},
    ]
    data = {**record, "computer": {**record["computer"], "programs": programs}}
    result = run("reproduce", "--assume-program", "pbem-ai/1", write(tmp_path, data))
    assert result.exit_code == 3
    assert "(no program named, taken as 'pbem-ai/1'; this is" in result.stdout
