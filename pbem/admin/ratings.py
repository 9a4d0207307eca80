"""``pbem ratings``: player ratings, derived from the finished games."""

from __future__ import annotations

import click

from ..cli_env import ready_env


@click.group("ratings")
def ratings_group() -> None:
    """Player ratings (derived from finished games)."""


@ratings_group.command("rebuild")
def ratings_rebuild() -> None:
    """Recompute every rating from the finished games, in the order they finished."""
    from ..services import ratings

    count = ratings.rebuild(ready_env())
    click.echo(f"ratings rebuilt from {count} finished games")


@ratings_group.command("show")
def ratings_show() -> None:
    """The ratings table: rating (mu - 3 sigma, never below 0), mu ± 3 sigma, games."""
    from ..services import ratings

    for i, r in enumerate(ratings.table(ready_env()), start=1):
        click.echo(
            f"{i:>3}. {r.name:<30} {r.shown:6.1f}  {r.mu:5.1f} ± {3 * r.sigma:4.1f}"
            f"  {r.games} games"
        )
