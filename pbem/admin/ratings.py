"""``pbem ratings``: player ratings, derived from the finished games."""

from __future__ import annotations

import click

from ..cli_env import ready_env


def _counted(n: int, noun: str) -> str:
    """``1 game``, ``2 games``: the operator's commands speak English."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@click.group("ratings")
def ratings_group() -> None:
    """Player ratings (derived from finished games)."""


@ratings_group.command("rebuild")
def ratings_rebuild() -> None:
    """Recompute every rating from the finished games, in the order they finished."""
    from ..services.play import ratings

    count = ratings.rebuild(ready_env())
    click.echo(f"ratings rebuilt from {_counted(count, 'finished game')}")


@ratings_group.command("show")
def ratings_show() -> None:
    """The ratings table: rating (mu - 3 sigma, never below 0), mu ± 3 sigma, games."""
    from ..services.play import ratings

    for i, r in enumerate(ratings.table(ready_env()), start=1):
        click.echo(
            f"{i:>3}. {r.name:<30} {r.shown:6.1f}  {r.mu:5.1f} ± {ratings.spread(r.sigma):4.1f}"
            f"  {_counted(r.games, 'game')}"
        )
