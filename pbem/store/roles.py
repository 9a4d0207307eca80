"""The application's own PostgreSQL role: exactly the privileges the services use.

Triggers (migrations 0001, 0010 and 0015) refuse UPDATE, DELETE and TRUNCATE on the
move log and the access log to every role (the access log lets one reduction of a row's
client fields through), but whoever owns a table may disable or drop its
triggers. So migrations run as the owner, and the web app, the scheduler and the
mail receiver connect as a role that owns nothing and may only SELECT and INSERT on
the two logs (and UPDATE of the access log's client fields only): neither a bug nor an
intruder in the application can rewrite a game.

``grant`` is run by the owner (``pbem db grant ROLE``, or ``pbem db upgrade`` with
``PBEM_DATABASE_APP_ROLE`` set). It first takes back whatever the role held on these
tables, so running it again after an upgrade gives exactly this list, then checks the
role's effective privileges (memberships and PUBLIC included) and refuses if they
are more than the list: a grant that cannot keep the promise does not pretend to.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Connection, Engine, text

from . import migrate

APPEND_ONLY = frozenset({"moves", "access_log"})
#: The one change the access log takes: its client fields reduced, once a row (retention
#: and erasure; migration 0015's trigger refuses every other UPDATE).
REDUCTION = "UPDATE (ip, user_agent, detail, reduced_at)"

#: What the services do to each table (read from ``pbem/services`` and ``pbem/mail``).
#: A new table needs its line here; ``tests/store/test_append_only.py`` checks the
#: list against the models. SELECT … FOR UPDATE needs UPDATE: games, sign_in_links, outbox.
PRIVILEGES: dict[str, tuple[str, ...]] = {
    "alembic_version": ("SELECT",),  # the schema check at start
    "moves": ("SELECT", "INSERT"),  # append-only
    "access_log": ("SELECT", "INSERT", REDUCTION),  # append-only, but for the reduction
    # dealt, finished, flagged, rated; locked to order a game's moves
    "games": ("SELECT", "INSERT", "UPDATE"),
    "seats": ("SELECT", "INSERT", "UPDATE"),  # links replaced, settings, acceptance, erasure
    "vacations": ("SELECT", "INSERT", "UPDATE"),  # an absence ended early
    # written, sent, retried, failed, pruned; an erased account's unsent mails deleted
    "outbox": ("SELECT", "INSERT", "UPDATE", "DELETE"),
    "inbound_mail": ("SELECT", "INSERT", "UPDATE"),  # a reply's outcome
    "players": ("SELECT", "INSERT", "UPDATE"),  # settings, ratings, sign-out, erasure
    "sign_in_links": ("SELECT", "INSERT", "UPDATE"),  # used, signed out, IP dropped
    "challenges": ("SELECT", "INSERT", "UPDATE"),  # accepted, withdrawn
    "rate_limits": ("SELECT", "INSERT", "UPDATE", "DELETE"),  # ended windows are purged
    # the analysis of finished games: progress kept; deleted to be recomputed
    "analyses": ("SELECT", "INSERT", "UPDATE", "DELETE"),
    "analysis_moves": ("SELECT", "INSERT", "DELETE"),
    # uploaded records' analyses: asked for, progress kept, dropped with their upload
    "record_analyses": ("SELECT", "INSERT", "UPDATE", "DELETE"),
    # the scheduler's lease: taken (the first time inserted), renewed, checked FOR KEY SHARE
    "scheduler_lease": ("SELECT", "INSERT", "UPDATE"),
    # an address whose mail bounces: marked, cleared when verified again or left
    "bouncing": ("SELECT", "INSERT", "DELETE"),
    # events: started, finished (the seed shown); entrants withdrawn; rounds ended
    "events": ("SELECT", "INSERT", "UPDATE"),
    "event_entrants": ("SELECT", "INSERT", "UPDATE"),
    "event_rounds": ("SELECT", "INSERT", "UPDATE"),
    "event_pairings": ("SELECT", "INSERT", "UPDATE"),  # its game linked once made
}

#: Every table privilege PostgreSQL knows (before 17's MAINTAIN): the check compares all.
TABLE_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
#: Those that can also be granted on single columns.
COLUMN_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "REFERENCES")


class GrantError(RuntimeError):
    """The role cannot be given exactly the application's privileges; the message says why."""


@dataclass
class Granted:
    role: str
    tables: dict[str, tuple[str, ...]]
    #: The id sequences the role may take numbers from (INSERT needs them).
    sequences: list[str]
    #: Things the operator should know that do not make the grant fail.
    notes: list[str] = field(default_factory=list)


