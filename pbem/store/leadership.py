"""The scheduler's advisory lock on PostgreSQL, taken and let go on a connection of its own.

A session advisory lock lives as long as the connection that took it: if the active
scheduler dies, its connection closes, the lock is released and a standby takes it
within seconds (``pbem/leadership.py``; on SQLite that module uses a file lock).
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, text

#: The advisory lock's key: any number the application uses for nothing else.
LOCK_KEY = 0x7061656D  # "paem"

_TRY_LOCK = text("SELECT pg_try_advisory_lock(:k)")
_UNLOCK = text("SELECT pg_advisory_unlock(:k)")
_PING = text("SELECT 1")


def try_lock(engine: Engine) -> Connection | None:
    """The lock's own connection, holding the lock; None (and no connection) if another has it."""
    connection = engine.connect()
    got = connection.execute(_TRY_LOCK, {"k": LOCK_KEY}).scalar()
    connection.commit()
    if got:
        return connection
    connection.close()
    return None


def held(connection: Connection) -> bool:
    """Whether the lock's connection still answers (False once it is gone, and the lock with it)."""
    try:
        connection.execute(_PING)
        connection.commit()
    except Exception:
        return False
    return True


def unlock(connection: Connection) -> None:
    """Let go of the lock and close its connection (closed even if the unlock fails)."""
    try:
        connection.execute(_UNLOCK, {"k": LOCK_KEY})
        connection.commit()
    finally:
        connection.close()
