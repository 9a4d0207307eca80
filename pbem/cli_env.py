"""The Env a server command runs with, its setting and schema errors told as one line.

Each command module (``pbem.admin.*``, ``pbem.scheduler``, ``pbem.receiver``,
``pbem.web.commands``) calls these, so none of them repeats how a command turns a
missing setting or an old schema into a message instead of a traceback.
"""

from __future__ import annotations

import click

from . import redact
from .config import ConfigError, from_env
from .services.core.env import Env
from .store.db import SchemaError


def command_env() -> Env:
    """The Env of the process's configuration (a ``.env`` file included); from here on no
    log line of the process carries a secret (``pbem.redact``)."""
    redact.install()
    try:
        return Env.from_config(from_env())
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def ready_env() -> Env:
    """``command_env()`` on a database that has the newest schema."""
    env = command_env()
    try:
        env.db.check_schema()
    except SchemaError as exc:
        raise click.ClickException(str(exc)) from None
    return env
