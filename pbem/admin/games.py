"""The operator's game commands: ``pbem new-game``, ``pbem games``, ``pbem export``,
``pbem analyse``, and ``pbem verify --game`` (stored games; the file checks are in
``pbem.record_tools``)."""

from __future__ import annotations

import json
import re
from typing import Any

import click

from ..cli_env import ready_env
from ..engine.record import RECORD_FORMAT

PLAYER = re.compile(r"^\s*(?P<name>[^<>]+?)\s*<(?P<email>[^<>]+)>\s*$")


def _player(text: str) -> Any:
    from ..services.play.new_games import PlayerIn

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
    from ..services.core.errors import ServiceError
    from ..services.play import new_games

    if len(players) != 2:
        raise click.UsageError("give --player exactly twice")
    env = ready_env()
    try:
        created = new_games.create_game(
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
    from ..clock import iso
    from ..services.play import game_pages

    for g in game_pages.list_games(ready_env(), limit):
        flag = f"  FLAGGED: {g.integrity_error}" if g.integrity_error else ""
        click.echo(
            f"{g.public_id}  {iso(g.created_at)}  {g.status:<11}  {g.moves:>4} moves  "
            f"{g.names[0]} vs {g.names[1]}{flag}"
        )


@click.command("export", help=f"Print a game's record ({RECORD_FORMAT}).")
@click.argument("game_id")
@click.option(
    "--full",
    is_flag=True,
    help="Include the seed even while the game runs "
    "(operator's audit copy; never give it to a player).",
)
def export(game_id: str, full: bool) -> None:
    from ..services.core.errors import ServiceError
    from ..services.records import game_records

    env = ready_env()
    try:
        data = (
            game_records.operator_record(env, game_id)
            if full
            else game_records.export_record(env, game_id)
        )
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(json.dumps(data, indent=1, ensure_ascii=False))


def verify_stored(game_id: str) -> bool:
    """``pbem verify --game ID``: verify a stored game and flag it if its log is broken."""
    from ..services.core.errors import ServiceError
    from ..services.records import game_records

    try:
        report = game_records.verify_game(ready_env(), game_id)
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


@click.command("analyse")
@click.argument("game_ids", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every finished game.")
def analyse(game_ids: tuple[str, ...], every: bool) -> None:
    """Compute the analysis of finished games again (the scheduler's ``analyse`` job does
    new ones by itself). A game that still runs is refused: it has no analysis."""
    from ..services.core.errors import ServiceError
    from ..services.records import analysis

    if bool(game_ids) == every:
        raise click.UsageError("give game ids, or --all")

    def said(public_id: str, done: int, total: int) -> None:
        click.echo(f"{public_id}: {done} of {total} moves", err=True)

    try:
        done = analysis.recompute(ready_env(), None if every else list(game_ids), said)
    except ServiceError as exc:
        raise click.ClickException(exc.message) from None
    for public_id in done:
        click.echo(f"{public_id}: analysed")
