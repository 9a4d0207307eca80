"""A finished game's computer moves, played again from its record (``pbem reproduce``).

The computer's move ``n`` is ``play(match, seat, round_moves, level, move_seed(seed, n))``
on the position before it, with the moves of the round so far (docs/computer.md,
"Fairness"): a finished game's record holds all of that (the seed, the moves), and its
``computer`` field says which seat the computer played, at which level, and which
program (``VERSION``) chose each of its moves.

Every entry of the computer's seat is looked at, whatever the field lists: the field,
informative and bound by no hash (docs/record-format.md §4.2), only says which program
chose a move. A move this ``VERSION`` chose is played again and compared; one the field
gives to another program, to none, or leaves out is reported as not played again. So an
edited field can keep a move from being checked, and the count of such moves is said,
but it cannot make a move the computer did not choose pass as checked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pbem.engine.match import Match
from pbem.engine.moves import Claim, Move, Resign, Timeout
from pbem.engine.record import Record, parse_logged, replay_states

from . import LEVELS, VERSION, move_seed, play, player_name

#: A program's name in the field: short printable ASCII (the server writes ``pbem-ai/2``).
_PROGRAM_LENGTH = 40


class ComputerFieldError(ValueError):
    """The record's ``computer`` field is missing or not as docs/record-format.md says."""


class FieldContradicted(ComputerFieldError):
    """The field is well formed but contradicts the record or itself: a failed check."""


#: Why a move was not played again (``Reproduced.skipped``).
OTHER_PROGRAM = "other program"
NO_PROGRAM = "no program"


@dataclass(frozen=True, slots=True)
class Computer:
    """The record's ``computer`` field, read: its seat, level and each move's program."""

    seat: int
    level: str
    #: Each of the computer's moves (by number) and the program that chose it (None: the
    #: log did not name one).
    programs: Mapping[int, str | None]


@dataclass(frozen=True, slots=True)
class Reproduced:
    """One move of the computer's seat: as the record has it, and as this version plays it."""

    n: int
    recorded: str
    #: The program the field names for it (None: none, or the field does not list it).
    program: str | None
    #: This version's move in the same position with the same dice (or why there is none:
    #: an entry of the computer's seat logged when it was not its turn); None when the
    #: move was not played again (``skipped`` says why).
    again: str | None
    skipped: str | None = None

    @property
    def same(self) -> bool:
        return self.again == self.recorded


def read_computer(record: Record) -> Computer:
    """The ``computer`` field of ``record`` (``ComputerFieldError`` if absent or malformed)."""
    data = record.extra.get("computer")
    if data is None:
        raise ComputerFieldError("the record has no computer field: no computer played in it")
    if not isinstance(data, dict):
        raise ComputerFieldError("the computer field is not an object")
    if set(data) != {"seat", "level", "programs"}:
        raise ComputerFieldError("the computer field has other keys than seat, level, programs")
    seat, level, groups = data.get("seat"), data.get("level"), data.get("programs")
    if type(seat) is not int or seat not in (0, 1):
        raise ComputerFieldError("the computer field's seat is not 0 or 1")
    if not isinstance(level, str) or level not in LEVELS:
        raise ComputerFieldError(f"the computer field's level is not one of {', '.join(LEVELS)}")
    if not isinstance(groups, list):
        raise ComputerFieldError("the computer field's programs is not a list")
    programs: dict[int, str | None] = {}
    for group in groups:
        programs.update(_group(group, programs))
    return Computer(seat, level, programs)


def _group(group: Any, seen: Mapping[int, str | None]) -> dict[int, str | None]:
    if not isinstance(group, dict):
        raise ComputerFieldError("an entry of the computer field's programs is not an object")
    if set(group) != {"program", "moves"}:
        raise ComputerFieldError("an entry of the computer field's programs has other keys")
    program, numbers = group.get("program"), group.get("moves")
    if program is not None and not (
        isinstance(program, str)
        and 0 < len(program) <= _PROGRAM_LENGTH
        and program.isascii()
        and program.isprintable()
    ):
        raise ComputerFieldError(
            f"a program's name is not printable ASCII of 1 to {_PROGRAM_LENGTH} characters"
        )
    if not isinstance(numbers, list):
        raise ComputerFieldError("a program's moves are not a list of move numbers")
    out: dict[int, str | None] = {}
    for n in numbers:
        if type(n) is not int or n < 1:
            raise ComputerFieldError("a program's moves are not a list of move numbers")
        if n in seen or n in out:
            raise ComputerFieldError(f"move {n} is named twice in the computer field")
        out[n] = program
    return out


