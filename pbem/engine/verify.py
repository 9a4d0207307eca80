"""``verify``: all a record carries, checked against a fresh replay (record-format.md §5).

The seed and the move texts fix the game; the commitment, the chain, the times, the
position digests, the result and a dispute's evidence block are claims about it.
Each claim present is checked, and what cannot be checked yet (a running game has
no published seed) is said, not failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from . import rng
from .match import Match
from .record import (
    EVIDENCE_FORMAT,
    RECORD_V1,
    RULES,
    TIE_POLICY,
    TIME,
    LoggedMove,
    Record,
    ReplayError,
    canonical_text,
    chain_hash,
    position_digester,
    replay_states,
    result_json,
)


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Verification:
    checks: tuple[Check, ...]
    final: Match | None = None
    #: The number of the first move whose evidence (hash, position, legality) fails.
    first_bad_move: int | None = None
    #: What the record could not be checked for, and why (a running game has no seed yet).
    unchecked: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def first_failure(self) -> Check | None:
        return next((c for c in self.checks if not c.ok), None)


def _misnumbered(place: int, entry: ChainEntry) -> str | None:
    """Why an entry's ``n`` is not its place in the log (1, 2, 3, …), if it is not."""
    return None if entry.n == place else f"move {place} is numbered {entry.n}"


def verify_numbering(moves: Sequence[LoggedMove]) -> tuple[int | None, str]:
    """The first entry numbered other than its place, and why: the check a version-1
    file without a chain still gets (a chained file's numbering is part of its chain)."""
    for i, entry in enumerate(moves, start=1):
        why = _misnumbered(i, entry)
        if why is not None:
            return i, why
    return None, ""


class ChainEntry(Protocol):
    """What the chain check reads of an entry: a record's ``LoggedMove``, or a stored row
    with its time written as the record writes it."""

    @property
    def n(self) -> int: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def move(self) -> str: ...
    @property
    def at(self) -> str | None: ...
    @property
    def hash(self) -> str | None: ...


def chain_break(previous: str, place: int, entry: ChainEntry) -> str | None:
    """Why ``entry`` is not entry ``place`` of the chain after ``previous`` (None if it is).

    The one check of a chain entry: ``verify`` makes it of a record, and the server of its
    stored log as it reads it, so both find the same break in the same words."""
    misnumbered = _misnumbered(place, entry)
    if misnumbered is not None:
        return misnumbered
    if entry.seat not in (0, 1) or not entry.hash or entry.at is None:
        return f"move {place} lacks its seat, time or hash"
    if chain_hash(previous, place, entry.seat, entry.move, entry.at) != entry.hash:
        return f"move {place}: the chain hash does not match (the log was altered)"
    return None


def verify_chain(start: str, moves: Sequence[ChainEntry]) -> tuple[int | None, str]:
    """The first move whose chain hash is wrong or missing, and why (``None`` if all hold).

    ``start`` is ``hash_0`` (``Record.chain_start``: the commitment in version 1)."""
    previous = start
    for i, entry in enumerate(moves, start=1):
        why = chain_break(previous, i, entry)
        if why is not None:
            return entry.n, why  # its place, unless it is misnumbered
        previous = entry.hash or ""
    return None, ""


def _start_problem(record: Record, start: str) -> str | None:
    """Why the file's ``chain_start`` does not bind it to its header (§6.3), if it does not.

    A version-2 file with entries binds its header through their hashes; one without
    any has only ``chain_start`` to do it, and must carry it."""
    if record.start is not None and record.start != start:
        if record.format == RECORD_V1:
            return "chain_start is not the commitment, where a version-1 chain starts"
        return "chain_start is not hash_0 of this header and commitment: one of them was changed"
    if record.start is None and record.format != RECORD_V1 and not record.moves:
        return "a version-2 file without moves has no chain_start: nothing binds its header"
    return None


