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
@click.option(
    "--grant",
    "grant_to",
    metavar="ROLE",
    help="Then run `pbem db grant ROLE` (default: $PBEM_DATABASE_APP_ROLE, if set).",
)
def db_upgrade(revision: str, grant_to: str | None) -> None:
    """Bring the database to the newest schema (safe to run at every start).

    Run it as the tables' owner. With a role to grant to, a new table gets that role's
    privileges in the same step, so an upgrade cannot leave the application locked out.
    """
    from .store import migrate
    from .store.roles import APP_ROLE_SETTING

    env = _env()  # reads a .env file too, so the setting may be there
    grant_to = grant_to or os.environ.get(APP_ROLE_SETTING) or None
    env.config.instance_path.mkdir(parents=True, exist_ok=True)
    migrate.upgrade(env.db.engine, revision)
    click.echo(
        f"database at revision {migrate.current_revision(env.db.engine)}: "
        f"{_safe_url(env.config.database_url)}"
    )
    if grant_to:
        _grant(env, grant_to)


@db_group.command("grant")
@click.argument("role")
def db_grant(role: str) -> None:
    """Give ROLE, the PostgreSQL role the application runs as, exactly what it needs.

    SELECT and INSERT on the move log and the access log and nothing more there, so the
    application cannot rewrite a game or switch off the triggers that keep it
    append-only. Run it as the tables' owner after every upgrade (idempotent), or let
    `pbem db upgrade` do it by setting PBEM_DATABASE_APP_ROLE.
    """
    _grant(_env(), role)


def _grant(env: Any, role: str) -> None:
    from .store.roles import GrantError, grant

    try:
        granted = grant(env.db.engine, role)
    except GrantError as exc:
        raise click.ClickException(str(exc)) from None
    for table, privileges in granted.tables.items():
        click.echo(f"{role} on {table}: {', '.join(privileges)}")
    click.echo(f"{role} on sequences: USAGE on {', '.join(granted.sequences)}")
    for note in granted.notes:
        click.echo(f"note: {note}", err=True)


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


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True)
@click.option(
    "--no-mail",
    is_flag=True,
    help="Do not run the scheduler's jobs (mail, reminders) in this process.",
)
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
    if not no_mail:  # development only: production runs `pbem scheduler` on its own
        from .scheduler import start_in_background

        start_in_background(env)
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
    done = 0
    for _ in range(played):
        tokens = games.seat_tokens(env, created.public_id)
        for token in tokens:
            legal = games.legal_moves(env, token)
            if legal:
                page = games.seat_page(env, token, client)
                moves.submit_move(env, token, page.next_n, rnd.choice(legal), client, source="cli")
                done += 1
                break
        else:
            break  # the game is over
    tokens = games.seat_tokens(env, created.public_id)
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
    import sys
    from pathlib import Path

    from .services.errors import ServiceError
    from .web.viewer import create_viewer_app

    try:
        data = Path(file).read_bytes()
    except OSError as exc:
        click.echo(f"{file}: cannot read it: {exc.strerror}", err=True)
        sys.exit(2)
    try:
        app = create_viewer_app(data)
    except ServiceError as exc:
        click.echo(f"{file}: {exc.message}", err=True)
        sys.exit(2)
    click.echo(f"Replay of {file}: http://{host}:{port}/  (Ctrl+C stops it)")
    app.run(host=host, port=port, debug=False, use_reloader=False)


@click.group("ratings")
def ratings_group() -> None:
    """Player ratings (derived from finished games)."""


@ratings_group.command("rebuild")
def ratings_rebuild() -> None:
    """Recompute every rating from the finished games, in the order they finished."""
    from .services import ratings

    count = ratings.rebuild(_ready_env())
    click.echo(f"ratings rebuilt from {count} finished games")


@ratings_group.command("show")
def ratings_show() -> None:
    """The ratings table: conservative rating (mu - 3 sigma), mu ± 3 sigma, games."""
    from .services import ratings

    for i, r in enumerate(ratings.table(_ready_env()), start=1):
        click.echo(
            f"{i:>3}. {r.name:<30} {r.ordinal:6.1f}  {r.mu:5.1f} ± {3 * r.sigma:4.1f}"
            f"  {r.games} games"
        )


@click.command("scheduler")
def scheduler() -> None:
    """Run the jobs: deliver mail, remind, warn, time out, digests (one process of its own)."""
    import logging

    from .scheduler import run_forever

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    env = _ready_env()
    click.echo(f"pbem scheduler: mail by {env.config.mail_backend}; Ctrl+C stops it")
    run_forever(env)


@click.command("inbound")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8025, show_default=True)
@click.option("--lmtp", is_flag=True, help="Speak LMTP (as Postfix's lmtp transport wants).")
def inbound(host: str, port: int, lmtp: bool) -> None:
    """Receive replies over SMTP or LMTP and play the moves they carry."""
    import logging

    from .mail.receiver import ReceiverController

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    env = _ready_env()
    controller = ReceiverController(env, host, port, lmtp=lmtp)
    controller.start()
    click.echo(
        f"pbem inbound: {'LMTP' if lmtp else 'SMTP'} on {host}:{port} for "
        f"{env.config.reply_to('*')}; Ctrl+C stops it"
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        controller.stop()


def _unwritten(about_n: int | None) -> str:
    return f"(of move {about_n}: written when sent)"


@click.group("outbox", invoke_without_command=True)
@click.option("--all", "show_all", is_flag=True, help="Also list mail already sent.")
@click.pass_context
def outbox_group(ctx: click.Context, show_all: bool) -> None:
    """List pending and failed mail (`pbem outbox retry ID` sends one again)."""
    if ctx.invoked_subcommand is not None:
        return
    from .clock import iso
    from .mail import outbox

    env = _ready_env()
    statuses = None if show_all else ("pending", "failed")
    with env.db.read() as session:
        rows = outbox.recent(session, 500, statuses)
        for r in rows:
            error = f"  [{r.last_error}]" if r.last_error else ""
            click.echo(
                f"{r.id:>6}  {r.status:<8} {r.attempts} tries  {iso(r.created_at)}  "
                f"{r.kind:<16} {r.to_addr}  {r.subject or _unwritten(r.about_n)}{error}"
            )
        if not rows:
            click.echo("no pending or failed mail" if not show_all else "no mail")


@outbox_group.command("retry")
@click.argument("row_id", type=int)
def outbox_retry(row_id: int) -> None:
    """Send outbox row ROW_ID again at the next delivery run."""
    from .mail import outbox

    env = _ready_env()
    with env.db.write() as session:
        row = outbox.retry(session, row_id, env.clock.now())
        if row is None:
            raise click.ClickException(f"no unsent outbox row {row_id}")
    click.echo(f"row {row_id} will be sent at the next delivery run")


SERVER_COMMANDS = (
    db_group,
    new_game,
    list_games,
    export,
    serve,
    demo,
    view,
    ratings_group,
    scheduler,
    inbound,
    outbox_group,
)

if __name__ == "__main__":  # pragma: no cover
    sys.exit("run `pbem`")
