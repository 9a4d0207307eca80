"""Standings on hand-made events whose tie-breaks were worked out by hand."""

from __future__ import annotations

import pytest

from pbem.events import (
    Entrant,
    EventRules,
    Format,
    GameResult,
    Pairing,
    crosstable,
    standings,
)

SEED = bytes(range(32))
RR = EventRules(Format.ROUND_ROBIN)


def people(*ids: str) -> list[Entrant]:
    return [Entrant(i, i.upper()) for i in ids]


def games(*played: tuple[int, str, str, str | None], seals=(2, 1), points=(70, 60)):
    """Pairings and results from (round, first, second, winner); ``second`` None: a bye."""
    pairings, results, boards = [], [], {}
    for round_no, first, second, winner in played:
        board = boards[round_no] = boards.get(round_no, 0) + 1
        pairings.append(Pairing(round_no, board, first, second))
        if second is not None:
            s = seals if winner == first else seals[::-1]
            p = points if winner == first else points[::-1]
            results.append(GameResult(round_no, board, None, None, winner, s, p))
    return pairings, results


def table(rules, entrants, pairings, results, seed=SEED):
    return {
        s.entrant: (s.rank, s.match_points, dict(s.tiebreaks))
        for s in standings(rules, entrants, pairings, results, seed)
    }


def test_round_robin_sonneborn_berger():
    p, r = games(
        (1, "a", "b", "a"), (1, "c", "d", "c"), (2, "a", "c", "a"),
        (2, "b", "d", "b"), (3, "d", "a", "d"), (3, "b", "c", "b"),
    )  # fmt: skip
    got = table(RR, people("a", "b", "c", "d"), p, r)
    assert [got[x][2]["sonneborn_berger"] for x in "abcd"] == [3, 2, 1, 2]
    order = [s.entrant for s in standings(RR, people("a", "b", "c", "d"), p, r, SEED)]
    assert order == ["a", "b", "d", "c"]
    assert [got[x][0] for x in order] == [1, 2, 3, 4]


def test_head_to_head_comes_before_seals():
    # a and b: 1 point and SB 1 each; a beat b; b won more seals
    p, r = games((1, "a", "b", "a"), (1, "x", "y", "x"), (2, "b", "x", "b"))
    r = [
        GameResult(1, 1, None, None, "a", (2, 1), (60, 50)),
        GameResult(1, 2, None, None, "x", (2, 0), (60, 50)),
        GameResult(2, 1, None, None, "b", (2, 0), (90, 10)),
    ]
    got = table(RR, people("a", "b", "x", "y"), p, r)
    assert got["a"][2]["sonneborn_berger"] == got["b"][2]["sonneborn_berger"] == 1
    assert got["a"][2]["head_to_head"] == 1 and got["b"][2]["head_to_head"] == 0
    assert got["b"][2]["seals"] > got["a"][2]["seals"]
    assert got["a"][0] < got["b"][0]


def test_swiss_buchholz_and_median_buchholz_with_byes():
    rules = EventRules(Format.SWISS, 3)
    p, r = games(
        (1, "a", "b", "a"), (1, "c", "d", "c"), (1, "e", None, None),
        (2, "e", "a", "e"), (2, "b", "c", "b"), (2, "d", None, None),
        (3, "a", "c", "a"), (3, "b", "e", "b"), (3, "d", None, None),
    )  # fmt: skip
    got = table(rules, people("a", "b", "c", "d", "e"), p, r)
    points = {x: got[x][1] for x in "abcde"}
    assert points == {"a": 2, "b": 2, "c": 1, "d": 2, "e": 2}
    assert {x: got[x][2]["buchholz"] for x in "abcde"} == {"a": 5, "b": 5, "c": 6, "d": 1, "e": 4}
    median = {x: got[x][2]["median_buchholz"] for x in "abcde"}
    assert median == {"a": 2, "b": 2, "c": 2, "d": 1, "e": 4}


def test_byes_and_forfeits_score_a_point_and_no_seals():
    p = [Pairing(1, 1, "a", "b"), Pairing(1, 2, "c", None)]
    r = [GameResult(1, 1, None, None, "b", forfeit=True, seals=(0, 0), points=(0, 0))]
    got = {s.entrant: s for s in standings(RR, people("a", "b", "c"), p, r, SEED)}
    assert got["b"].match_points == 1 and got["c"].match_points == 1 and got["c"].byes == 1
    assert got["a"].match_points == 0 and got["a"].losses == 1
    assert dict(got["b"].tiebreaks)["seals"] == 0


def test_full_ties_share_a_rank_in_the_seeds_lot_order():
    p, r = games((1, "a", "b", "a"), (1, "c", "d", "c"))
    everyone = people("a", "b", "c", "d")
    one = standings(RR, everyone, p, r, SEED)
    assert [s.rank for s in one] == [1, 1, 3, 3]
    other = standings(RR, everyone, p, r, bytes(32))
    orders = {tuple(s.entrant for s in x) for x in (one, other)}
    assert all({o[0], o[1]} == {"a", "c"} for o in orders)
    assert one == standings(RR, list(reversed(everyone)), p, r, SEED)  # the lot, not the list


def test_elimination_ranks_by_rounds_won():
    rules = EventRules(Format.ELIMINATION)
    p, r = games((1, "a", "b", "a"), (1, "c", "d", "d"), (2, "a", "d", "d"))
    order = [s.entrant for s in standings(rules, people("a", "b", "c", "d"), p, r, SEED)]
    assert order[:2] == ["d", "a"]


def test_the_crosstable_of_a_round_robin():
    p, r = games((1, "a", "b", "a"), (1, "c", "d", "c"), (2, "a", "c", "c"))
    cross = crosstable(RR, people("a", "b", "c", "d"), p, r, SEED)
    assert cross.order[0] == "c"
    (cell,) = cross.cells[("a", "b")]
    assert cell.score == 1 and cell.first
    (cell,) = cross.cells[("b", "a")]
    assert cell.score == 0 and not cell.first
    assert ("a", "d") not in cross.cells
    with pytest.raises(ValueError):
        crosstable(EventRules(Format.SWISS, 2), people("a", "b"), [], [], SEED)
