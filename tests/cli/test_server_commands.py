"""The operator's commands: db upgrade, new-game, games, export, verify --game, demo."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pbem.cli import main


@pytest.fixture
def cli_env(monkeypatch, tmp_path, fresh_database):
    url = fresh_database()
    monkeypatch.setenv("PBEM_DATABASE_URL", url)
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("PBEM_ENV", "development")
    monkeypatch.chdir(tmp_path)
    return url


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_commands_refuse_an_unmigrated_database_naming_the_fix(cli_env):
    result = run("games")
    assert result.exit_code == 1
    assert "pbem db upgrade" in result.output


def test_new_game_export_verify_and_demo(cli_env):
    assert "database at revision" in run("db", "upgrade").output
    assert run("db", "upgrade").exit_code == 0  # idempotent
    result = run(
        "new-game",
        "--player",
        "Ada <ada@example.test>",
        "--player",
        "Bo <bo@example.test>",
        "--first",
        "1",
    )
    assert result.exit_code == 0, result.output
    game_id = result.output.splitlines()[0]
    assert "seat 0 link: http" in result.output
    listing = run("games").output
    assert game_id in listing and "Ada vs Bo" in listing

    # while the game runs, export withholds the record; the operator's --full has the seed
    assert run("export", game_id).exit_code == 1
    full = json.loads(run("export", game_id, "--full").output)
    assert full["seed"] and full["first_player"] == 1

    verified = run("verify", "--game", game_id)
    assert verified.exit_code == 0 and "ok" in verified.output
    assert run("verify", "--game", "nosuchgame").exit_code == 1
    assert run("verify").exit_code == 2

    demo = run("demo", "--moves", "4")
    assert demo.exit_code == 0
    assert "Ada's seat:" in demo.output and "/dev/inbox" in demo.output


def test_bad_player_text_is_a_clear_error(cli_env):
    run("db", "upgrade")
    result = run("new-game", "--player", "Ada", "--player", "Bo <bo@example.test>")
    assert result.exit_code == 2 and "Name <email" in result.output
    result = run("new-game", "--player", "Ada <not-an-email>", "--player", "Bo <bo@example.test>")
    assert result.exit_code == 1 and "does not look like an email" in result.output


def test_analyse_recomputes_finished_games_and_refuses_a_running_one(cli_env):
    from pbem.cli_env import ready_env
    from pbem.services.core import access
    from pbem.services.play import game_pages, moves

    run("db", "upgrade")
    created = run("new-game", "--player", "Ada <ada@example.test>", "--player", "Bo <bo@b.test>")
    game_id = created.output.splitlines()[0]
    refused = run("analyse", game_id)
    assert refused.exit_code == 1 and "still running" in refused.output
    assert run("analyse").exit_code == 2  # neither ids nor --all

    env = ready_env()
    seat = game_pages.public_page(env, game_id).view.table.to_move
    assert seat is not None
    moves.submit_move(env, game_pages.seat_tokens(env, game_id)[seat], 1, "resign", access.Client())
    done = run("analyse", "--all")
    assert done.exit_code == 0 and f"{game_id}: analysed" in done.output
    assert run("analyse", game_id).exit_code == 0
