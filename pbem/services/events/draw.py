"""The server's side of ``pbem.events``: its rows turned into the pure core's values.

Every pairing, standing and the record are computed by ``pbem.events`` (the code
``pbem verify`` runs), never here: this module only translates. An entrant's id in the
core and the record is its place in the order of joining ("1", "2", …), which never
changes (entrants are never deleted). A board's game has the first player in seat 0,
the computer too (``new_games.create_game``'s ``bot_seat``), and seat 0 moves first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ... import events as core
from ...clock import iso
from ...engine import Match
from ...store.models import Event, EventEntrant, EventPairing, Game

FORMATS = tuple(f.value for f in core.Format)
ROUND_ROBINS = (core.Format.ROUND_ROBIN.value, core.Format.DOUBLE_ROUND_ROBIN.value)
#: The tie-breaks each format's standings show, in the order they count.
TIEBREAK_KEYS: dict[str, tuple[str, ...]] = {
    core.Format.ROUND_ROBIN.value: ("sonneborn_berger", "head_to_head", "seals", "round_points"),
    core.Format.DOUBLE_ROUND_ROBIN.value: (
        "sonneborn_berger",
        "head_to_head",
        "seals",
        "round_points",
    ),
    core.Format.SWISS.value: ("buchholz", "median_buchholz", "seals", "round_points"),
    core.Format.ELIMINATION.value: ("rounds_won", "seals", "round_points"),
}

new_seed = core.new_seed
commitment = core.commit


def is_round_robin(event: Event) -> bool:
    return event.format in ROUND_ROBINS


def rules(event: Event) -> core.EventRules:
    return core.EventRules(core.Format(event.format), event.rounds, bool(event.rated))


def rounds_without_rematch(players: int) -> int:
    """How many rounds ``players`` can play with nobody meeting anyone twice: a round
    robin's (a Swiss of more rounds has rematches)."""
    return core.round_count(core.EventRules(core.Format.ROUND_ROBIN), players)


def counted(entrants: Sequence[EventEntrant]) -> list[EventEntrant]:
    """The event's players in the order of joining: all but those who left before it
    started (a withdrawal once it runs sets ``withdrew_after`` and keeps its place)."""
    return sorted(
        (e for e in entrants if e.withdrawn_at is None or e.withdrew_after is not None),
        key=lambda e: e.id,
    )


def keys(entrants: Sequence[EventEntrant]) -> dict[int, str]:
    """Each entrant row's id in the core: its place in the order of joining."""
    return {e.id: str(i + 1) for i, e in enumerate(sorted(entrants, key=lambda e: e.id))}


def entrants_of(entrants: Sequence[EventEntrant]) -> list[core.Entrant]:
    ids = keys(entrants)
    return [
        core.Entrant(ids[e.id], e.name, e.rating, e.computer_level, e.withdrew_after)
        for e in sorted(entrants, key=lambda e: e.id)
    ]


def pairings_of(
    rows: Sequence[EventPairing], entrants: Sequence[EventEntrant]
) -> list[core.Pairing]:
    ids = keys(entrants)
    return [
        core.Pairing(
            p.round,
            p.board,
            ids[p.first_id],
            ids[p.second_id] if p.second_id is not None else None,
            p.game,
        )
        for p in rows
    ]


def seat_order(p: EventPairing) -> tuple[int, int]:
    """The entrant row ids in seats 0 and 1 of a board's game: the first player sits in
    seat 0 and moves first (``pbem.events.Pairing``), the computer too."""
    assert p.second_id is not None
    return (p.first_id, p.second_id)


def board_result(
    p: EventPairing,
    entrants: Mapping[int, EventEntrant],
    game: Game | None,
    played: tuple[Match, str] | None,
) -> core.GameResult | None:
    """A board's result: a finished game's, or a forfeit's (a withdrawn player's board
    never played); None for a bye (scored from the pairing) or a game still running."""
    if p.second_id is None:
        return None
    ids = keys(list(entrants.values()))
    if p.game_id is None:
        gone = [i for i in (p.first_id, p.second_id) if entrants[i].withdrawn_at is not None]
        if not gone:
            return None  # its game is still to be made
        stays = [i for i in (p.first_id, p.second_id) if i not in gone]
        return core.GameResult(
            p.round,
            p.board,
            None,
            None,
            ids[stays[0]] if stays else None,
            forfeit=True,
            game=p.game,
        )
    if played is None or game is None:
        return None
    match, last_hash = played
    return core.from_match(
        pairings_of([p], list(entrants.values()))[0], game.public_id, last_hash, match
    )


def _results(results: Sequence[core.GameResult | None]) -> list[core.GameResult]:
    return [r for r in results if r is not None]


def rounds_planned(event: Event, entrants: Sequence[EventEntrant]) -> int | None:
    """How many rounds the event has (None before it starts: it depends on the players)."""
    if event.state == "open":
        return event.rounds
    return core.round_count(rules(event), len(entrants))


