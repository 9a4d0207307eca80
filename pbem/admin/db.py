"""``pbem db``: the database schema (Alembic migrations), the application role's grants, and
the copy of every table into a new database (growing from SQLite to PostgreSQL)."""

from __future__ import annotations

from typing import Any

import click

from ..cli_env import command_env
from ..store.db import safe_url


@click.group("db")
def db_group() -> None:
    """The database: its schema (Alembic migrations), grants, and a copy into a new one."""


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
    from ..store import migrate

    env = command_env()  # reads a .env file too, so the setting may be there
    grant_to = grant_to or env.config.database_app_role or None
    env.config.instance_path.mkdir(parents=True, exist_ok=True)
    migrate.upgrade(env.db.engine, revision)
    click.echo(
        f"database at revision {migrate.current_revision(env.db.engine)}: "
        f"{safe_url(env.config.database_url)}"
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
    _grant(command_env(), role)


def _grant(env: Any, role: str) -> None:
    from ..store.roles import GrantError, grant

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
    from ..store import migrate

    env = command_env()
    migrate.downgrade(env.db.engine, revision)
    click.echo(f"database at revision {migrate.current_revision(env.db.engine)}")


@db_group.command("copy")
@click.option(
    "--to",
    "target_url",
    required=True,
    metavar="URL",
    help="The new database, e.g. postgresql+psycopg://pbem@db.example/pbem (empty, or set up "
    "by `pbem db upgrade` and unused).",
)
@click.option(
    "--grant",
    "grant_to",
    metavar="ROLE",
    help="Then run `pbem db grant ROLE` on the new database (PostgreSQL).",
)
def db_copy(target_url: str, grant_to: str | None) -> None:
    """Copy every table of this database (PBEM_DATABASE_URL) into a new one, ids kept, then
    verify every game's chain and replay there.

    Stop the web app, the scheduler and the mail receiver first, so nothing changes while
    it copies. The target is migrated to the same schema first if it has no tables; one
    with rows, or at another revision, is refused. Exit 1 if any game fails to verify
    in the copy (the failing game is flagged there).
    """
    from ..store import copy as db_copy_rows

    env = command_env()
    try:
        db_copy_rows.check_exists(env.config.database_url)
        source = db_copy_rows.open_engine(env.config.database_url)
        target = db_copy_rows.open_engine(target_url)
        if db_copy_rows.same_database(env.config.database_url, target_url):
            raise db_copy_rows.CopyRefused("the target is the source database itself")
        copied = _copied(source, target)
    except db_copy_rows.CopyRefused as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        env.db.dispose()
    shown = safe_url(target_url)
    if copied.migrated:
        click.echo(f"{shown}: it had no tables; migrated to the source's revision first")
    click.echo(f"copied {sum(copied.rows.values())} rows into {shown}")
    target_env = _env_on(env, target_url)
    if grant_to:
        _grant(target_env, grant_to)
    failed = _verify_all(target_env, db_copy_rows.game_ids(target_env.db.engine))
    target_env.db.dispose()
    if failed:
        raise click.ClickException(f"{failed} game(s) failed to verify in the copy")


def _copied(source: Any, target: Any) -> Any:
    """The copy, its progress told per table; a database's error is told in one line."""
    from sqlalchemy.exc import DBAPIError

    from ..store import copy as db_copy_rows

    def said(table: str, rows: int) -> None:
        click.echo(f"{table}: {rows} rows", err=True)

    try:
        return db_copy_rows.copy(source, target, said)
    except DBAPIError as exc:  # refused, unreachable, locked: the target's transaction rolled back
        raise db_copy_rows.CopyRefused(
            f"the copy stopped and wrote no rows: {str(exc.orig).strip()}"
        ) from None
    finally:
        source.dispose()
        target.dispose()


def _env_on(env: Any, url: str) -> Any:
    """The command's Env, on the database at ``url`` instead."""
    from ..services.core.env import Env

    return Env.from_config(env.config.with_(database_url=url), clock=env.clock)


def _verify_all(env: Any, public_ids: list[str]) -> int:
    """Verify every game (chain, replay, positions, status) as `pbem verify --game` does,
    which flags a game that fails; one line per flagged game and a summary. Returns how
    many are flagged."""
    from ..services.records import game_records as records
    from ..store.copy import flagged

    for public_id in public_ids:
        records.verify_game(env, public_id)
    failed = flagged(env.db.engine)
    for public_id, reason in failed.items():
        click.echo(f"FAIL game {public_id}: {reason}")
    ok = len(public_ids) - len(failed)
    click.echo(f"verified {ok} of {len(public_ids)} games in the copy: chain and replay hold")
    return len(failed)