def grant(engine: Engine, role: str) -> Granted:
    """Give ``role`` exactly ``PRIVILEGES`` on a database at the head revision, in one
    transaction (the application never sees half of it). Run as the tables' owner."""
    if engine.dialect.name != "postgresql":
        raise GrantError("only PostgreSQL has roles: on SQLite there is nothing to grant")
    current, head = migrate.current_revision(engine), migrate.head_revision()
    if current != head:
        raise GrantError(
            f"the database is at revision {current}, not {head}: run `pbem db upgrade`"
        )
    quoted = engine.dialect.identifier_preparer.quote(role)
    with engine.begin() as connection:
        _check_role(connection, role)
        sequences: list[str] = []
        for table, privileges in PRIVILEGES.items():
            connection.execute(text(f"REVOKE ALL ON TABLE {table} FROM {quoted}"))
            connection.execute(text(f"GRANT {', '.join(privileges)} ON TABLE {table} TO {quoted}"))
            for sequence in _sequences_of(connection, table):
                connection.execute(text(f"REVOKE ALL ON SEQUENCE {sequence} FROM {quoted}"))
                if "INSERT" in privileges:
                    connection.execute(text(f"GRANT USAGE ON SEQUENCE {sequence} TO {quoted}"))
                    sequences.append(sequence)
        schema = connection.scalar(text("SELECT quote_ident(current_schema())"))
        database = connection.scalar(text("SELECT quote_ident(current_database())"))
        connection.execute(text(f"GRANT USAGE ON SCHEMA {schema} TO {quoted}"))
        connection.execute(text(f"GRANT CONNECT ON DATABASE {database} TO {quoted}"))
        _check_effective(connection, role)
        notes = _notes(connection, role, schema)
    return Granted(role, dict(PRIVILEGES), sequences, notes)


def _check_role(connection: Connection, role: str) -> None:
    """Refuse a role that could rewrite the logs whatever is granted to it."""
    found = connection.execute(
        text("SELECT rolsuper, rolname = current_user FROM pg_roles WHERE rolname = :r"),
        {"r": role},
    ).one_or_none()
    if found is None:
        raise GrantError(
            f"there is no role {role!r}: create it first "
            f"(createuser {role}, or CREATE ROLE {role} LOGIN PASSWORD '…')"
        )
    superuser, is_me = found
    if is_me:
        raise GrantError(
            f"{role!r} is the role running this command, which owns the tables: "
            "the application needs a role of its own"
        )
    if superuser:
        raise GrantError(f"{role!r} is a superuser: no grant can restrict it")
    owners = connection.scalars(
        text(
            "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class"
            " WHERE oid = ANY(CAST(:tables AS regclass[]))"
            " AND pg_has_role(:r, relowner, 'MEMBER')"
        ),
        {"tables": list(PRIVILEGES), "r": role},
    ).all()
    if owners:
        raise GrantError(
            f"{role!r} is or may become {', '.join(owners)}, the tables' owner, and so could "
            f"disable the triggers: REVOKE {', '.join(owners)} FROM {role}"
        )


def _sequences_of(connection: Connection, table: str) -> list[str]:
    """The sequences that number a table's columns (SERIAL or IDENTITY)."""
    return list(
        connection.scalars(
            text(
                "SELECT CAST(CAST(d.objid AS regclass) AS text) FROM pg_depend d"
                " JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'"
                " WHERE d.classid = 'pg_class'::regclass AND d.refobjid = CAST(:t AS regclass)"
                " AND d.deptype IN ('a', 'i') ORDER BY 1"
            ),
            {"t": table},
        )
    )


def effective(connection: Connection, role: str, table: str) -> set[str]:
    """What ``role`` may do to ``table`` by any route: its own grants, its roles', PUBLIC's,
    on the whole table or on some columns (``UPDATE (ip, detail)``, in the table's order)."""
    held = set()
    for privilege in TABLE_PRIVILEGES:
        whole = "SELECT has_table_privilege(:r, CAST(:t AS regclass), :p)"
        if connection.scalar(text(whole), {"r": role, "t": table, "p": privilege}):
            held.add(privilege)
        elif privilege in COLUMN_PRIVILEGES:
            columns = _columns_with(connection, role, table, privilege)
            if columns:
                held.add(f"{privilege} ({', '.join(columns)})")
    return held


def _columns_with(connection: Connection, role: str, table: str, privilege: str) -> list[str]:
    return list(
        connection.scalars(
            text(
                "SELECT attname FROM pg_attribute WHERE attrelid = CAST(:t AS regclass)"
                " AND attnum > 0 AND NOT attisdropped"
                " AND has_column_privilege(:r, CAST(:t AS regclass), attnum, :p) ORDER BY attnum"
            ),
            {"r": role, "t": table, "p": privilege},
        )
    )


def _check_effective(connection: Connection, role: str) -> None:
    for table, privileges in PRIVILEGES.items():
        extra = effective(connection, role, table) - set(privileges)
        if extra:
            raise GrantError(
                f"{role!r} would still hold {', '.join(sorted(extra))} on {table}, through PUBLIC "
                "or a role it belongs to: revoke that first (\\dp in psql shows who grants it)"
            )


def _notes(connection: Connection, role: str, schema: str) -> list[str]:
    notes = []
    if connection.scalar(
        text("SELECT has_schema_privilege(:r, current_schema(), 'CREATE')"), {"r": role}
    ):
        notes.append(
            f"{role} may create tables in schema {schema} (PUBLIC may, before PostgreSQL 15): "
            f"it cannot touch the logs, but a superuser should REVOKE CREATE ON SCHEMA {schema} "
            "FROM PUBLIC so nothing the application creates is run by the owner's migrations"
        )
    return notes
