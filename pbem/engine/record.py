"""The game record (docs/record-format.md §4, §6): build, load, replay, chain, verify.

As ``chess.pgn`` sits beside ``chess.Board``, this module knows files and the
log, and trusts ``Match`` for every rule. The seed and the move texts alone fix
everything; all else in a record (seats, hash chain, positions, result) is
evidence that ``verify`` checks against a fresh replay.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from . import names, rng
from .errors import MoveError
from .match import Match
from .moves import Claim, Move, Timeout
from .notation import parse_move
from .position import canonical_json, canonical_position

RECORD_V1 = "jaipur-record/1"
RECORD_V2 = "jaipur-record/2"
#: What new games write; both are read and verified forever.
RECORD_FORMAT = RECORD_V2
RECORD_FORMATS = (RECORD_V1, RECORD_V2)
EVIDENCE_FORMAT = "pbem-evidence/1"
RULES = rng.RULES
TIE_POLICY = "no-seal"
ENGINE = "pbem-engine/1"
#: The header fields version 2 binds into the start of the chain (names stay outside:
#: an erased player's name changes, and the record must still verify).
HEADER_FIELDS = ("format", "rules", "tie_policy", "game_id", "created_at", "first_player")
#: Bounds on what a file may hold before it is read as a record at all.
MAX_DEPTH = 64
MAX_NUMBER_DIGITS = 20
#: ``at`` and ``created_at``: UTC to the second.
TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")  # ASCII digits
_HEX64 = re.compile(r"[0-9a-f]{64}")


class RecordError(ValueError):
    """The data is not a readable game record (``pbem`` exits 2)."""


class ReplayError(Exception):
    """A logged move that the replay refuses (``pbem replay`` exits 1)."""

    def __init__(self, n: int, text: str, error: MoveError) -> None:
        self.n = n
        self.text = text
        self.error = error
        super().__init__(f"move {n} ({text!r}): {error}")


class NotCanonical(ReplayError):
    """A logged text that reads as a move but is not written as a record writes it (§3):
    ``pbem replay`` and ``moves`` stop there as at an illegal move (a record is not read
    liberally)."""

    def __init__(self, n: int, text: str, canonical: str) -> None:
        Exception.__init__(self, f"move {n} ({text!r}) is not canonical: {canonical!r}")
        self.n = n
        self.text = text
        self.canonical = canonical


@lru_cache(maxsize=8192)
def parse_logged(text: str) -> Move:
    """Logged moves repeat (there are only a few thousand distinct ones): parse each once."""
    return parse_move(text)


@lru_cache(maxsize=8192)
def canonical_text(text: str) -> str:
    """The canonical form of a logged move's text (``RecordError``-free: it may raise
    ``MoveError`` like ``parse_logged``)."""
    return str(parse_logged(text))


def chain_hash(previous: str, n: int, seat: int, move: str, at: str) -> str:
    """``sha256(hash_{n-1} + "\\n" + f"{n}|{seat}|{move}|{at}")`` in hex.

    ``hash_0`` is the commitment, so the chain also binds the log to the deal.
    """
    return hashlib.sha256(f"{previous}\n{n}|{seat}|{move}|{at}".encode()).hexdigest()


def chain_start(
    record_format: str,
    commitment: str,
    *,
    game_id: str | None,
    created_at: str | None,
    first_player: int | None,
    rules: str = RULES,
    tie_policy: str = TIE_POLICY,
) -> str:
    """``hash_0``: the commitment (version 1), or the commitment bound to the header
    (version 2), so a log cannot be passed off as another game's."""
    if record_format == RECORD_V1:
        return commitment
    header = {
        "format": record_format,
        "rules": rules,
        "tie_policy": tie_policy,
        "game_id": game_id,
        "created_at": created_at,
        "first_player": first_player,
    }
    return hashlib.sha256(f"{commitment}\n{canonical_json(header)}".encode()).hexdigest()


Digest = Callable[[Match], str]


def position_digester(record_format: str, seed: bytes) -> Digest:
    """How a format digests a position: bare SHA-256 (version 1) or HMAC keyed with the
    seed (version 2: reveals nothing while the seed is secret). The key is set up once."""
    if record_format == RECORD_V1:
        return lambda match: hashlib.sha256(canonical_position(match).encode()).hexdigest()
    keyed = hmac.new(seed, digestmod=hashlib.sha256)

    def digest(match: Match) -> str:
        h = keyed.copy()
        h.update(canonical_position(match).encode())
        return h.hexdigest()

    return digest


@dataclass(frozen=True, slots=True)
class LoggedMove:
    n: int
    move: str
    seat: int | None = None
    at: str | None = None
    hash: str | None = None
    position: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "seat": self.seat, "move": self.move}
        if self.at is not None:  # a version-1 file from another tool may have none
            out["at"] = self.at
        if self.hash is not None:
            out["hash"] = self.hash
        if self.position is not None:
            out["position"] = self.position
        return out