def _times_in_order(record: Record) -> tuple[int | None, str]:
    """The first move logged before the one it follows (or before the game was created)."""
    previous = record.created_at
    for entry in record.moves:
        if entry.at is None:
            continue
        if previous is not None and entry.at < previous:
            return entry.n, f"move {entry.n} is dated {entry.at}, before {previous}"
        previous = entry.at
    return None, ""


def _seed_checks(record: Record, seed: bytes) -> list[Check]:
    """The commitment and, with player entropy, the seed mix.

    With contributions the server committed to its own ``server_seed`` before the
    players added theirs, so the commitment is checked against that.
    """
    checks: list[Check] = []
    committed = bytes.fromhex(record.server_seed) if record.server_seed else seed
    commitment = rng.commitment(committed)
    if record.commitment is not None:
        ok = record.commitment == commitment
        what = "sha256(server_seed)" if record.server_seed else "sha256(seed)"
        checks.append(
            Check(
                "commitment",
                ok,
                f"{what} equals the commitment"
                if ok
                else f"{what} does not equal the commitment: the deal was changed",
            )
        )
    if record.server_seed is not None:
        if record.contributions is None:
            ok = committed == seed
            detail = "seed = server_seed" if ok else "no contributions, yet seed != server_seed"
        else:
            e0, e1 = (bytes.fromhex(c) for c in record.contributions)
            try:
                ok = rng.mix_seed(committed, e0, e1) == seed
                detail = (
                    "seed = HMAC(server_seed, contributions)"
                    if ok
                    else "the seed does not follow from the server seed and the contributions"
                )
            except ValueError as exc:
                ok, detail = False, str(exc)
        checks.append(Check("seed mix", ok, detail))
    elif record.contributions is not None:
        checks.append(Check("seed mix", False, "contributions without the server seed"))
    return checks


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``true`` is not ``1`` and ``70.0`` is not ``70`` (Python's
    ``==`` says they are), and an object's keys must be the same, so that a ``null`` is
    not taken for a field left out (§5.2)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _evidence_check(record: Record) -> Check | None:
    """A dispute evidence file's block against the record it carries (§7)."""
    block = record.extra.get("evidence")
    if block is None:
        return None

    def fail(why: str) -> Check:
        return Check("evidence", False, why)

    if block.get("format") != EVIDENCE_FORMAT:
        return fail(f"the evidence block is not {EVIDENCE_FORMAT}")
    n = block.get("disputed_move")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        return fail("the disputed move is not a move number")
    if n != len(record.moves):
        return fail(f"the disputed move is {n}, but the file carries {len(record.moves)} moves")
    last = record.moves[-1]
    for key, logged in (
        ("move", last.move),
        ("seat", last.seat),
        ("at", last.at),
        ("chain_hash", last.hash),
        ("position_hash", last.position),
    ):
        given = block.get(key)
        if key.endswith("_hash") and isinstance(given, str) and record.format == RECORD_V1:
            given = given.lower()  # version 1 reads upper-case hex as the same bytes (§4.7)
        if not same_json(given, logged):
            return fail(f"the evidence's {key} is not move {n}'s")
    if "access_log" not in block:
        return fail("the evidence has no access log")
    access = block["access_log"]
    if not isinstance(access, list) or not all(
        isinstance(a, dict) and isinstance(a.get("at"), str) and TIME.fullmatch(a["at"])
        for a in access
    ):
        return fail("the access log is not a list of dated entries")
    times = [a["at"] for a in access]
    if times != sorted(times):
        return fail("the access log is not in order of time")
    return Check("evidence", True, f"the evidence is move {n}'s, with {len(access)} accesses")


def _result_check(stored: dict[str, Any], computed: dict[str, Any]) -> Check:
    """The stored result must be the replay's, key for key (``resigned``, ``claimed`` too)."""
    differ = sorted(
        k
        for k in stored.keys() | computed.keys()
        if k not in stored or k not in computed or not same_json(stored[k], computed[k])
    )
    return Check(
        "result",
        not differ,
        "the stored result matches"
        if not differ
        else f"the stored result differs in {', '.join(differ)}",
    )


