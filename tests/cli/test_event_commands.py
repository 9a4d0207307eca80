"""``pbem event``: create, start, pair the next round by hand, export the record."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pbem import events as core
from pbem.cli import main

from .test_server_commands import cli_env  # noqa: F401  (the fixture)


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _account(address: str) -> None:
    from pbem.cli_env import ready_env
    from pbem.services.core.identity import player_for

    env = ready_env()
    with env.db.write() as session:
        player_for(session, address, address.split("@")[0], env.clock.now())


def test_create_start_pair_and_export_an_event(cli_env, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("PBEM_BASE_URL", "https://jaipur.example")
    assert run("db", "upgrade").exit_code == 0
    nobody = run("event", "create", "--organiser", "org@example.test", "--name", "Club night")
    assert nobody.exit_code == 2 and "no account has the address" in nobody.output
    _account("org@example.test")
    default = run("event", "create", "--organiser", "org@example.test", "--name", "Swiss night")
    assert default.exit_code == 0, default.output  # Swiss by default, its rounds too
    assert "page: https://jaipur.example/events/" in default.output
    made = run(
        "event",
        "create",
        "--organiser",
        "org@example.test",
        "--name",
        "Club night",
        "--format",
        "swiss",
        "--rounds",
        "1",
        "--players",
        "4",
        "--invitation",
    )
    assert made.exit_code == 0, made.output
    event_id = made.output.splitlines()[0]
    assert "commitment: " in made.output
    assert "invitation link: https://jaipur.example/events/" in made.output
    lonely = run("event", "start", event_id)
    assert "cancelled" in lonely.output  # nobody joined
    refused = run("event", "pair", event_id)
    assert refused.exit_code == 1 and "not running" in refused.output
    out = tmp_path / "event.json"
    assert run("event", "export", event_id, "--out", str(out)).exit_code == 0
    data = json.loads(out.read_text())
    assert data["format"] == core.EVENT_FORMAT and data["seed"] is not None  # cancelled
    assert core.verify_event(data).ok  # no round: cancelled before it started
    bad = run(
        "event",
        "create",
        "--organiser",
        "org@example.test",
        "--name",
        "<b>",
        "--format",
        "swiss",
        "--rounds",
        "2",
    )
    assert bad.exit_code == 1 and "Error" in bad.output


def test_pair_runs_the_next_round_once_the_games_ended(env, monkeypatch):
    from pbem.admin import events as commands
    from tests.events.services_play import new_event, resign, running_games

    public_id, _ = new_event(env, "clipair", 2, format="round-robin")
    monkeypatch.setattr("pbem.cli_env.ready_env", lambda: env)
    monkeypatch.setattr(commands, "ready_env", lambda: env, raising=False)
    result = CliRunner().invoke(main, ["event", "pair", public_id], catch_exceptions=False)
    assert "still has games running" in result.output
    for game, _ in running_games(env, public_id):
        resign(env, game, 0)
    result = CliRunner().invoke(main, ["event", "pair", public_id], catch_exceptions=False)
    assert "the event is over" in result.output
