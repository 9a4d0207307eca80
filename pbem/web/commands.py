"""The web app's commands: ``pbem serve`` (development server), ``pbem demo`` (a game to
click through) and ``pbem view FILE`` (the replay viewer of one record, no database)."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import click

from ..cli_env import command_env, ready_env


def _served_here(env: Any, host: str, port: int) -> None:
    """Links in pages and mail point at the server on ``host:port``, unless PBEM_BASE_URL
    names another address (a proxy in front of it)."""
    if not env.config.base_url_given:
        env.config = env.config.with_(base_url=f"http://{host}:{port}")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True)
@click.option(
    "--no-mail",
    is_flag=True,
    help="Do not run the scheduler's jobs (mail, reminders) in this process.",
)
@click.option(
    "--demo",
    "with_demo",
    is_flag=True,
    help="Create a demo game first (as `pbem demo`), its links on this host and port.",
)
def serve(host: str, port: int, no_mail: bool, with_demo: bool) -> None:
    """The development server (production runs gunicorn: see deploy/)."""
    from ..store.db import SchemaError
    from . import create_app

    env = command_env()
    if not env.config.dev_mode:
        raise click.ClickException(
            "`pbem serve` is for development; in production run the app under a WSGI server, "
            "e.g. gunicorn 'pbem.web:create_app()'"
        )
    _served_here(env, host, port)
    try:
        app = create_app(env=env)
    except SchemaError as exc:
        raise click.ClickException(str(exc)) from None
    if with_demo:
        _make_demo(env, DEMO_MOVES)
    if not no_mail:  # development only: production runs `pbem scheduler` on its own
        from ..scheduler import start_in_background

        start_in_background(env)
    click.echo(
        f"Jaipur by mail on http://{host}:{port}/  (dev inbox: http://{host}:{port}/dev/inbox)"
    )
    app.run(host=host, port=port, debug=False, use_reloader=False)


DEMO_MOVES = 6


@click.command("demo")
@click.option(
    "--moves", "played", default=DEMO_MOVES, show_default=True, help="Random moves to play first."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Where `pbem serve` runs.")
@click.option("--port", default=5000, show_default=True, help="Where `pbem serve` runs.")
def demo(played: int, host: str, port: int) -> None:
    """Create a demo game between Ada and Bashir, play a few moves, print where to click."""
    env = ready_env()
    _served_here(env, host, port)
    _make_demo(env, played)


def _make_demo(env: Any, played: int) -> None:
    """The demo game: invitations queued and links printed for ``env``'s base URL."""
    from ..services.core import access
    from ..services.play import game_pages, moves, new_games

    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bashir", "bashir@example.test"),
        ),
    )
    rnd = random.Random()
    client = access.Client(ip="127.0.0.1", user_agent="pbem demo")
    done = 0
    for _ in range(played):
        tokens = game_pages.seat_tokens(env, created.public_id)
        for token in tokens:
            legal = game_pages.legal_moves(env, token)
            if legal:
                page = game_pages.seat_page(env, token, client)
                assert isinstance(page, game_pages.SeatPage)  # the demo's game is dealt at once
                moves.submit_move(env, token, page.next_n, rnd.choice(legal), client, source="cli")
                done += 1
                break
        else:
            break  # the game is over
    tokens = game_pages.seat_tokens(env, created.public_id)
    base = env.config.base_url
    click.echo(f"Demo game {created.public_id}: Ada vs Bashir, {done} moves played.")
    click.echo(f"  Ada's seat:     {env.seat_url(tokens[0])}")
    click.echo(f"  Bashir's seat:  {env.seat_url(tokens[1])}")
    click.echo(f"  public page:    {env.game_url(created.public_id)}")
    click.echo(f"  dev inbox:      {base}/dev/inbox")


@click.command("view")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5050, show_default=True)
def view(file: str, host: str, port: int) -> None:
    """Serve the replay viewer for a record FILE (no server setup, no database)."""
    from ..services.core.errors import ServiceError
    from . import create_app

    try:
        data = Path(file).read_bytes()
    except OSError as exc:
        click.echo(f"{file}: cannot read it: {exc.strerror}", err=True)
        sys.exit(2)
    try:
        app = create_app(record=data)
    except ServiceError as exc:
        click.echo(f"{file}: {exc.message}", err=True)
        sys.exit(2)
    click.echo(f"Replay of {file}: http://{host}:{port}/  (Ctrl+C stops it)")
    app.run(host=host, port=port, debug=False, use_reloader=False)


COMMANDS = (serve, demo, view)