def verify(record: Record) -> Verification:
    """Every check of docs/record-format.md §5 that the record allows, in order.

    A record without its seed (a running game's file) is checked for what does not need
    the seed (chain, times, evidence); the rest is named in ``unchecked``. Position
    digests are computed only where the record carries them.
    """
    checks: list[Check] = []
    bad: list[int] = []
    unchecked: list[str] = []

    def done(final: Match | None = None) -> Verification:
        return Verification(tuple(checks), final, min(bad) if bad else None, tuple(unchecked))

    ok = record.rules == RULES and record.tie_policy == TIE_POLICY
    checks.append(
        Check(
            "format",
            ok,
            f"{record.format}, rules {record.rules!r}, tie policy {record.tie_policy!r}",
        )
    )
    if not ok:
        return done()
    seed = record.seed_bytes
    if seed is not None:
        checks.extend(_seed_checks(record, seed))

    strict = record.format != RECORD_V1
    chained = (
        record.commitment is not None
        or record.start is not None
        or any(m.hash is not None for m in record.moves)
    )
    if (strict or chained) and record.commitment is None:
        # hash_0 is the commitment (§4.4, §6.3): hashes without one prove nothing
        checks.append(Check("chain", False, "the record has no commitment to start its chain"))
        return done()
    if chained:
        assert record.commitment is not None
        start = record.chain_start(record.commitment)
        broken, why = verify_chain(start, record.moves)  # a broken entry is named first
        unbound = None if broken is not None else _start_problem(record, start)
        why = unbound or why
        ok = unbound is None and broken is None
        checks.append(Check("chain", ok, why or f"{len(record.moves)} moves chained"))
        if broken is not None:
            bad.append(broken)
    else:  # a version-1 file without a chain: its entries are still numbered (§5.2)
        broken, why = verify_numbering(record.moves)
        checks.append(
            Check("numbering", broken is None, why or "the moves are numbered 1, 2, 3, …")
        )
        if broken is not None:
            bad.append(broken)
    late, why = _times_in_order(record)
    if late is not None or strict or any(m.at is not None for m in record.moves):
        checks.append(
            Check("times", late is None, why or "every move is dated after the one before")
        )
        if late is not None:
            bad.append(late)
    evidence = _evidence_check(record)
    if evidence is not None:
        checks.append(evidence)

    if seed is None:
        unchecked.append(
            "the deal, the replay, the positions and the result: the seed is published "
            "when the game ends"
        )
        return done()

    final: Match | None = None
    drift: int | None = None
    digest = (
        position_digester(record.format, seed) if any(m.position for m in record.moves) else None
    )
    try:
        states = replay_states(seed, record.moves, record.first_player)
        final = next(states)
        for entry, state in zip(record.moves, states, strict=False):
            final = state
            canonical = canonical_text(entry.move)
            if canonical != entry.move:
                checks.append(
                    Check(
                        "replay",
                        False,
                        f"move {entry.n} is not canonical: "
                        f"{entry.move!r} (canonical: {canonical!r})",
                    )
                )
                bad.append(entry.n)
                return done()
            if (
                drift is None
                and entry.position is not None
                and digest is not None
                and entry.position != digest(state)
            ):
                drift = entry.n
    except ReplayError as exc:
        checks.append(Check("replay", False, str(exc)))
        bad.append(exc.n)
        return done()
    checks.append(Check("replay", True, f"{len(record.moves)} moves replay"))
    if digest is not None:
        checks.append(
            Check(
                "positions",
                drift is None,
                f"move {drift}: the replayed position differs from the one recorded"
                if drift is not None
                else "every recorded position digest matches the replay",
            )
        )
        if drift is not None:
            bad.append(drift)
    if record.result is not None:
        checks.append(_result_check(record.result, result_json(final)))
    return done(final)
