"""``pbem db``: the database schema (Alembic migrations) and the application role's grants."""

from __future__ import annotations

import re
from typing import Any

import click

from ..cli_env import command_env


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
    from ..store import migrate

    env = command_env()  # reads a .env file too, so the setting may be there
    grant_to = grant_to or env.config.database_app_role or None
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


def _safe_url(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]+@", r"//\1:***@", url)
