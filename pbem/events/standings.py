"""Standings and the round robin's crosstable (docs/record-format.md §10.5).

Match points: a win 1, a loss 0, a bye 1, a forfeit win 1; a game with no winner 0 for
both (Jaipur has no draw: a match ends with two seals). Then, by format:

- round robin: Sonneborn–Berger (the match points of the players one beat), head-to-head
  (match points in the games among the players still tied), seals won, round points;
- Swiss: Buchholz (the opponents' match points; a bye adds 0), median Buchholz
  (without the best and worst opponent, with three or more), seals won, round points;
- elimination: rounds won, seals won, round points.

Players tied on all of these are ordered by lot: a shuffle of their ids drawn from the
seed (``jaipur-event/1/lot/0``), shown as a shared rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import commitment
from .entrants import Entrant
from .formats import EventRules, Format
from .history import history, key_of, results_by_key
from .pairing import Pairing, board_winner
from .results import GameResult

#: The tie-breaks of each format, in the order they count.
TIEBREAKS: dict[Format, tuple[str, ...]] = {
    Format.ROUND_ROBIN: ("sonneborn_berger", "head_to_head", "seals", "round_points"),
    Format.DOUBLE_ROUND_ROBIN: ("sonneborn_berger", "head_to_head", "seals", "round_points"),
    Format.SWISS: ("buchholz", "median_buchholz", "seals", "round_points"),
    Format.ELIMINATION: ("rounds_won", "seals", "round_points"),
}


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings. ``rank`` is shared by players tied on every number
    (their order among themselves is the lot's). ``tiebreaks`` are (name, value) in the
    order they count: names ``sonneborn_berger``, ``head_to_head``, ``buchholz``,
    ``median_buchholz``, ``rounds_won``, ``seals``, ``round_points``."""

    rank: int
    entrant: str
    match_points: int
    played: int
    wins: int
    losses: int
    byes: int
    tiebreaks: tuple[tuple[str, int], ...]


def standings(
    rules: EventRules,
    entrants: Sequence[Entrant],
    pairings: Sequence[Pairing],
    results: Sequence[GameResult],
    seed: bytes | None = None,
) -> list[Standing]:
    """The standings after ``results`` (live while games run: a game without a result
    counts for nothing yet). Without ``seed`` (a running event seen from outside the
    server) full ties keep the entrants' order and share a rank."""
    ids = [e.id for e in entrants]
    past = history(ids, pairings, results)
    names = TIEBREAKS[rules.format]
    values: dict[str, dict[str, int]] = {i: {} for i in ids}
    won = _rounds_won(pairings, results) if rules.format is Format.ELIMINATION else {}
    for i in ids:
        p = past[i]
        row = values[i]
        row["seals"] = p.seals
        row["round_points"] = p.round_points
        row["rounds_won"] = won.get(i, 0)
        row["sonneborn_berger"] = sum(past[o].points for o in p.beaten if o in past)
        scores = sorted(past[o].points for o in p.opponents if o in past)
        row["buchholz"] = sum(scores)
        row["median_buchholz"] = sum(scores[1:-1]) if len(scores) >= 3 else sum(scores)
    first = "rounds_won" if rules.format is Format.ELIMINATION else None

    def head(i: str) -> tuple[int, ...]:
        lead = values[i][first] if first else past[i].points
        return (lead,)

    # Sort by match points (or rounds won) and each tie-break in turn; head-to-head is
    # worked out within each group still tied when its turn comes.
    keys: dict[str, tuple[int, ...]] = {i: head(i) for i in ids}
    for name in names:
        if name == first:
            continue
        if name == "head_to_head":
            for group in _groups(ids, keys):
                members = set(group)
                for i in group:
                    values[i][name] = _points_among(i, members, pairings, results)
        keys = {i: (*keys[i], values[i][name]) for i in ids}
    lot = _lot(ids, seed)
    ordered = sorted(ids, key=lambda i: (tuple(-k for k in keys[i]), lot[i]))
    out: list[Standing] = []
    for place, i in enumerate(ordered, start=1):
        rank = out[-1].rank if out and keys[out[-1].entrant] == keys[i] else place
        p = past[i]
        out.append(
            Standing(
                rank=rank,
                entrant=i,
                match_points=p.points,
                played=p.played,
                wins=p.wins,
                losses=p.losses,
                byes=p.byes,
                tiebreaks=tuple((n, values[i][n]) for n in names),
            )
        )
    return out