def log_move(
    previous_hash: str, n: int, seat: int, move: Move, at: str, after: Match, digest: Digest
) -> LoggedMove:
    """The log entry for a move just played: canonical text, chain hash, position digest."""
    text = str(move)
    return LoggedMove(
        n=n,
        move=text,
        seat=seat,
        at=at,
        hash=chain_hash(previous_hash, n, seat, text, at),
        position=digest(after),
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
    format: str = RECORD_FORMAT
    #: ``chain_start`` as the file states it: ``hash_0`` (§6.3), so that a version-2 file
    #: binds its header even before its first entry. ``None`` where a file has none.
    start: str | None = None

    @property
    def seed_bytes(self) -> bytes | None:
        return None if self.seed is None else bytes.fromhex(self.seed)

    def chain_start(self, commitment: str) -> str:
        """``hash_0`` of this record's chain, from ``commitment``."""
        return chain_start(
            self.format,
            commitment,
            game_id=self.game_id,
            created_at=self.created_at,
            first_player=self.first_player,
            rules=self.rules,
            tie_policy=self.tie_policy,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": self.format,
            "rules": self.rules,
            "tie_policy": self.tie_policy,
            "engine": self.engine,
            "game_id": self.game_id,
            "players": list(self.players),
            "commitment": self.commitment,
            "seed": self.seed,
        }
        # a version-1 file from another tool may lack these: left out, never null (§4.7)
        for key in ("engine", "game_id", "commitment"):
            if out[key] is None:
                del out[key]
        if self.server_seed is not None:
            out["server_seed"] = self.server_seed
        if self.contributions is not None:
            out["contributions"] = list(self.contributions)
        out["first_player"] = self.first_player
        if self.created_at is not None:
            out["created_at"] = self.created_at
        if self.start is not None:
            out["chain_start"] = self.start
        out["moves"] = [m.to_json() for m in self.moves]
        if self.result is not None:
            out["result"] = self.result
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- loading


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different: a reader that kept the first of two
    ``"result"`` keys would see another record than one that kept the last."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RecordError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise RecordError(f"a number longer than {MAX_NUMBER_DIGITS} digits")
    return int(text)


def _bounded_float(text: str) -> float:
    """A number with a fraction or an exponent: at most 40 characters, and finite as a
    64-bit float (``1e999`` is not: JSON has no infinity to write it back as)."""
    if len(text) > 2 * MAX_NUMBER_DIGITS:
        raise RecordError(f"a number longer than {2 * MAX_NUMBER_DIGITS} characters")
    value = float(text)
    if not math.isfinite(value):
        raise RecordError(f"the number {text[:24]} is too large for a 64-bit float")
    return value


def _no_constant(text: str) -> Any:
    raise RecordError(f"{text} is not JSON")


def _check_depth(value: Any, depth: int = 1) -> None:
    """Refuse data nested deeper than ``MAX_DEPTH`` (no record is deeper than 4)."""
    stack = [(value, depth)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            raise RecordError(f"nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))


#: ``\ud800``…``\udfff`` escaped in JSON text: a pair of them is one character, but a lone
#: one is no Unicode text (it cannot be hashed, printed or written as UTF-8).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse_lone_surrogates(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise RecordError("a string holds a lone surrogate (\\ud800 to \\udfff): not text")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def strict_json(data: str | bytes) -> Any:
    """Parse JSON as a record file must be: no duplicate keys, no NaN, bounded numbers and
    nesting; ``RecordError`` otherwise, never another exception.

    Bytes are UTF-8 (a byte order mark at the start is skipped): ``json.loads`` would
    also take UTF-16 and UTF-32, which the format does not allow (§4.7)."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RecordError(f"not UTF-8: {exc.reason} at byte {exc.start}") from None
    try:
        parsed = json.loads(
            data,
            object_pairs_hook=_no_duplicates,
            parse_int=_bounded_int,
            parse_float=_bounded_float,
            parse_constant=_no_constant,
        )
    except RecursionError:
        raise RecordError(f"nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, RecordError):
            raise
        raise RecordError(f"not JSON: {exc}") from None
    if _SURROGATE_ESCAPE.search(data):
        _refuse_lone_surrogates(parsed)
    if isinstance(parsed, dict):  # the moves are walked as they are read (load_record)
        for key, value in parsed.items():
            if key != "moves" or not isinstance(value, list):
                _check_depth(value, 2)
    else:
        _check_depth(parsed)
    return parsed


_ANY_HEX = re.compile(r"[0-9a-fA-F]+")


def _hex(value: Any, what: str, nbytes: int | None, lower_only: bool) -> str | None:
    """Hex as records write it: lower-case (version 1 files may also be upper-case)."""
    if value is None:
        return None
    if not isinstance(value, str) or not _ANY_HEX.fullmatch(value) or len(value) % 2:
        raise RecordError(f"{what} must be a string of hex digits")
    if lower_only and value != value.lower():
        raise RecordError(f"{what} must be lower-case hex")
    if nbytes is not None and len(value) != 2 * nbytes:
        raise RecordError(f"{what} must be {2 * nbytes} hex digits")
    return value.lower()


def _seat(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if type(value) is not int or value not in (0, 1):  # not True, not 1.0
        raise RecordError(f"{what} must be 0 or 1")
    return int(value)


def _time(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not TIME.fullmatch(value):
        raise RecordError(f"{what} must be a UTC time like 2026-12-02T09:05:11Z")
    try:
        datetime.fromisoformat(value[:-1])  # the pattern matched: this checks the ranges
    except ValueError:
        raise RecordError(f"{what} is not a real time: {value}") from None
    return value


def _text(value: Any, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise RecordError(f"{what} must be a string")
    return value


_NEVER_NULL_IN_ENTRY = ("n", "move", "at", "hash", "position")


def _null_field(fields: dict[str, Any], names: tuple[str, ...]) -> str | None:
    return next((k for k in names if k in fields and fields[k] is None), None)


_KNOWN = frozenset(
    {
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
        "chain_start",
        "moves",
        "result",
    }
)


#: Fields that are absent or of their type, never null (§4.7): ``seed``, ``first_player``
#: and an entry's ``seat`` are the only ones a record may set to null.
_NEVER_NULL = tuple(sorted((_KNOWN - {"format", "seed", "first_player"}) | {"evidence"}))


def load_record(data: str | bytes | dict[str, Any]) -> Record:
    """A ``Record`` from JSON text or data; ``RecordError`` if it is not one.

    Unknown top-level fields are kept (``extra``) and not interpreted, except the
    dispute ``evidence`` block, which ``verify`` checks against the moves it carries.
    """
    if isinstance(data, str | bytes):
        data = strict_json(data)
    else:
        _check_depth(data)
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    fmt = data.get("format")
    if fmt not in RECORD_FORMATS:
        raise RecordError(f"not a jaipur-record/1 or /2 record (format is {fmt!r})")
    strict = fmt != RECORD_V1  # version 1 files were read leniently; they still are
    null = _null_field(data, _NEVER_NULL)
    if null is not None:
        raise RecordError(f"'{null}' is null: a field a record does not have is left out")
    raw_moves = data.get("moves", [])
    if not isinstance(raw_moves, list):
        raise RecordError("'moves' must be a list")
    moves = []
    for i, raw in enumerate(raw_moves, start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("move"), str):
            raise RecordError(f"move {i} has no 'move' text")
        null = _null_field(raw, _NEVER_NULL_IN_ENTRY)
        if null is not None:
            raise RecordError(f"move {i}: '{null}' is null: a field it does not have is left out")
        for value in raw.values():
            if isinstance(value, dict | list):  # no field of a move is; an unknown one may be
                _check_depth(value, 4)
        if strict and "n" not in raw:
            raise RecordError(f"move {i} has no 'n': version 2 numbers every entry")
        n = raw.get("n", i)  # version 1: the entry's place (§4.3)
        if not isinstance(n, int) or isinstance(n, bool):
            raise RecordError(f"move {i}: 'n' must be an integer")
        moves.append(
            LoggedMove(
                n=n,
                move=raw["move"],
                seat=_seat(raw.get("seat"), f"move {i}: 'seat'"),
                at=_time(raw.get("at"), f"move {i}: 'at'")
                if strict
                else _text(raw.get("at"), f"move {i}: 'at'"),
                hash=_hex(raw.get("hash"), f"move {i}: 'hash'", 32, strict),
                position=_hex(raw.get("position"), f"move {i}: 'position'", 32, strict),
            )
        )
    given = data.get("contributions")
    contributions: tuple[str, str] | None = None
    if given is not None:
        if (
            not isinstance(given, list)
            or len(given) != 2
            or not all(isinstance(c, str) for c in given)  # a null one too
        ):
            raise RecordError("'contributions' must be a list of two hex strings")
        # strings, so never None
        contributions = (
            _hex(given[0], "a contribution", None, strict) or "",
            _hex(given[1], "a contribution", None, strict) or "",
        )
        low, high = 2 * rng.MIN_CONTRIBUTION_BYTES, 2 * rng.MAX_CONTRIBUTION_BYTES
        if not all(low <= len(c) <= high for c in contributions):
            raise RecordError(
                f"a contribution must be {rng.MIN_CONTRIBUTION_BYTES} to "
                f"{rng.MAX_CONTRIBUTION_BYTES} bytes"
            )
    players = data.get("players", [])
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        raise RecordError("'players' must be a list of objects")
    for i, player in enumerate(players):
        problem = names.record_name_problem(player.get("name"))
        if problem is not None:  # a page shows it: the same rule as a name typed on the web
            raise RecordError(f"player {i}: the name is not usable ({problem.replace('_', ' ')})")
    result = data.get("result")
    if result is not None and not isinstance(result, dict):
        raise RecordError("'result' must be an object")
    evidence = data.get("evidence")
    if evidence is not None and not isinstance(evidence, dict):
        raise RecordError("'evidence' must be an object")
    for key in ("rules", "tie_policy"):
        if not isinstance(data.get(key, ""), str):
            raise RecordError(f"'{key}' must be a string")
    return Record(
        seed=_hex(data.get("seed"), "'seed'", rng.SEED_BYTES, strict),
        moves=tuple(moves),
        commitment=_hex(data.get("commitment"), "'commitment'", 32, strict),
        game_id=_text(data.get("game_id"), "'game_id'"),
        players=tuple(players),
        created_at=_time(data.get("created_at"), "'created_at'")
        if strict
        else _text(data.get("created_at"), "'created_at'"),
        first_player=_seat(data.get("first_player"), "'first_player'"),
        server_seed=_hex(data.get("server_seed"), "'server_seed'", rng.SEED_BYTES, strict),
        contributions=contributions,
        result=result,
        engine=_text(data.get("engine"), "'engine'"),
        rules=data.get("rules", RULES),
        tie_policy=data.get("tie_policy", TIE_POLICY),
        extra={k: v for k, v in data.items() if k not in _KNOWN},
        format=fmt,
        start=_hex(data.get("chain_start"), "'chain_start'", 32, strict),
    )


def read_record(path: str) -> Record:
    """Load a record file; ``RecordError`` for a file that is missing or not a record."""
    try:
        with open(path, "rb") as f:
            return load_record(f.read())
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None


# ---------------------------------------------------------------- replaying


def _seat_of(state: Match, move: Move, seat: int | None) -> int | None:
    """The seat an entry is by. A version-1 file from another tool may leave it out where
    only one seat can be meant (§4.3): a move of the card game or a timeout is the seat
    to move's (the engine's default), a claim the waiting seat's. A resignation, which
    either seat may make, keeps no seat and is refused."""
    if seat is None and type(move) is Claim and state.to_move is not None:
        return 1 - state.to_move
    if seat is None and type(move) is Timeout:
        return state.to_move
    return seat


def replay_states(
    seed: bytes, moves: Sequence[LoggedMove], first_player: int | None = None
) -> Iterator[Match]:
    """The start position, then the position after each logged move; ``ReplayError`` stops it."""
    state = Match.new(seed, first_player)
    yield state
    for entry in moves:
        try:
            move = parse_logged(entry.move)
            state = state.apply(move, _seat_of(state, move, entry.seat))
        except MoveError as exc:
            raise ReplayError(entry.n, entry.move, exc) from None
        yield state


def replay_moves(
    seed: bytes,
    moves: Sequence[LoggedMove],
    first_player: int | None = None,
    *,
    canonical: bool = False,
) -> Match:
    """The position after all logged moves, each checked by the rules (and, with
    ``canonical``, written as a record writes it: ``NotCanonical`` otherwise)."""
    state = Match.new(seed, first_player)
    for entry in moves:
        try:
            move = parse_logged(entry.move)
            if canonical and str(move) != entry.move:
                raise NotCanonical(entry.n, entry.move, str(move))
            state = state.apply(move, _seat_of(state, move, entry.seat))
        except MoveError as exc:
            raise ReplayError(entry.n, entry.move, exc) from None
    return state


def replay(record: Record) -> Match:
    seed = record.seed_bytes
    if seed is None:
        raise RecordError("the record has no seed: it is a running game's view, not a record")
    if record.rules != RULES:
        raise RecordError(f"unknown rules {record.rules!r}: this engine plays {RULES}")
    return replay_moves(seed, record.moves, record.first_player, canonical=True)


def result_json(match: Match) -> dict[str, Any]:
    """The ``result`` object of docs/record-format.md §4.6, computed from a replayed match."""
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
    record_format: str = RECORD_FORMAT,
) -> Record:
    """A record of a game; pass ``seed=None`` while it runs (the seed is still secret).

    A version-2 record states its ``chain_start`` (§6.3): with no entry yet, nothing
    else binds its header."""
    start = None
    if record_format != RECORD_V1:
        start = chain_start(
            record_format,
            commitment,
            game_id=game_id,
            created_at=created_at,
            first_player=first_player,
        )
    return Record(
        start=start,
        format=record_format,
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
