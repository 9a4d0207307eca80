"""The event record ``jaipur-event/1`` (docs/record-format.md §10): write and read strictly.

It holds what ``pbem verify`` needs to recompute the event: the rules, the entrants,
the commitment and (once the event ended) the seed, every round's pairings, each game's
id, final chain hash and result, and the standings the server published. Read with the
game record's strict JSON reader (no duplicate keys, bounded numbers and nesting) and
checked field by field: a file is hostile until read.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.engine import names
from pbem.engine.record import TIME, RecordError, strict_json

from .entrants import Entrant
from .formats import MAX_ENTRANTS, EventRules, Format
from .pairing import Pairing
from .results import GameResult
from .standings import Standing

EVENT_FORMAT = "jaipur-event/1"
#: The most games (pairings) a record may hold.
MAX_PAIRINGS = 100_000
#: An entrant's, an event's or a game's id: what a URL may carry as it is.
ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
LEVEL = re.compile(r"[a-z0-9-]{1,32}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
#: No count or score in an event comes near this.
MAX_INT = 10**9
_TOP = ("format", "event_id", "name", "created_at", "rules", "commitment", "seed")
_TOP += ("entrants", "rounds", "standings")
_ENTRANT = ("id", "name", "rating", "computer_level", "withdrew_after")
_GAME = ("board", "game", "first", "second", "game_id", "chain_hash", "result")
_RESULT = ("winner", "seals", "points", "forfeit")
_STANDING = ("rank", "entrant", "match_points", "played", "wins", "losses", "byes", "tiebreaks")


class EventRecordError(RecordError):
    """The data is not a readable event record (``pbem verify`` says NOT A RECORD)."""


@dataclass(frozen=True, slots=True)
class EventRecord:
    """An event as its record states it; ``seed`` is None while the event runs."""

    event_id: str
    name: str
    rules: EventRules
    created_at: str
    commitment: str
    seed: str | None
    entrants: tuple[Entrant, ...]
    pairings: tuple[Pairing, ...]
    results: tuple[GameResult, ...]
    standings: tuple[Standing, ...]

    @property
    def seed_bytes(self) -> bytes | None:
        return None if self.seed is None else bytes.fromhex(self.seed)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON data: rounds in order, each with its pairings and results."""
        found = {(r.round, r.board, r.game): r for r in self.results}
        rounds: dict[int, list[dict[str, Any]]] = {}
        for p in sorted(self.pairings, key=lambda p: (p.round, p.board, p.game)):
            result = found.get((p.round, p.board, p.game))
            rounds.setdefault(p.round, []).append(
                {
                    "board": p.board,
                    "game": p.game,
                    "first": p.first,
                    "second": p.second,
                    "game_id": None if result is None else result.game_id,
                    "chain_hash": None if result is None else result.chain_hash,
                    "result": None
                    if result is None
                    else {
                        "winner": result.winner,
                        "seals": list(result.seals),
                        "points": list(result.points),
                        "forfeit": result.forfeit,
                    },
                }
            )
        return {
            "format": EVENT_FORMAT,
            "event_id": self.event_id,
            "name": self.name,
            "created_at": self.created_at,
            "rules": self.rules.to_json(),
            "commitment": self.commitment,
            "seed": self.seed,
            "entrants": [
                {
                    "id": e.id,
                    "name": e.name,
                    "rating": e.rating,
                    "computer_level": e.computer_level,
                    "withdrew_after": e.withdrew_after,
                }
                for e in self.entrants
            ],
            "rounds": [{"round": n, "games": games} for n, games in sorted(rounds.items())],
            "standings": [standing_json(s) for s in self.standings],
        }

    def dumps(self) -> str:
        """The record as a file's text (UTF-8 JSON, one space indent, a final newline)."""
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"


def standing_json(s: Standing) -> dict[str, Any]:
    """One line of the standings as the record writes it."""
    return {
        "rank": s.rank,
        "entrant": s.entrant,
        "match_points": s.match_points,
        "played": s.played,
        "wins": s.wins,
        "losses": s.losses,
        "byes": s.byes,
        "tiebreaks": dict(s.tiebreaks),
    }


# ---------------------------------------------------------------- reading


def _fail(why: str) -> EventRecordError:
    return EventRecordError(why)


def _object(value: Any, keys: tuple[str, ...], what: str) -> dict[str, Any]:
    """An object with exactly ``keys``: a field the format does not know is refused
    rather than kept unread (a reader that skipped it could see another event)."""
    if not isinstance(value, dict):
        raise _fail(f"{what} must be an object")
    if set(value) != set(keys):
        extra = sorted(set(value) - set(keys))
        missing = sorted(set(keys) - set(value))
        raise _fail(
            f"{what}: " + (f"unknown field {extra[0]!r}" if extra else f"no {missing[0]!r}")
        )
    return value


