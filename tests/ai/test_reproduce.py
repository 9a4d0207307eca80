"""A finished game's computer moves, played again from its record (``pbem.ai.reproduce``)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem import ai
from pbem.ai.reproduce import (
    NO_PROGRAM,
    OTHER_PROGRAM,
    ComputerFieldError,
    FieldContradicted,
    check_field,
    computer_field,
    read_computer,
    reproduce,
)
from pbem.engine import load_record, verify

from ..engine.records import play_record
from .games import COMPUTER, SEED, computer_game

_EMPTY = play_record(SEED, 2, stop_after=2)


@pytest.fixture(scope="module")
def game():
    return computer_game()


def computer_moves(game) -> list[int]:
    return [e.n for e in game.moves if e.seat == COMPUTER]


def with_field(game, field):
    return replace(game, extra={"computer": field})


def test_every_computer_move_of_a_finished_game_is_played_again_the_same(game) -> None:
    assert verify(game).ok
    check_field(game, read_computer(game))
    done = list(reproduce(game, read_computer(game)))
    assert [d.n for d in done] == computer_moves(game) and len(done) >= 10
    assert all(d.same and d.program == ai.VERSION for d in done)


def test_the_field_survives_the_file(game) -> None:
    again = load_record(game.to_json())
    assert read_computer(again) == read_computer(game)
    assert game.to_json()["computer"]["programs"] == [
        {"program": ai.VERSION, "moves": computer_moves(game)}
    ]


def test_another_level_plays_other_moves(game) -> None:
    """The field is outside every hash: naming the wrong level does not pass unnoticed."""
    field = {**game.extra["computer"], "level": "normal"}
    done = list(reproduce(game, read_computer(replace(game, extra={"computer": field}))))
    assert not all(d.same for d in done)


def test_a_move_the_computer_did_not_choose_is_found(game) -> None:
    """A person's moves named as the computer's (the seat swapped): they differ, and its
    resignation (not on its turn) is no move the computer makes."""
    person = [e.n for e in game.moves if e.seat != COMPUTER]
    field = computer_field(1 - COMPUTER, "easy", {n: ai.VERSION for n in person})
    names = ({"seat": 0, "name": "Computer (easy)"}, {"seat": 1, "name": "Ada"})
    record = replace(with_field(game, field), players=names)  # the names swapped as well
    swapped = read_computer(record)
    check_field(record, swapped)
    done = list(reproduce(record, swapped))
    assert [d.n for d in done] == person
    assert any(not d.same for d in done[:-1])
    assert done[-1].recorded == "resign" and not done[-1].same


def test_moves_of_another_program_or_of_none_are_not_played_again(game) -> None:
    mine = computer_moves(game)
    programs: dict[int, str | None] = {n: ai.VERSION for n in mine}
    programs.update({n: None for n in mine[:2]})  # logged before the log named programs
    programs.update({n: "pbem-ai/1" for n in mine[2:4]})
    field = computer_field(COMPUTER, "easy", programs)
    computer = read_computer(with_field(game, field))
    check_field(game, computer)
    done = list(reproduce(game, computer))
    assert [(d.n, d.skipped) for d in done if d.again is None] == [
        *((n, NO_PROGRAM) for n in mine[:2]),
        *((n, OTHER_PROGRAM) for n in mine[2:4]),
    ]
    assert all(d.same for d in done if d.again is not None)
    assert sum(1 for d in done if d.again is not None) == len(mine) - 4
    # the person checking may say which program the unnamed ones are
    assumed = list(reproduce(game, computer, assume=ai.VERSION))
    assert [d.n for d in assumed if d.again is None] == mine[2:4]
    assert all(d.same for d in assumed if d.again is not None)


def test_a_field_that_contradicts_the_record_or_itself_fails(game) -> None:
    mine = computer_moves(game)
    left_out = computer_field(COMPUTER, "easy", {n: ai.VERSION for n in mine[1:]})
    with pytest.raises(FieldContradicted, match=f"leaves out move {mine[0]}"):
        check_field(game, read_computer(with_field(game, left_out)))
    programs: dict[int, str | None] = {n: ai.VERSION for n in mine}
    programs[mine[5]] = None  # a move naming none after one that named one
    unnamed = computer_field(COMPUTER, "easy", programs)
    with pytest.raises(FieldContradicted, match=f"move {mine[5]} no program"):
        check_field(game, read_computer(with_field(game, unnamed)))
    strong = {**game.extra["computer"], "level": "strong"}
    with pytest.raises(FieldContradicted, match=r"named 'Computer \(easy\)', not 'Computer"):
        check_field(game, read_computer(with_field(game, strong)))
    # the seat moved to the person's: the computer's name is in the other seat
    person = {e.n: ai.VERSION for e in game.moves if e.seat != COMPUTER}
    other = computer_field(1 - COMPUTER, "easy", person)
    with pytest.raises(FieldContradicted, match="is named 'Ada'"):
        check_field(game, read_computer(with_field(game, other)))
    # a list of players without seats is read in order, seat 0 first
    unseated = replace(game, players=({"name": "Ada"}, {"name": "Computer (strong)"}))
    with pytest.raises(FieldContradicted, match=r"named 'Computer \(strong\)'"):
        check_field(unseated, read_computer(unseated))
    # a person may be named like the computer: only the computer's seat's name counts
    twin = replace(game, players=({"seat": 0, "name": "Computer (easy)"}, game.players[1]))
    check_field(twin, read_computer(twin))


def test_an_entry_without_its_seat_is_refused(game) -> None:
    """A version-1 file may leave seats out; the server writes them, and a move of nobody's
    would escape the check."""
    from pbem.engine.record import LoggedMove

    moves = tuple(
        LoggedMove(e.n, e.move, None, e.at, e.hash, e.position) if i == 3 else e
        for i, e in enumerate(game.moves)
    )
    with pytest.raises(ComputerFieldError, match="names no seat"):
        check_field(replace(game, moves=moves), read_computer(game))


@pytest.mark.parametrize(
    ("field", "says"),
    [
        (None, "no computer field"),
        ([], "not an object"),
        ({"seat": 2, "level": "easy", "programs": []}, "seat is not 0 or 1"),
        ({"seat": True, "level": "easy", "programs": []}, "seat is not 0 or 1"),
        ({"seat": 1, "level": "grandmaster", "programs": []}, "level is not one of"),
        ({"seat": 1, "level": "easy", "programs": {}}, "programs is not a list"),
        ({"seat": 1, "level": "easy", "programs": [7]}, "not an object"),
        ({"seat": 1, "level": "easy", "programs": [{"program": "x" * 41, "moves": [2]}]}, "ASCII"),
        ({"seat": 1, "level": "easy", "programs": [{"program": "a\nb", "moves": [2]}]}, "ASCII"),
        ({"seat": 1, "level": "easy", "programs": [{"program": "", "moves": [2]}]}, "ASCII"),
        ({"seat": 1, "level": "easy", "programs": [{"program": "p", "moves": "2"}]}, "numbers"),
        ({"seat": 1, "level": "easy", "programs": [{"program": "p", "moves": [0]}]}, "numbers"),
        ({"seat": 1, "level": "easy", "programs": [{"program": "p", "moves": [2.0]}]}, "numbers"),
        (
            {
                "seat": 1,
                "level": "easy",
                "programs": [{"program": "p", "moves": [2]}, {"program": "q", "moves": [2]}],
            },
            "named twice",
        ),
        ({"seat": 1, "level": "easy", "programs": [], "note": "x"}, "other keys"),
        ({"seat": 1, "level": "easy", "programs": [{"program": "p", "moves": [], "x": 1}]}, "keys"),
    ],
)
def test_a_malformed_field_is_refused_with_a_reason(game, field, says) -> None:
    extra = {} if field is None else {"computer": field}
    with pytest.raises(ComputerFieldError, match=says):
        read_computer(replace(game, extra=extra))


@pytest.mark.parametrize("which", ["person", "absent"])
def test_a_field_naming_a_move_that_is_not_the_computers_fails(game, which) -> None:
    n = next(e.n for e in game.moves if e.seat != COMPUTER) if which == "person" else 999
    programs = {m: ai.VERSION for m in computer_moves(game)} | {n: ai.VERSION}
    field = computer_field(COMPUTER, "easy", programs)
    with pytest.raises(FieldContradicted, match=f"move {n}, which is not a move of seat"):
        check_field(game, read_computer(with_field(game, field)))


def test_a_running_game_has_nothing_to_reproduce(game) -> None:
    running = replace(game, seed=None)
    with pytest.raises(ComputerFieldError, match="not over"):
        list(reproduce(running, read_computer(running)))


@given(
    st.dictionaries(
        st.integers(1, 500),
        st.one_of(st.none(), st.sampled_from(["pbem-ai/1", "pbem-ai/2", "x"])),
        max_size=40,
    ),
    st.sampled_from([0, 1]),
    st.sampled_from(list(ai.LEVELS)),
)
def test_the_written_field_reads_back(programs, seat, level) -> None:
    field = computer_field(seat, level, programs)
    read = read_computer(replace(_EMPTY, extra={"computer": field}))
    assert (read.seat, read.level, dict(read.programs)) == (seat, level, programs)
