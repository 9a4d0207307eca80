"""Databases of one's own on a PostgreSQL server, for the tests and the load benchmark."""

from __future__ import annotations

import gc
import secrets
from collections.abc import Iterable

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url


def create_pg_database(server_url: str, prefix: str = "pbem_test", template: str = "") -> str:
    """A new database on the server of ``server_url``; returns its URL. Empty, or a copy of
    the database named ``template`` (which nobody may be connected to): copying a migrated
    database is much quicker than running every migration again."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    copy = f' TEMPLATE "{template}"' if template else ""
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"{copy}'))
    admin.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def drop_pg_database(server_url: str, url: str) -> None:
    name = make_url(url).database
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def dispose_engines_on(urls: Iterable[str]) -> None:
    """Close the pooled connections of every engine still alive on these databases.

    Dropping a database WITH (FORCE) cuts its connections; an engine a test left open
    (a command run in-process opens its own) then meets its cut connections when Python
    exits, and psycopg prints "server closed the connection" for each. Closed first, they
    end quietly."""
    names = {make_url(url).database for url in urls}
    gc.collect()  # engines only garbage still holds need no closing: they go now
    for engine in [o for o in gc.get_objects() if isinstance(o, Engine)]:
        if engine.url.database in names:
            engine.dispose()
