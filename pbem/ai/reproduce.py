"""A finished game's computer moves, played again from its record (``pbem reproduce``).

The computer's move ``n`` is ``play(match, seat, round_moves, level, move_seed(seed, n))``
on the position before it, with the moves of the round so far (docs/computer.md,
"Fairness"): a finished game's record holds all of that (the seed, the moves), and its
``computer`` field says which seat the computer played, at which level, and which
program (``VERSION``) chose each of its moves. A move chosen by this ``VERSION`` is
played again and compared; one named with another program, or with none (logged before
the log named it), is reported as not played again, never judged.

The ``computer`` field is informative and outside every hash (docs/record-format.md
§4.2): anyone can edit it. That is harmless here: a field that names the wrong seat,
level or program makes moves differ or go unchecked, and the command says so; it cannot
make a move the computer did not choose pass as its own, since the move is chosen again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pbem.engine.moves import Claim, Move, Resign, Timeout
from pbem.engine.record import Record, parse_logged, replay_states

from . import LEVELS, VERSION, move_seed, play

#: A program's name in the field: short printable ASCII (the server writes ``pbem-ai/2``).
_PROGRAM_LENGTH = 40


class ComputerFieldError(ValueError):
    """The record's ``computer`` field is missing or not as docs/record-format.md says."""


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
    """One computer move: as the record has it, and as this version plays it again."""

    n: int
    recorded: str
    program: str | None
    #: This version's move in the same position with the same dice; None when the move
    #: was chosen by another program (or by one the log did not name): not played again.
    again: str | None

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


def reproduce(record: Record, computer: Computer) -> Iterator[Reproduced]:
    """Each of the computer's moves of ``record`` in order, played again where this
    version chose it. The record must be a finished game's, with its seed (verify it
    first: a log that does not replay stops here with the engine's ``ReplayError``)."""
    seed = record.seed_bytes
    if seed is None:
        raise ComputerFieldError("the record has no seed: the game is not over")
    by_n = {entry.n: entry for entry in record.moves}
    for n in computer.programs:
        entry = by_n.get(n)
        if entry is None or entry.seat != computer.seat:
            raise ComputerFieldError(
                f"the computer field names move {n}, which is not a move of seat "
                f"{computer.seat} in the record"
            )
    round_moves: list[Move] = []
    states = replay_states(seed, record.moves, record.first_player)
    before = next(states)
    for entry, after in zip(record.moves, states, strict=False):
        if entry.n in computer.programs:
            program = computer.programs[entry.n]
            again = None
            if program == VERSION:
                again = str(
                    play(
                        before, computer.seat, round_moves, computer.level, move_seed(seed, entry.n)
                    )
                )
            yield Reproduced(entry.n, entry.move, program, again)
        move = parse_logged(entry.move)
        if after.round_number != before.round_number:
            round_moves = []
        elif not isinstance(move, Timeout | Claim | Resign):
            round_moves.append(move)
        before = after
