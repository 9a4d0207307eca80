"""``pbem event``: the operator's commands for events (create, start, pair, export)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime

import click

from ..cli_env import ready_env


@click.group("event")
def event_group() -> None:
    """Events (tournaments): create, start, pair the next round, export the record."""


@event_group.command("create")
@click.option("--organiser", required=True, help="The organiser's address (an account).")
@click.option("--name", required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["round-robin", "double-round-robin", "swiss", "elimination"]),
    default="swiss",
    show_default=True,
)
@click.option(
    "--rounds",
    type=int,
    default=None,
    help="Swiss only; by default ceil(log2 of --players).",
)
@click.option("--players", type=int, default=8, show_default=True, help="The most players.")
@click.option("--days", type=int, default=3, show_default=True, help="Days per move (0: none).")
@click.option("--start-at", default=None, help="Start at this UTC time (ISO); else when full.")
@click.option("--invitation", is_flag=True, help="Only with the invitation link.")
@click.option("--unrated", is_flag=True, help="The games do not count for the ratings.")
def create(
    organiser: str,
    name: str,
    fmt: str,
    rounds: int | None,
    players: int,
    days: int,
    start_at: str | None,
    invitation: bool,
    unrated: bool,
) -> None:
    """Create an event; prints its id, its commitment and, by invitation, its link."""
    from ..services.core.errors import ServiceError
    from ..services.core.identity import checked_email
    from ..services.events import lifecycle
    from ..store import players as player_rows

    env = ready_env()
    when = None
    if start_at:
        try:
            when = datetime.fromisoformat(start_at)
        except ValueError:
            raise click.BadParameter(
                "an ISO time, e.g. 2027-01-01T12:00", param_hint="--start-at"
            ) from None
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
    try:
        address = checked_email(organiser, "--organiser")
        with env.db.read() as session:
            account = player_rows.by_email(session, address)
            player_id = account.id if account is not None and account.erased_at is None else None
        if player_id is None:
            raise click.BadParameter(
                f"no account has the address {address}: its owner signs in once first",
                param_hint="--organiser",
            )
        created = lifecycle.create(
            env,
            player_id,
            lifecycle.EventSpec(
                name=name,
                format=fmt,
                days_per_move=days or None,
                max_players=players,
                start_mode="date" if when else "full",
                starts_at=when,
                rated=not unrated,
                access="invitation" if invitation else "open",
                rounds=rounds if fmt == "swiss" else None,
            ),
        )
    except ServiceError as exc:
        raise click.ClickException(str(exc.message)) from None
    click.echo(created.public_id)
    click.echo(f"commitment: {created.commitment}")
    click.echo(f"page: {env.event_url(created.public_id)}")
    if created.invitation:
        click.echo(
            f"invitation link: {env.event_url(created.public_id)}/invited/{created.invitation}"
        )


@event_group.command("start")
@click.argument("event_id")
def start(event_id: str) -> None:
    """Start an event now, with the players it has (cancelled with fewer than two)."""
    from ..services.core.errors import ServiceError
    from ..services.events import rounds

    try:
        paired = rounds.start(ready_env(), event_id)
    except ServiceError as exc:
        raise click.ClickException(str(exc.message)) from None
    click.echo(f"round {paired} paired" if paired else "cancelled: fewer than two players")


@event_group.command("pair")
@click.argument("event_id")
def pair(event_id: str) -> None:
    """End the current round if all its games ended, and pair the next one now (what the
    scheduler's events job does at its next run)."""
    from ..services.core.errors import ServiceError
    from ..services.events import rounds

    try:
        done = rounds.advance_event(ready_env(), event_id)
    except ServiceError as exc:
        raise click.ClickException(str(exc.message)) from None
    if done.finished:
        click.echo("the event is over: the final standings are mailed")
    elif done.rounds:
        click.echo("the next round is paired")
    else:
        click.echo("the current round still has games running")


@event_group.command("export")
@click.argument("event_id")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None)
def export(event_id: str, out: str | None) -> None:
    """Write the event record (jaipur-event/1) as JSON (to stdout, or --out)."""
    from ..services.core.errors import ServiceError
    from ..services.events import pages

    try:
        data = pages.record(ready_env(), event_id)
    except ServiceError as exc:
        raise click.ClickException(str(exc.message)) from None
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
        click.echo(f"written to {out}")
    else:
        sys.stdout.write(text)
