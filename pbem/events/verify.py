"""``verify_event``: an event record checked by recomputing it (docs/record-format.md §10.6).

The seed, the entrants, the rules and the game results fix every pairing and the
standings; the record's pairings and standings are claims about them, and each game
record given is checked with the engine's ``verify`` and against the event's chain hash
and result. What cannot be checked yet (a running event has not revealed its seed) is
said, not failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pbem.engine import rng
from pbem.engine.record import Record
from pbem.engine.verify import Check, same_json, verify

from .formats import round_count
from .pairing import ROUND_ROBINS, Pairing, pair_round, round_finished, tie_breaks
from .record import EventRecord, parse, standing_json
from .results import GameResult, from_match
from .standings import standings


@dataclass(frozen=True, slots=True)
class EventVerification:
    checks: tuple[Check, ...]
    unchecked: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def first_failure(self) -> Check | None:
        return next((c for c in self.checks if not c.ok), None)


def verify_event(
    event: EventRecord | str | bytes | dict[str, Any], game_records: Sequence[Record] = ()
) -> EventVerification:
    """Every check the record allows: commitment, pairings round by round, results,
    standings, and each game record given. ``EventRecordError`` if ``event`` is not an
    event record at all."""
    record = event if isinstance(event, EventRecord) else parse(event)
    checks: list[Check] = []
    unchecked: list[str] = []
    seed = record.seed_bytes
    if seed is None:
        unchecked.append(
            "the pairings and the standings' lot: the seed is published when the event ends"
        )
    else:
        ok = rng.commitment(seed) == record.commitment
        checks.append(
            Check(
                "commitment",
                ok,
                "sha256(seed) equals the commitment"
                if ok
                else "sha256(seed) does not equal the commitment: the seed was changed",
            )
        )
    checks.append(_results_check(record))
    if seed is not None:
        checks.append(_pairings_check(record, seed))
    checks.append(_standings_check(record, seed))
    checks.extend(_game_checks(record, game_records))
    given = {r.game_id for r in game_records}
    missing = sum(1 for r in record.results if r.game_id and r.game_id not in given)
    if missing:
        unchecked.append(
            f"{missing} games' records were not given: their results and chain hashes "
            "are the event's word for them"
        )
    return EventVerification(tuple(checks), tuple(unchecked))


def _name(p: Pairing) -> str:
    return f"{p.first} v {p.second}" if p.second is not None else f"{p.first} has the bye"


def _results_check(record: EventRecord) -> Check:
    """Each result belongs to a game of a pairing, and a withdrawn player's later games
    (round robin) are forfeits they lost."""
    pairings = {(p.round, p.board, p.game): p for p in record.pairings}
    out = {e.id: e.withdrew_after for e in record.entrants}
    for r in record.results:
        p = pairings.get((r.round, r.board, r.game))
        if p is None or p.second is None:
            return Check("results", False, f"round {r.round}, board {r.board}: no game to score")
        if r.forfeit and (r.seals != (0, 0) or r.points != (0, 0)):
            return Check(
                "results",
                False,
                f"round {r.round}, board {r.board}: a forfeit with seals or round points",
            )
        for who in (p.first, p.second):
            after = out.get(who)
            if after is not None and r.round > after and (not r.forfeit or r.winner == who):
                return Check(
                    "results",
                    False,
                    f"round {r.round}, board {r.board}: {who} had withdrawn, yet the "
                    "game is not scored as their forfeit",
                )
    return Check("results", True, f"{len(record.results)} results, each of a paired game")


def _pairings_check(record: EventRecord, seed: bytes) -> Check:
    """Every round as the seed and the earlier results pair it, in order."""
    rules, entrants = record.rules, record.entrants
    last = max((p.round for p in record.pairings), default=0)
    counted = (
        len(entrants) if rules.format in ROUND_ROBINS else sum(e.active_in(1) for e in entrants)
    )
    if last > round_count(rules, counted):
        return Check("pairings", False, f"the record has {last} rounds; the event has fewer")
    for n in range(1, last + 1):
        earlier = [p for p in record.pairings if p.round < n]
        done = [r for r in record.results if r.round < n]
        if n > 1 and not round_finished(rules, [p for p in earlier if p.round == n - 1], done):
            return Check("pairings", False, f"round {n} was paired before round {n - 1} ended")
        try:
            expected = pair_round(rules, entrants, done, n, seed, earlier)
        except ValueError as exc:
            return Check("pairings", False, f"round {n} cannot be paired: {exc}")
        in_round = [r for r in record.results if r.round == n]
        while True:  # the tie-break games its results call for
            more = [p for p in tie_breaks(rules, expected, in_round) if p not in expected]
            if not more:
                break
            expected += more
        stated = sorted((p for p in record.pairings if p.round == n), key=_order)
        expected.sort(key=_order)
        for want, got in zip(expected, stated, strict=False):
            if want != got:
                return Check(
                    "pairings",
                    False,
                    f"round {n}, board {got.board}: the record pairs {_name(got)}; "
                    f"the seed and the results pair {_name(want)}",
                )
        if len(expected) != len(stated):
            return Check(
                "pairings",
                False,
                f"round {n} has {len(stated)} games; the seed and the results give {len(expected)}",
            )
    return Check("pairings", True, f"{last} rounds recomputed from the seed and the results")


def _order(p: Pairing) -> tuple[int, int]:
    return (p.board, p.game)


def _standings_check(record: EventRecord, seed: bytes | None) -> Check:
    """The standings recomputed from the results; without the seed players tied on every
    number may stand in any order, so there the lines are compared as a set."""
    computed = [
        standing_json(s)
        for s in standings(record.rules, record.entrants, record.pairings, record.results, seed)
    ]
    stated = [standing_json(s) for s in record.standings]
    if seed is None:
        computed.sort(key=lambda s: (s["rank"], s["entrant"]))
        stated.sort(key=lambda s: (s["rank"], s["entrant"]))
    if len(stated) != len(computed):
        return Check(
            "standings", False, f"{len(stated)} lines of standings for {len(computed)} entrants"
        )
    for i, (want, got) in enumerate(zip(computed, stated, strict=True), start=1):
        if not same_json(want, got):
            differ = sorted(k for k in want if not same_json(want[k], got.get(k)))
            return Check(
                "standings",
                False,
                f"line {i} ({got['entrant']}): the record's {', '.join(differ)} "
                "differ from the standings the results give",
            )
    return Check("standings", True, f"{len(stated)} lines recomputed from the results")


def _game_checks(record: EventRecord, game_records: Sequence[Record]) -> list[Check]:
    """Each game record given: it verifies, and its final chain hash, winner, seals and
    round points are the event's. In an event game ``first`` sits at seat 0."""
    by_id: dict[str, tuple[GameResult, Pairing]] = {}
    pairings = {(p.round, p.board, p.game): p for p in record.pairings}
    for r in record.results:
        if r.game_id is not None:
            by_id[r.game_id] = (r, pairings[(r.round, r.board, r.game)])
    checks = []
    for game in game_records:
        name = f"game {game.game_id}"
        if game.game_id not in by_id:
            checks.append(Check(name, False, "this game is not one of the event's"))
            continue
        result, pairing = by_id[game.game_id]
        report = verify(game)
        failed = report.first_failure
        if failed is not None:
            checks.append(Check(name, False, f"its record fails: {failed.name}: {failed.detail}"))
            continue
        if game.seed is None or game.result is None or report.final is None:
            checks.append(Check(name, False, "its record is of a running game"))
            continue
        assert game.commitment is not None
        final = game.moves[-1].hash if game.moves else game.chain_start(game.commitment)
        if final != result.chain_hash:
            checks.append(
                Check(name, False, "its final chain hash is not the one the event records")
            )
            continue
        if not result.forfeit:
            played = from_match(pairing, game.game_id, final, report.final)
            if (played.winner, played.seals, played.points) != (
                result.winner,
                result.seals,
                result.points,
            ):
                checks.append(
                    Check(name, False, "its winner, seals or round points are not the event's")
                )
                continue
        checks.append(Check(name, True, "verifies and ends with the event's chain hash"))
    return checks
