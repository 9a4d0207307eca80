"""The game record ``jaipur-record/1`` (FORMAT.md §4): build, load, replay, chain, verify.

As ``chess.pgn`` sits beside ``chess.Board``, this module knows files and the
log, and trusts ``Match`` for every rule. The seed and the move texts alone fix
everything; all else in a record (seats, hash chain, positions, result) is
evidence that ``verify`` checks against a fresh replay.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from . import names, rng
from .errors import MoveError
from .match import Match
from .moves import Move
from .notation import parse_move
from .position import position_hash

RECORD_FORMAT = "jaipur-record/1"
RULES = rng.RULES
TIE_POLICY = "no-seal"
ENGINE = "pbem-engine/1"


class RecordError(ValueError):
    """The data is not a readable ``jaipur-record/1`` (``pbem`` exits 2)."""


class ReplayError(Exception):
    """A logged move that the replay refuses (``pbem replay`` exits 1)."""

    def __init__(self, n: int, text: str, error: MoveError) -> None:
        self.n = n
        self.text = text
        self.error = error
        super().__init__(f"move {n} ({text!r}): {error}")


@lru_cache(maxsize=8192)
def _parse_logged(text: str) -> Move:
    """Logged moves repeat (there are only a few thousand distinct ones): parse each once."""
    return parse_move(text)


def chain_hash(previous: str, n: int, seat: int, move: str, at: str) -> str:
    """``sha256(hash_{n-1} + "\\n" + f"{n}|{seat}|{move}|{at}")`` in hex.

    ``hash_0`` is the commitment, so the chain also binds the log to the deal.
    """
    return hashlib.sha256(f"{previous}\n{n}|{seat}|{move}|{at}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class LoggedMove:
    n: int
    move: str
    seat: int | None = None
    at: str | None = None
    hash: str | None = None
    position: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "seat": self.seat, "move": self.move, "at": self.at}
        if self.hash is not None:
            out["hash"] = self.hash
        if self.position is not None:
            out["position"] = self.position
        return out


def log_move(
    previous_hash: str, n: int, seat: int, move: Move, at: str, after: Match
) -> LoggedMove:
    """The log entry for a move just played: canonical text, chain hash, position hash."""
    text = str(move)
    return LoggedMove(
        n=n,
        move=text,
        seat=seat,
        at=at,
        hash=chain_hash(previous_hash, n, seat, text, at),
        position=position_hash(after),
    )


@dataclass(frozen=True, slots=True)
class Record:
    seed: str | None
    moves: tuple[LoggedMove, ...]
    commitment: str | None = None
    game_id: str | None = None
    players: tuple[dict[str, Any], ...] = ()
    created_at: str | None = None
    first_player: int | None = None
    server_seed: str | None = None
    contributions: tuple[str, str] | None = None
    result: dict[str, Any] | None = None
    engine: str | None = ENGINE
    rules: str = RULES
    tie_policy: str = TIE_POLICY
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def seed_bytes(self) -> bytes | None:
        return None if self.seed is None else bytes.fromhex(self.seed)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "rules": self.rules,
            "tie_policy": self.tie_policy,
            "engine": self.engine,
            "game_id": self.game_id,
            "players": list(self.players),
            "commitment": self.commitment,
            "seed": self.seed,
        }
        if self.server_seed is not None:
            out["server_seed"] = self.server_seed
        if self.contributions is not None:
            out["contributions"] = list(self.contributions)
        out["first_player"] = self.first_player
        out["created_at"] = self.created_at
        out["moves"] = [m.to_json() for m in self.moves]
        if self.result is not None:
            out["result"] = self.result
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- loading


def _hex(value: Any, what: str, nbytes: int | None = None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise RecordError(f"{what} must be a hex string")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise RecordError(f"{what} is not hex") from None
    if nbytes is not None and len(raw) != nbytes:
        raise RecordError(f"{what} must be {2 * nbytes} hex digits")
    return value.lower()


def _seat(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if value not in (0, 1) or isinstance(value, bool):
        raise RecordError(f"{what} must be 0 or 1")
    return int(value)


def load_record(data: str | bytes | dict[str, Any]) -> Record:
    """A ``Record`` from JSON text or data; ``RecordError`` if it is not one."""
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise RecordError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    if data.get("format") != RECORD_FORMAT:
        raise RecordError(f"not a {RECORD_FORMAT} record (format is {data.get('format')!r})")
    raw_moves = data.get("moves", [])
    if not isinstance(raw_moves, list):
        raise RecordError("'moves' must be a list")
    moves = []
    for i, raw in enumerate(raw_moves, start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("move"), str):
            raise RecordError(f"move {i} has no 'move' text")
        n = raw.get("n", i)
        if not isinstance(n, int) or isinstance(n, bool):
            raise RecordError(f"move {i}: 'n' must be a number")
        at = raw.get("at")
        if at is not None and not isinstance(at, str):
            raise RecordError(f"move {i}: 'at' must be a string")
        moves.append(
            LoggedMove(
                n=n,
                move=raw["move"],
                seat=_seat(raw.get("seat"), f"move {i}: 'seat'"),
                at=at,
                hash=_hex(raw.get("hash"), f"move {i}: 'hash'", 32),
                position=_hex(raw.get("position"), f"move {i}: 'position'", 32),
            )
        )
    contributions = data.get("contributions")
    if contributions is not None:
        if not isinstance(contributions, list) or len(contributions) != 2:
            raise RecordError("'contributions' must be a list of two hex strings")
        contributions = tuple(_hex(c, "a contribution") for c in contributions)
    players = data.get("players") or []
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        raise RecordError("'players' must be a list of objects")
    for i, player in enumerate(players):
        problem = names.name_problem(player.get("name"))
        if problem is not None:  # a page shows it: the same rule as a name typed on the web
            raise RecordError(f"player {i}: the name is not usable ({problem.replace('_', ' ')})")
    result = data.get("result")
    if result is not None and not isinstance(result, dict):
        raise RecordError("'result' must be an object")
    known = {
        "format",
        "rules",
        "tie_policy",
        "engine",
        "game_id",
        "players",
        "commitment",
        "seed",
        "server_seed",
        "contributions",
        "first_player",
        "created_at",
        "moves",
        "result",
    }
    return Record(
        seed=_hex(data.get("seed"), "'seed'", rng.SEED_BYTES),
        moves=tuple(moves),
        commitment=_hex(data.get("commitment"), "'commitment'", 32),
        game_id=data.get("game_id"),
        players=tuple(players),
        created_at=data.get("created_at"),
        first_player=_seat(data.get("first_player"), "'first_player'"),
        server_seed=_hex(data.get("server_seed"), "'server_seed'", rng.SEED_BYTES),
        contributions=contributions,  # type: ignore[arg-type]
        result=result,
        engine=data.get("engine"),
        rules=data.get("rules", RULES),
        tie_policy=data.get("tie_policy", TIE_POLICY),
        extra={k: v for k, v in data.items() if k not in known},
    )


def read_record(path: str) -> Record:
    """Load a record file; ``RecordError`` for a file that is missing or not a record."""
    try:
        with open(path, "rb") as f:
            return load_record(f.read())
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None


# ---------------------------------------------------------------- replaying


def replay_states(
    seed: bytes, moves: Sequence[LoggedMove], first_player: int | None = None
) -> Iterator[Match]:
    """The start position, then the position after each logged move; ``ReplayError`` stops it."""
    state = Match.new(seed, first_player)
    yield state
    for entry in moves:
        try:
            move = _parse_logged(entry.move)
            state = state.apply(move, entry.seat)
        except MoveError as exc:
            raise ReplayError(entry.n, entry.move, exc) from None
        yield state


def replay_moves(
    seed: bytes, moves: Sequence[LoggedMove], first_player: int | None = None
) -> Match:
    """The position after all logged moves, each checked by the rules."""
    state = Match.new(seed, first_player)
    for entry in moves:
        try:
            state = state.apply(_parse_logged(entry.move), entry.seat)
        except MoveError as exc:
            raise ReplayError(entry.n, entry.move, exc) from None
    return state


def replay(record: Record) -> Match:
    seed = record.seed_bytes
    if seed is None:
        raise RecordError("the record has no seed: it is a running game's view, not a record")
    if record.rules != RULES:
        raise RecordError(f"unknown rules {record.rules!r}: this engine plays {RULES}")
    return replay_moves(seed, record.moves, record.first_player)


def result_json(match: Match) -> dict[str, Any]:
    """The ``result`` object of FORMAT.md §4, computed from a replayed match."""
    return {
        "rounds": [
            {
                "round": r.number,
                "scores": list(r.scores),
                "camel_token": r.camel_token,
                "seal": r.seal,
            }
            for r in match.results
        ],
        "seals": list(match.seals),
        "winner": match.winner,
        "status": match.status.value,
        **({"resigned": match.resigned} if match.resigned is not None else {}),
        **({"claimed": match.claimed} if match.claimed is not None else {}),
    }


def build_record(
    *,
    seed: bytes | None,
    commitment: str,
    moves: Sequence[LoggedMove],
    final: Match | None,
    game_id: str | None = None,
    players: Sequence[dict[str, Any]] = (),
    created_at: str | None = None,
    first_player: int | None = None,
    server_seed: bytes | None = None,
    contributions: tuple[bytes, bytes] | None = None,
) -> Record:
    """A record of a game; pass ``seed=None`` while it runs (the seed is still secret)."""
    return Record(
        seed=None if seed is None else seed.hex(),
        moves=tuple(moves),
        commitment=commitment,
        game_id=game_id,
        players=tuple(players),
        created_at=created_at,
        first_player=first_player,
        server_seed=None if server_seed is None or seed is None else server_seed.hex(),
        contributions=None
        if contributions is None
        else (contributions[0].hex(), contributions[1].hex()),
        result=None if final is None else result_json(final),
    )


# ---------------------------------------------------------------- verifying


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

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def first_failure(self) -> Check | None:
        return next((c for c in self.checks if not c.ok), None)


def verify_chain(commitment: str, moves: Sequence[LoggedMove]) -> tuple[int | None, str]:
    """The first move whose chain hash is wrong or missing, and why (``None`` if all hold)."""
    previous = commitment
    for i, entry in enumerate(moves, start=1):
        if entry.n != i:
            return entry.n, f"move {i} is numbered {entry.n}"
        if entry.hash is None or entry.seat is None or entry.at is None:
            return i, f"move {i} lacks its seat, time or hash"
        expected = chain_hash(previous, i, entry.seat, entry.move, entry.at)
        if expected != entry.hash:
            return i, f"move {i}: the chain hash does not match (the log was altered)"
        previous = entry.hash
    return None, ""


def _seed_checks(record: Record, seed: bytes) -> tuple[list[Check], str]:
    """The commitment and, with player entropy, the seed mix; returns the chain's hash_0.

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
    return checks, record.commitment or commitment