def computer_field(seat: int, level: str, programs: Mapping[int, str | None]) -> dict[str, Any]:
    """The ``computer`` field as the server writes it: the moves grouped by program, in
    the order each program first played (``read_computer`` reads it back)."""
    groups: dict[str | None, list[int]] = {}
    for n in sorted(programs):
        groups.setdefault(programs[n], []).append(n)
    return {
        "seat": seat,
        "level": level,
        "programs": [{"program": p, "moves": ns} for p, ns in groups.items()],
    }


def check_field(record: Record, computer: Computer) -> None:
    """``FieldContradicted`` where the field cannot be what the server wrote: it names a move
    that is not the seat's or leaves one of the seat's out (every move of the computer's
    seat is the computer's: the server logs no other for it), a move naming no program
    after one that named one (the log names programs from the day it began to, for every
    move after), or another seat or level than the players' names say ("Computer (easy)").
    ``ComputerFieldError`` for an entry without its seat (the server writes every seat)."""
    if any(entry.seat is None for entry in record.moves):
        raise ComputerFieldError("an entry of the record names no seat (the server writes each)")
    by_n = {entry.n: entry for entry in record.moves}
    for n in computer.programs:
        entry = by_n.get(n)
        if entry is None or entry.seat != computer.seat:
            raise FieldContradicted(
                f"the computer field names move {n}, which is not a move of seat "
                f"{computer.seat} in the record"
            )
    left_out = [
        e.n for e in record.moves if e.seat == computer.seat and e.n not in computer.programs
    ]
    if left_out:
        raise FieldContradicted(
            f"the computer field leaves out move {left_out[0]} of seat {computer.seat}"
            + (f" and {len(left_out) - 1} more" if len(left_out) > 1 else "")
        )
    named = None
    for n in sorted(computer.programs):
        if computer.programs[n] is not None:
            named = named or n
        elif named is not None:
            raise FieldContradicted(
                f"the computer field gives move {n} no program, after move {named} named one"
            )
    _check_names(record, computer)


def _check_names(record: Record, computer: Computer) -> None:
    """The players' names are informative too, but the server names the computer's seat
    "Computer (<level>)" and nothing renames it: a field whose seat's player has another
    name, in a record that names its players, fails."""
    players = [p for p in record.players if isinstance(p, dict)]
    seated = {p.get("seat"): p.get("name") for p in players if p.get("seat") in (0, 1)}
    if not seated and len(players) == 2:  # a reader takes a list without seats in order
        seated = {0: players[0].get("name"), 1: players[1].get("name")}
    name = seated.get(computer.seat)
    if not isinstance(name, str):
        return
    if name != player_name(computer.level):
        raise FieldContradicted(
            f"the computer field says seat {computer.seat} at {computer.level}; the player "
            f"in seat {computer.seat} is named {name!r}, not {player_name(computer.level)!r}"
        )


def reproduce(
    record: Record, computer: Computer, assume: str | None = None
) -> Iterator[Reproduced]:
    """Each entry of the computer's seat in ``record``, in order, played again where this
    version chose it (``assume``: the program of the moves that name none, as the person
    running the check asserts). The record must have its seed and be checked first
    (``verify``: a log that does not replay stops here with the engine's ``ReplayError``;
    ``check_field``)."""
    seed = record.seed_bytes
    if seed is None:
        raise ComputerFieldError("the record has no seed: the game is not over")
    round_moves: list[Move] = []
    states = replay_states(seed, record.moves, record.first_player)
    before = next(states)
    for entry, after in zip(record.moves, states, strict=False):
        if entry.seat == computer.seat:
            yield _again(entry.n, entry.move, before, round_moves, seed, computer, assume)
        move = parse_logged(entry.move)
        if after.round_number != before.round_number:
            round_moves = []
        elif not isinstance(move, Timeout | Claim | Resign):
            round_moves.append(move)
        before = after


def _again(
    n: int,
    recorded: str,
    before: Match,
    round_moves: list[Move],
    seed: bytes,
    computer: Computer,
    assume: str | None,
) -> Reproduced:
    named = computer.programs.get(n)  # every move of the seat is listed (``check_field``)
    program = named if named is not None else assume
    if program != VERSION:
        why = OTHER_PROGRAM if named is not None else NO_PROGRAM
        return Reproduced(n, recorded, named, None, why)
    if before.to_move != computer.seat:  # a resignation, say: the computer never makes one
        return Reproduced(n, recorded, program, "no move (it was not the computer's turn)")
    again = play(before, computer.seat, round_moves, computer.level, move_seed(seed, n))
    return Reproduced(n, recorded, program, str(again))
