"""The ``pbem`` command: the commands of every area, gathered here by name.

Each area's module defines its own commands: the record tools (``pbem.record_tools``,
only the engine and click), the operator's (``pbem.admin.*``), the web app's
(``pbem.web.commands``), the scheduler's and the inbound mail receiver's. This module
only says where each lives and imports it when it is asked for, so the offline checker,
installed without the server's dependencies, starts with click and the engine alone.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from . import __version__
from .record_tools import COMMANDS as RECORD_COMMANDS

#: Each server command's name, and the module and attribute that define it.
SERVER_COMMANDS: dict[str, str] = {
    "db": "pbem.admin.db:db_group",
    "new-game": "pbem.admin.games:new_game",
    "games": "pbem.admin.games:list_games",
    "export": "pbem.admin.games:export",
    "analyse": "pbem.admin.games:analyse",
    "serve": "pbem.web.commands:serve",
    "demo": "pbem.web.commands:demo",
    "view": "pbem.web.commands:view",
    "ratings": "pbem.admin.ratings:ratings_group",
    "scheduler": "pbem.scheduler:scheduler_command",
    "inbound": "pbem.receiver:inbound_command",
    "outbox": "pbem.admin.outbox:outbox_group",
    "event": "pbem.admin.events:event_group",
}

MISSING_SERVER = (
    "this command needs the server's dependencies ({name} is missing). "
    "This pbem was installed as the offline checker (verify, replay, moves); "
    "for the server, install pbem[server]."
)


def _missing(name: str, module: str) -> click.Command:
    """A stand-in for a server command whose module cannot be imported here."""

    def run() -> None:
        raise click.ClickException(MISSING_SERVER.format(name=module))

    return click.Command(name, callback=run, help="(needs pbem[server])")


class Commands(click.Group):
    """The command group; a server command run where only the checker was installed
    says what to install, instead of ending in a traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *SERVER_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in SERVER_COMMANDS:
            return super().get_command(ctx, cmd_name)
        module_name, attribute = SERVER_COMMANDS[cmd_name].split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if (exc.name or "pbem").split(".")[0] == "pbem":
                raise
            return _missing(cmd_name, exc.name or "a module")
        command: click.Command = getattr(module, attribute)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ModuleNotFoundError as exc:
            if (exc.name or "pbem").split(".")[0] == "pbem":
                raise
            raise click.ClickException(MISSING_SERVER.format(name=exc.name)) from None


@click.group(cls=Commands)
@click.version_option(__version__, prog_name="pbem")
def main() -> None:
    """pbem: play Jaipur by email, and replay and audit its games."""


for _command in RECORD_COMMANDS:
    main.add_command(_command)