def _int(value: Any, what: str, low: int = 0) -> int:
    if type(value) is not int or not low <= value <= MAX_INT:
        raise _fail(f"{what} must be a whole number from {low}")
    return value


def _id(value: Any, what: str) -> str:
    if not isinstance(value, str) or not ID.fullmatch(value):
        raise _fail(f"{what} must be 1 to 64 letters, digits, '-' or '_'")
    return value


def _hex64(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise _fail(f"{what} must be 64 lower-case hex digits")
    return value


def _name(value: Any, what: str) -> str:
    problem = names.record_name_problem(value)
    if problem is not None:
        raise _fail(f"{what} is not usable ({problem.replace('_', ' ')})")
    return str(value)


def _list(value: Any, what: str, most: int) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(f"{what} must be a list")
    if len(value) > most:
        raise _fail(f"{what} has more than {most} items")
    return value


def _rules(value: Any) -> EventRules:
    raw = _object(value, ("format", "rounds", "rated"), "'rules'")
    try:
        fmt = Format(raw["format"]) if isinstance(raw["format"], str) else None
    except ValueError:
        fmt = None
    if fmt is None:
        raise _fail(f"'rules': unknown format; one of {', '.join(f.value for f in Format)}")
    if not isinstance(raw["rated"], bool):
        raise _fail("'rules': 'rated' must be true or false")
    if raw["rounds"] is not None:
        _int(raw["rounds"], "'rules': 'rounds'", 1)
    try:
        return EventRules(fmt, raw["rounds"], raw["rated"])
    except ValueError as exc:
        raise _fail(f"'rules': {exc}") from None


def _entrant(value: Any, i: int) -> Entrant:
    what = f"entrant {i + 1}"
    raw = _object(value, _ENTRANT, what)
    rating = raw["rating"]
    if rating is not None and (
        type(rating) not in (int, float) or not math.isfinite(rating) or abs(rating) > MAX_INT
    ):
        raise _fail(f"{what}: 'rating' must be a number or null")
    level = raw["computer_level"]
    if level is not None and (not isinstance(level, str) or not LEVEL.fullmatch(level)):
        raise _fail(f"{what}: 'computer_level' must be a level's name or null")
    withdrew = raw["withdrew_after"]
    return Entrant(
        id=_id(raw["id"], f"{what}: 'id'"),
        name=_name(raw["name"], f"{what}: the name"),
        rating=rating,
        computer_level=level,
        withdrew_after=None if withdrew is None else _int(withdrew, f"{what}: 'withdrew_after'"),
    )


def _pair(value: Any, round_no: int, ids: set[str]) -> tuple[Pairing, GameResult | None]:
    raw = _object(value, _GAME, f"round {round_no}: a game")
    board = _int(raw["board"], f"round {round_no}: 'board'", 1)
    where = f"round {round_no}, board {board}"
    game = _int(raw["game"], f"{where}: 'game'", 1)
    first = _id(raw["first"], f"{where}: 'first'")
    second = None if raw["second"] is None else _id(raw["second"], f"{where}: 'second'")
    for who in (first, second):
        if who is not None and who not in ids:
            raise _fail(f"{where}: {who!r} is not an entrant")
    if first == second:
        raise _fail(f"{where}: a player is paired with themselves")
    pairing = Pairing(round_no, board, first, second, game)
    if raw["result"] is None:
        if raw["game_id"] is not None or raw["chain_hash"] is not None:
            raise _fail(f"{where}: a game id or chain hash without a result")
        return pairing, None
    if second is None:
        raise _fail(f"{where}: a bye has no result")
    result = _object(raw["result"], _RESULT, f"{where}: 'result'")
    winner = result["winner"]
    if winner is not None and winner not in (first, second):
        raise _fail(f"{where}: the winner is not one of the two players")
    pairs = []
    for key in ("seals", "points"):
        got = _list(result[key], f"{where}: '{key}'", 2)
        if len(got) != 2:
            raise _fail(f"{where}: '{key}' must be two numbers")
        pairs.append((_int(got[0], f"{where}: '{key}'"), _int(got[1], f"{where}: '{key}'")))
    if not isinstance(result["forfeit"], bool):
        raise _fail(f"{where}: 'forfeit' must be true or false")
    if raw["chain_hash"] is not None and raw["game_id"] is None:
        raise _fail(f"{where}: a chain hash without the game's id")
    return pairing, GameResult(
        round=round_no,
        board=board,
        game=game,
        game_id=None if raw["game_id"] is None else _id(raw["game_id"], f"{where}: 'game_id'"),
        chain_hash=None
        if raw["chain_hash"] is None
        else _hex64(raw["chain_hash"], f"{where}: 'chain_hash'"),
        winner=winner,
        seals=pairs[0],
        points=pairs[1],
        forfeit=result["forfeit"],
    )


def _standing(value: Any, i: int, ids: set[str]) -> Standing:
    what = f"standing {i + 1}"
    raw = _object(value, _STANDING, what)
    entrant = _id(raw["entrant"], f"{what}: 'entrant'")
    if entrant not in ids:
        raise _fail(f"{what}: {entrant!r} is not an entrant")
    tiebreaks = raw["tiebreaks"]
    if not isinstance(tiebreaks, dict) or len(tiebreaks) > 8:
        raise _fail(f"{what}: 'tiebreaks' must be an object of numbers")
    return Standing(
        rank=_int(raw["rank"], f"{what}: 'rank'", 1),
        entrant=entrant,
        match_points=_int(raw["match_points"], f"{what}: 'match_points'"),
        played=_int(raw["played"], f"{what}: 'played'"),
        wins=_int(raw["wins"], f"{what}: 'wins'"),
        losses=_int(raw["losses"], f"{what}: 'losses'"),
        byes=_int(raw["byes"], f"{what}: 'byes'"),
        tiebreaks=tuple(
            (_id(k, f"{what}: a tie-break's name"), _int(v, f"{what}: tie-break {k!r}"))
            for k, v in tiebreaks.items()
        ),
    )


def parse(data: str | bytes | dict[str, Any]) -> EventRecord:
    """An ``EventRecord`` from JSON text or data; ``EventRecordError`` if it is not one."""
    if isinstance(data, str | bytes):
        try:
            data = strict_json(data)
        except EventRecordError:
            raise
        except RecordError as exc:
            raise _fail(str(exc)) from None
    if not isinstance(data, dict):
        raise _fail("an event record is a JSON object")
    if data.get("format") != EVENT_FORMAT:
        raise _fail(f"not a {EVENT_FORMAT} record (format is {str(data.get('format'))[:40]!r})")
    raw = _object(data, _TOP, "the record")
    created = raw["created_at"]
    if not isinstance(created, str) or not TIME.fullmatch(created):
        raise _fail("'created_at' must be a UTC time like 2026-12-02T09:05:11Z")
    try:
        datetime.fromisoformat(created[:-1])
    except ValueError:
        raise _fail(f"'created_at' is not a real time: {created}") from None
    entrants = tuple(
        _entrant(e, i) for i, e in enumerate(_list(raw["entrants"], "'entrants'", MAX_ENTRANTS))
    )
    ids = {e.id for e in entrants}
    if len(ids) != len(entrants):
        raise _fail("two entrants have the same id")
    pairings: list[Pairing] = []
    results: list[GameResult] = []
    seen: set[tuple[int, int, int]] = set()
    for n, raw_round in enumerate(_list(raw["rounds"], "'rounds'", MAX_PAIRINGS), start=1):
        got = _object(raw_round, ("round", "games"), f"round {n}")
        if got["round"] != n or type(got["round"]) is not int:
            raise _fail(f"round {n} is numbered {str(got['round'])[:20]}")
        for value in _list(got["games"], f"round {n}: 'games'", MAX_PAIRINGS):
            pairing, result = _pair(value, n, ids)
            key = (pairing.round, pairing.board, pairing.game)
            if key in seen:
                raise _fail(f"round {n}, board {pairing.board}: game {pairing.game} twice")
            seen.add(key)
            pairings.append(pairing)
            if result is not None:
                results.append(result)
        if len(pairings) > MAX_PAIRINGS:
            raise _fail(f"more than {MAX_PAIRINGS} games")
    standings = tuple(
        _standing(s, i, ids)
        for i, s in enumerate(_list(raw["standings"], "'standings'", MAX_ENTRANTS))
    )
    return EventRecord(
        event_id=_id(raw["event_id"], "'event_id'"),
        name=_name(raw["name"], "the event's name"),
        rules=_rules(raw["rules"]),
        created_at=created,
        commitment=_hex64(raw["commitment"], "'commitment'"),
        seed=None if raw["seed"] is None else _hex64(raw["seed"], "'seed'"),
        entrants=entrants,
        pairings=tuple(pairings),
        results=tuple(results),
        standings=standings,
    )


def read_event(path: str) -> EventRecord:
    """Read an event record file; ``EventRecordError`` for a missing or unreadable one."""
    try:
        with open(path, "rb") as f:
            return parse(f.read())
    except OSError as exc:
        raise _fail(f"cannot read {path}: {exc.strerror}") from None


def is_event(data: Any) -> bool:
    """Whether parsed JSON data says it is an event record (its ``format`` field)."""
    return isinstance(data, dict) and data.get("format") == EVENT_FORMAT
