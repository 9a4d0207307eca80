"""The ``pbem`` command.

The offline audit tools are always there and import only the engine; the
server's commands are added by the modules that own them.
"""

from __future__ import annotations

from typing import Any

import click

from . import __version__
from .offline import OFFLINE_COMMANDS
from .server_cli import SERVER_COMMANDS


class Commands(click.Group):
    """The command group; a server command run where only the checker was installed
    says what to install, instead of ending in a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ModuleNotFoundError as exc:
            if (exc.name or "pbem").split(".")[0] == "pbem":
                raise
            raise click.ClickException(
                f"this command needs the server's dependencies ({exc.name} is missing). "
                "This pbem was installed as the offline checker (verify, replay, moves); "
                "for the server, install pbem[server]."
            ) from None


@click.group(cls=Commands)
@click.version_option(__version__, prog_name="pbem")
def main() -> None:
    """pbem: play Jaipur by email, and replay and audit its games."""


for _command in (*OFFLINE_COMMANDS, *SERVER_COMMANDS):
    main.add_command(_command)