def _lot(ids: Sequence[str], seed: bytes | None) -> dict[str, int]:
    """Each id's place in the lot: a shuffle drawn from ``lot/0`` (without the seed,
    the entrants' own order)."""
    drawn = list(ids) if seed is None else commitment.shuffled(seed, sorted(ids), "lot", 0)
    return {x: n for n, x in enumerate(drawn)}


def _groups(ids: Sequence[str], keys: dict[str, tuple[int, ...]]) -> list[list[str]]:
    groups: dict[tuple[int, ...], list[str]] = {}
    for i in ids:
        groups.setdefault(keys[i], []).append(i)
    return list(groups.values())


def _points_among(
    i: str, members: set[str], pairings: Sequence[Pairing], results: Sequence[GameResult]
) -> int:
    """Games ``i`` won against the other ``members`` (head-to-head)."""
    found = results_by_key(results)
    total = 0
    for p in pairings:
        if p.second is None or i not in (p.first, p.second):
            continue
        other = p.second if p.first == i else p.first
        result = found.get(key_of(p))
        if other in members and other != i and result is not None and result.winner == i:
            total += 1
    return total


def _rounds_won(pairings: Sequence[Pairing], results: Sequence[GameResult]) -> dict[str, int]:
    """Elimination: how many rounds each entrant went through (a bye counts)."""
    found = results_by_key(results)
    boards: dict[tuple[int, int], list[Pairing]] = {}
    for p in pairings:
        boards.setdefault((p.round, p.board), []).append(p)
    won: dict[str, int] = {}
    for board in boards.values():
        decided, winner = board_winner(board, found)
        if decided and winner is not None:
            won[winner] = won.get(winner, 0) + 1
    return won


@dataclass(frozen=True, slots=True)
class Cell:
    """One game between a row's player and a column's: ``score`` 1, 0, or None (not
    finished); ``first`` whether the row's player moved first."""

    score: int | None
    first: bool
    forfeit: bool
    game_id: str | None


@dataclass(frozen=True, slots=True)
class Crosstable:
    """Rows and columns in standings order; ``cells[(row, column)]`` the games between
    them (two in a double round robin), in round order."""

    order: tuple[str, ...]
    cells: dict[tuple[str, str], tuple[Cell, ...]]


def crosstable(
    rules: EventRules,
    entrants: Sequence[Entrant],
    pairings: Sequence[Pairing],
    results: Sequence[GameResult],
    seed: bytes | None = None,
) -> Crosstable:
    """The round robin's crosstable (``ValueError`` for another format)."""
    if rules.format not in (Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN):
        raise ValueError("only a round robin has a crosstable")
    order = tuple(s.entrant for s in standings(rules, entrants, pairings, results, seed))
    found = results_by_key(results)
    cells: dict[tuple[str, str], list[Cell]] = {}
    for p in sorted(pairings, key=key_of):
        if p.second is None:
            continue
        result = found.get(key_of(p))
        for row, column in ((p.first, p.second), (p.second, p.first)):
            score = None if result is None else int(result.winner == row)
            cells.setdefault((row, column), []).append(
                Cell(
                    score=score,
                    first=row == p.first,
                    forfeit=bool(result and result.forfeit),
                    game_id=None if result is None else result.game_id,
                )
            )
    return Crosstable(order, {k: tuple(v) for k, v in cells.items()})