def pair(
    event: Event,
    entrants: Sequence[EventEntrant],
    rows: Sequence[EventPairing],
    results: Sequence[core.GameResult | None],
    number: int,
) -> list[core.Pairing]:
    """Round ``number``'s pairings; none when the event has no such round (it is over)."""
    if number > core.round_count(rules(event), len(entrants)):
        return []
    return core.pair_round(
        rules(event),
        entrants_of(entrants),
        _results(results),
        number,
        bytes.fromhex(event.seed),
        pairings_of(rows, entrants),
    )


def tie_breaks(
    event: Event,
    entrants: Sequence[EventEntrant],
    rows: Sequence[EventPairing],
    results: Sequence[core.GameResult | None],
    number: int,
) -> list[core.Pairing]:
    """The tie-break games round ``number`` still needs (elimination only)."""
    return core.tie_breaks(
        rules(event),
        [p for p in pairings_of(rows, entrants) if p.round == number],
        _results(results),
    )


def entrant_row(entrants: Sequence[EventEntrant], key: str) -> EventEntrant:
    return sorted(entrants, key=lambda e: e.id)[int(key) - 1]


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the standings as pages and mails show it."""

    rank: int
    key: str
    name: str
    points: int
    played: int
    wins: int
    losses: int
    byes: int
    tiebreaks: tuple[tuple[str, int], ...]
    withdrawn: bool
    computer: str | None


def seed_shown(event: Event) -> str | None:
    """The event's seed once it is over (finished, or cancelled before it started), else
    None: what its page, the API and its record show."""
    return event.seed if event.state in ("finished", "cancelled") else None


def _seed_if_over(event: Event) -> bytes | None:
    """The lot that orders full ties is drawn from the seed, shown only at the end."""
    shown = seed_shown(event)
    return None if shown is None else bytes.fromhex(shown)


def standings(
    event: Event,
    entrants: Sequence[EventEntrant],
    rows: Sequence[EventPairing],
    results: Sequence[core.GameResult | None],
) -> list[Row]:
    table = core.standings(
        rules(event),
        entrants_of(entrants),
        pairings_of(rows, entrants),
        _results(results),
        _seed_if_over(event),
    )
    out = []
    for s in table:
        e = entrant_row(entrants, s.entrant)
        out.append(
            Row(
                s.rank,
                s.entrant,
                e.name,
                s.match_points,
                s.played,
                s.wins,
                s.losses,
                s.byes,
                tuple(s.tiebreaks),
                e.withdrawn_at is not None,
                e.computer_level,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class Cross:
    """The round robin's crosstable for a page: names in standings order, and per row
    the cells against each column (each a tuple of games: score, game id)."""

    names: tuple[str, ...]
    rows: tuple[tuple[tuple[tuple[int | None, str | None], ...] | None, ...], ...]


def crosstable(
    event: Event,
    entrants: Sequence[EventEntrant],
    rows: Sequence[EventPairing],
    results: Sequence[core.GameResult | None],
) -> Cross:
    table = core.crosstable(
        rules(event),
        entrants_of(entrants),
        pairings_of(rows, entrants),
        _results(results),
        _seed_if_over(event),
    )
    names = tuple(entrant_row(entrants, k).name for k in table.order)
    grid = []
    for a in table.order:
        line: list[tuple[tuple[int | None, str | None], ...] | None] = []
        for b in table.order:
            if a == b:
                line.append(None)
                continue
            cells = table.cells.get((a, b), ())
            line.append(tuple((c.score, c.game_id) for c in cells))
        grid.append(tuple(line))
    return Cross(names, tuple(grid))


def result_text(
    result: core.GameResult | None, p: EventPairing, keys_: Mapping[int, str]
) -> str | None:
    """A board's result as a page shows it: 1-0, 0-1, bye, forfeit, or None while it runs."""
    if p.second_id is None:
        return "bye"
    if result is None:
        return None
    if result.winner is None:
        return "0-0"
    first_won = result.winner == keys_[p.first_id]
    return ("1-0" if first_won else "0-1") + (" forfeit" if result.forfeit else "")


def record(
    event: Event,
    entrants: Sequence[EventEntrant],
    rows: Sequence[EventPairing],
    results: Sequence[core.GameResult | None],
) -> dict[str, Any]:
    """The event record (``jaipur-event/1``) as JSON data; the seed only once it is over
    (finished or cancelled)."""
    table = core.standings(
        rules(event),
        entrants_of(entrants),
        pairings_of(rows, entrants),
        _results(results),
        _seed_if_over(event),
    )
    return core.EventRecord(
        event.public_id,
        event.name,
        rules(event),
        iso(event.created_at),
        event.commitment,
        seed_shown(event),
        tuple(entrants_of(entrants)),
        tuple(pairings_of(rows, entrants)),
        tuple(_results(results)),
        tuple(table),
    ).to_json()
