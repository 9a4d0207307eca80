"""The ``pbem`` command.

The offline audit tools are always there and import only the engine; the
server's commands are added by the modules that own them.
"""

from __future__ import annotations

import click

from . import __version__
from .offline import OFFLINE_COMMANDS
from .server_cli import SERVER_COMMANDS


@click.group()
@click.version_option(__version__, prog_name="pbem")
def main() -> None:
    """pbem: play Jaipur by email, and replay and audit its games."""


for _command in (*OFFLINE_COMMANDS, *SERVER_COMMANDS):
    main.add_command(_command)
