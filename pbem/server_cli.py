"""The server's commands: database, games, the development server and the demo.

Imports of the web and store layers happen inside the commands, so the offline
audit tools start without them.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import threading
import time
from typing import Any

import click

PLAYER = re.compile(r"^\s*(?P<name>[^<>]+?)\s*<(?P<email>[^<>]+)>\s*$")


def _env() -> Any:
    from .config import ConfigError, from_env
    from .services.env import Env

    try:
        return Env.from_config(from_env())
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def _ready_env() -> Any:
    from .store.db import SchemaError

    env = _env()
    try:
        env.db.check_schema()
    except SchemaError as exc:
        raise click.ClickException(str(exc)) from None
    return env


@click.group("db")
def db_group() -> None:
    """The database schema (Alembic migrations)."""


@db_group.command("upgrade")
@click.option("--revision", default="head", show_default=True)
def db_upgrade(revision: str) -> None:
    """Bring the database to the newest schema (safe to run at every start)."""
    from .store import migrate

    env = _env()
    env.config.instance_path.mkdir(parents=True, exist_ok=True)
    migrate.upgrade(env.db.engine, revision)
    click.echo(
        f"database at revision {migrate.current_revision(env.db.engine)}: "
        f"{_safe_url(env.config.database_url)}"
    )


@db_group.command("downgrade")
@click.argument("revision")
def db_downgrade(revision: str) -> None:
    """Step the schema back to REVISION ('base' drops every table)."""
    from .store import migrate

    env = _env()
    migrate.downgrade(env.db.engine, revision)
    click.echo(f"database at revision {migrate.current_revision(env.db.engine)}")


def _safe_url(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]+@", r"//\1:***@", url)


def _player(text: str) -> Any:
    from .services.games import PlayerIn

    m = PLAYER.match(text)
    if not m:
        raise click.BadParameter(f"{text!r}: write it as 'Name <email@example.com>'")
    return PlayerIn(m["name"], m["email"])


@click.command("new-game")
@click.option(
    "--player",
    "players",
    multiple=True,
    required=True,
    help="'Name <email>'; give it twice, seat 0 first.",
)
@click.option(
    "--first",
    type=click.IntRange(0, 1),
    default=None,
    help="The seat that starts (default: drawn from the seed).",
)
def new_game(players: tuple[str, ...], first: int | None) -> None:
    """Create a game and invite both players."""
    from .services import games
    from .services.errors import ServiceError

    if len(players) != 2:
        raise click.UsageError("give --player exactly twice")
    env = _ready_env()
    try:
        created = games.create_game(
            env, (_player(players[0]), _player(players[1])), first_player=first
        )
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(created.public_id)
    click.echo(f"commitment: {created.commitment}", err=True)
    if env.config.dev_mode:
        for seat, token in enumerate(created.tokens):
            click.echo(f"seat {seat} link: {env.seat_url(token)}", err=True)


@click.command("games")
@click.option("--limit", default=50, show_default=True)
def list_games(limit: int) -> None:
    """The newest games, one per line."""
    from .clock import iso
    from .services import games

    for g in games.list_games(_ready_env(), limit):
        flag = f"  FLAGGED: {g.integrity_error}" if g.integrity_error else ""
        click.echo(
            f"{g.public_id}  {iso(g.created_at)}  {g.status:<11}  {g.moves:>4} moves  "
            f"{g.names[0]} vs {g.names[1]}{flag}"
        )


@click.command("export")
@click.argument("game_id")
@click.option(
    "--full",
    is_flag=True,
    help="Include the seed even while the game runs "
    "(operator's audit copy; never give it to a player).",
)
def export(game_id: str, full: bool) -> None:
    """Print a game's record (jaipur-record/1)."""
    from .services import records
    from .services.errors import ServiceError

    env = _ready_env()
    try:
        data = (
            records.operator_record(env, game_id) if full else records.export_record(env, game_id)
        )
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(json.dumps(data, indent=1, ensure_ascii=False))


def verify_stored(game_id: str) -> bool:
    """``pbem verify --game ID``: verify a stored game and flag it if its log is broken."""
    from .services import records
    from .services.errors import ServiceError

    try:
        report = records.verify_game(_ready_env(), game_id)
    except ServiceError as exc:
        click.echo(f"FAIL game {game_id}: {exc.message}")
        return False
    if report.ok:
        click.echo(f"ok   game {game_id}: {', '.join(c.name for c in report.checks)} hold")
        return True
    failed = report.first_failure
    detail = f"{failed.name}: {failed.detail}" if failed else "status differs from the replay"
    click.echo(f"FAIL game {game_id}: {detail} (the game is now flagged)")
    return False


def _deliver_forever(env: Any, interval: float) -> None:
    from .mail.delivery import backend_for, deliver_due

    backend = backend_for(env.config)
    while True:
        try:
            deliver_due(env.db, env.clock, backend, env.config.mail_from)
        except Exception as exc:  # keep the development loop alive; report and go on
            click.echo(f"mail delivery failed: {exc}", err=True)
        time.sleep(interval)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True)
@click.option("--no-mail", is_flag=True, help="Do not deliver the outbox in this process.")
def serve(host: str, port: int, no_mail: bool) -> None:
    """The development server (production runs gunicorn: see deploy/)."""
    from .store.db import SchemaError
    from .web import create_app

    env = _env()
    if not env.config.dev_mode:
        raise click.ClickException(
            "`pbem serve` is for development; in production run the app under a WSGI server, "
            "e.g. gunicorn 'pbem.web:create_app()'"
        )
    if not os.environ.get("PBEM_BASE_URL"):  # links in mail point at this very server
        env.config = env.config.with_(base_url=f"http://{host}:{port}")
    try:
        app = create_app(env=env)
    except SchemaError as exc:
        raise click.ClickException(str(exc)) from None
    if not no_mail:
        threading.Thread(target=_deliver_forever, args=(env, 2.0), daemon=True).start()
    click.echo(
        f"Jaipur by mail on http://{host}:{port}/  (dev inbox: http://{host}:{port}/dev/inbox)"
    )
    app.run(host=host, port=port, debug=False, use_reloader=False)


@click.command("demo")
@click.option("--moves", "played", default=6, show_default=True, help="Random moves to play first.")
def demo(played: int) -> None:
    """Create a demo game between Ada and Bashir, play a few moves, print where to click."""
    from .services import games, log, moves

    env = _ready_env()
    created = games.create_game(
        env,
        (
            games.PlayerIn("Ada", "ada@example.test"),
            games.PlayerIn("Bashir", "bashir@example.test"),
        ),
    )
    rnd = random.Random()
    client = log.Client(ip="127.0.0.1", user_agent="pbem demo")
    for _ in range(played):
        tokens = games.seat_tokens(env, created.public_id)
        for token in tokens:
            legal = games.legal_moves(env, token)
            if legal:
                page = games.seat_page(env, token, client)
                moves.submit_move(env, token, page.next_n, rnd.choice(legal), client, source="cli")
                break
    tokens = games.seat_tokens(env, created.public_id)
    base = env.config.base_url
    click.echo(f"Demo game {created.public_id}: Ada vs Bashir, {played} moves played.")
    click.echo(f"  Ada's seat:     {env.seat_url(tokens[0])}")
    click.echo(f"  Bashir's seat:  {env.seat_url(tokens[1])}")
    click.echo(f"  public page:    {env.game_url(created.public_id)}")
    click.echo(f"  dev inbox:      {base}/dev/inbox")


SERVER_COMMANDS = (db_group, new_game, list_games, export, serve, demo)

if __name__ == "__main__":  # pragma: no cover
    sys.exit("run `pbem`")
