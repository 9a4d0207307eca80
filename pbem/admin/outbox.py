"""``pbem outbox``: the mail waiting to be sent, failed or bounced, and sending one again."""

from __future__ import annotations

from datetime import datetime

import click

from ..cli_env import ready_env


def _no_words(about_n: int | None, pruned_at: datetime | None) -> str:
    if pruned_at is not None:
        return f"(words pruned {pruned_at:%Y-%m-%d})"
    return f"(of move {about_n}: written when sent)"


@click.group("outbox", invoke_without_command=True)
@click.option("--all", "show_all", is_flag=True, help="Also list mail already sent.")
@click.pass_context
def outbox_group(ctx: click.Context, show_all: bool) -> None:
    """List pending, sending, failed and bounced mail (`pbem outbox retry ID` sends one again)."""
    if ctx.invoked_subcommand is not None:
        return
    from ..clock import iso
    from ..services.mailing import outbox_admin

    rows = outbox_admin.listing(ready_env(), show_all=show_all)
    for r in rows:
        error = f"  [{r.last_error}]" if r.last_error else ""
        click.echo(
            f"{r.id:>6}  {r.status:<8} {r.attempts} tries  {iso(r.created_at)}  "
            f"{r.kind:<16} {r.to_addr}  {r.subject or _no_words(r.about_n, r.pruned_at)}{error}"
        )
    if not rows:
        click.echo("no pending, sending, failed or bounced mail" if not show_all else "no mail")


@outbox_group.command("retry")
@click.argument("row_id", type=int)
def outbox_retry(row_id: int) -> None:
    """Send outbox row ROW_ID again at the next delivery run."""
    from ..services.mailing import outbox_admin

    if not outbox_admin.retry(ready_env(), row_id):
        raise click.ClickException(f"no unsent outbox row {row_id}")
    click.echo(f"row {row_id} will be sent at the next delivery run")
