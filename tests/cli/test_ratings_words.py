"""``pbem ratings`` counts games in words that agree with the number (issue 32, finding 8)."""

from __future__ import annotations

from click.testing import CliRunner

from pbem.cli import main
from pbem.services.core import access
from pbem.services.play import moves, new_games
from tests.support import own_database

database_url, database = own_database("function")


def _cli(env, *args: str) -> str:
    result = CliRunner().invoke(
        main,
        list(args),
        env={
            "PBEM_DATABASE_URL": env.config.database_url,
            "PBEM_INSTANCE_PATH": str(env.config.instance_path),
        },
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_one_game_is_one_game(env):
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
    )
    moves.resign(env, created.tokens[0], 1, access.Client())  # a finished, rated game
    shown = _cli(env, "ratings", "show")
    assert shown.count("  1 game\n") == 2 and "1 games" not in shown
    assert _cli(env, "ratings", "rebuild") == "ratings rebuilt from 1 finished game\n"
