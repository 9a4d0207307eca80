"""A game needs two players: the same address for both seats is refused, wherever a game
is created (the home page, the service the CLI and challenges call), and nothing is made."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from pbem.services.core.errors import InvalidInput
from pbem.services.play import new_games
from pbem.store.models import Game, OutboxMessage
from tests.helpers import csrf_of

REFUSAL = "The two players need two different email addresses"


def _counts(env) -> tuple[int, int]:
    """(games, mails) in the database, which other tests share."""
    with env.db.read() as session:
        return (
            session.scalar(select(func.count()).select_from(Game)),
            session.scalar(select(func.count()).select_from(OutboxMessage)),
        )


def test_the_home_page_refuses_one_address_for_both_seats(client, env):
    before = _counts(env)
    home = client.get("/")
    response = client.post(
        "/",
        data={
            "csrf_token": csrf_of(home.text),
            "my_name": "Ada",
            "my_email": "ada@example.test",
            "their_name": "Also Ada",
            "their_email": " ADA@Example.test ",  # the same player, however it is written
        },
    )
    assert response.status_code == 400
    assert REFUSAL in response.text
    assert 'value="Also Ada"' in response.text  # the form keeps what was typed
    assert _counts(env) == before  # nothing stored, nothing mailed


def test_the_service_refuses_it_for_every_caller(env):
    before = _counts(env)
    with pytest.raises(InvalidInput) as refused:
        new_games.create_game(
            env,
            (
                new_games.PlayerIn("Ada", "ada@example.test"),
                new_games.PlayerIn("Bo", "Ada@example.TEST"),
            ),
        )
    assert REFUSAL in str(refused.value.message)
    assert _counts(env) == before  # nothing stored, nothing mailed


def test_the_cli_refuses_it_with_a_clear_message(monkeypatch, tmp_path, fresh_database):
    from pbem.cli import main

    monkeypatch.setenv("PBEM_DATABASE_URL", fresh_database())
    monkeypatch.setenv("PBEM_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("PBEM_ENV", "development")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade"]).exit_code == 0
    result = runner.invoke(
        main,
        ["new-game", "--player", "Ada <ada@example.test>", "--player", "Bo <ada@example.test>"],
    )
    assert result.exit_code == 1
    assert REFUSAL in result.output