def verify(record: Record) -> Verification:
    """Every check of FORMAT.md §5, in order; the replay stops at the first illegal move."""
    checks: list[Check] = []
    bad: list[int] = []

    def done(final: Match | None = None) -> Verification:
        return Verification(tuple(checks), final, min(bad) if bad else None)

    ok = record.rules == RULES and record.tie_policy == TIE_POLICY
    checks.append(Check("format", ok, f"rules {record.rules!r}, tie policy {record.tie_policy!r}"))
    seed = record.seed_bytes
    if not ok or seed is None:
        if seed is None:
            checks.append(
                Check("seed", False, "the seed is not published yet (the game is running)")
            )
        return done()
    seed_checks, hash0 = _seed_checks(record, seed)
    checks.extend(seed_checks)

    if record.commitment is not None or any(m.hash is not None for m in record.moves):
        broken, why = verify_chain(hash0, record.moves)
        checks.append(Check("chain", broken is None, why or f"{len(record.moves)} moves chained"))
        if broken is not None:
            bad.append(broken)

    final: Match | None = None
    drift: int | None = None
    try:
        states = replay_states(seed, record.moves, record.first_player)
        final = next(states)
        for entry, state in zip(record.moves, states, strict=False):
            final = state
            canonical = str(_parse_logged(entry.move))
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
            if drift is None and entry.position not in (None, position_hash(state)):
                drift = entry.n
    except ReplayError as exc:
        checks.append(Check("replay", False, str(exc)))
        bad.append(exc.n)
        return done()
    checks.append(Check("replay", True, f"{len(record.moves)} moves replay"))
    if drift is not None:
        checks.append(
            Check(
                "positions",
                False,
                f"move {drift}: the replayed position differs from the one recorded",
            )
        )
        bad.append(drift)
    if record.result is not None:
        computed = result_json(final)
        differ = [k for k in computed if k in record.result and record.result[k] != computed[k]]
        checks.append(
            Check(
                "result",
                not differ,
                "the stored result matches"
                if not differ
                else f"the stored result differs in {', '.join(differ)}",
            )
        )
    return done(final)
