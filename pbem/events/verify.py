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
from .pairing import ROUND_ROBINS, Pairing, pair_round, round_finished, rounds_of, tie_breaks
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
    """Every check the record allows: commitment, results, each game record given (so a
    changed result is named before the pairings and standings it changes), pairings
    round by round, standings. ``EventRecordError`` if ``event`` is not an event record."""
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
    checks.extend(_game_checks(record, game_records))  # the results first: the rest uses them
    if seed is not None:
        checks.append(_pairings_check(record, seed))
        checks.append(_complete_check(record))
    checks.append(_standings_check(record, seed))
    given = {r.game_id for r in game_records}
    missing = sum(1 for r in record.results if r.game_id and r.game_id not in given)
    if missing:
        unchecked.append(
            "1 game's record was not given: its result and chain hash are the event's word for it"
            if missing == 1
            else f"{missing} games' records were not given: their results and chain hashes "
            "are the event's word for them"
        )
    return EventVerification(tuple(checks), tuple(unchecked))


def _differ(n: int, want: Pairing, got: Pairing) -> str:
    """How the record's pairing ``got`` differs from the recomputed ``want``, in words."""
    if got.second is None and want.second is None:
        return (
            f"round {n}: the record gives the bye to {got.first}; the seed and the results "
            f"give it to {want.first}"
        )
    where = _where(got)
    if got.second is None:
        return (
            f"{where}: the record gives the bye to {got.first}; the seed and the results "
            f"pair {want.first} v {want.second} there"
        )
    if want.second is None:
        return (
            f"{where}: the record pairs {got.first} v {got.second}; the seed and the results "
            f"give the bye to {want.first} there"
        )
    if {got.first, got.second} == {want.first, want.second}:
        return (
            f"{where}: the record pairs {got.first} v {got.second} with {got.first} moving "
            f"first; the seed and the results have {want.first} move first"
        )
    return (
        f"{where}: the record pairs {got.first} v {got.second}; the seed and the results "
        f"pair {want.first} v {want.second}"
    )


def _where(r: GameResult | Pairing) -> str:
    where = f"round {r.round}, board {r.board}"
    return where if r.game == 1 else f"{where}, game {r.game}"


def _results_check(record: EventRecord) -> Check:
    """Each result belongs to a game of a pairing, each game id is one board's, and a
    forfeit is what a withdrawal makes: a board whose game was never made because one of
    its players had withdrawn (before its round, or during it before the game was made),
    won by the other player (or by nobody, only when both withdrew)."""
    pairings = {(p.round, p.board, p.game): p for p in record.pairings}
    out = {e.id: e.withdrew_after for e in record.entrants}
    boards: dict[str, GameResult] = {}
    for r in record.results:
        p = pairings.get((r.round, r.board, r.game))
        if p is None or p.second is None:
            return Check("results", False, f"{_where(r)}: no game to score")
        if r.game_id is not None:
            other = boards.setdefault(r.game_id, r)
            if other is not r:
                return Check(
                    "results",
                    False,
                    f"game {r.game_id} is on two boards: {_where(other)} and {_where(r)}",
                )
        players = (p.first, p.second)
        if not r.forfeit:
            gone = [w for w in players if _withdrawn(out[w], r.round - 1)]
            if gone:
                return Check(
                    "results",
                    False,
                    f"{_where(r)}: {gone[0]} had withdrawn, yet the game is not scored as "
                    "their forfeit",
                )
            continue
        why = _forfeit_fault(r, players, out)
        if why:
            return Check("results", False, f"{_where(r)}: {why}")
    return Check("results", True, f"{len(record.results)} results, each of a paired game")


def _withdrawn(after: int | None, by: int) -> bool:
    """Whether a player who withdrew after round ``after`` (None: never) had by round ``by``."""
    return after is not None and after <= by


def _forfeit_fault(
    r: GameResult, players: tuple[str, str], out: dict[str, int | None]
) -> str | None:
    """What is wrong with a forfeit, or None: a withdrawal's board, never played."""
    if r.game_id is not None:
        return "a forfeit with a game: a forfeit is a board never played"
    if r.seals != (0, 0) or r.points != (0, 0):
        return "a forfeit with seals or round points"
    lost = [w for w in players if _withdrawn(out[w], r.round - 1)] or [
        w for w in players if _withdrawn(out[w], r.round)
    ]  # withdrawn before the round; failing that, during it, before its game was made
    if not lost:
        return "a forfeit, though neither player had withdrawn by then"
    if r.winner in lost:
        return f"{r.winner} withdrew, yet is scored as winning the forfeit"
    stays = [w for w in players if out[w] is None]
    if r.winner is None and stays:
        return f"the forfeit is scored as won by nobody; {stays[0]} did not withdraw and wins it"
    return None


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
                return Check("pairings", False, _differ(n, want, got))
        if len(expected) != len(stated):
            return Check(
                "pairings",
                False,
                f"round {n} has {len(stated)} games; the seed and the results give {len(expected)}",
            )
    return Check("pairings", True, f"{last} rounds recomputed from the seed and the results")


def _outcome(r: GameResult) -> str:
    """A result in words: who won, seals and round points (first's–second's)."""
    won = "no winner" if r.winner is None else f"{r.winner} won"
    return f"{won}, seals {r.seals[0]}-{r.seals[1]}, round points {r.points[0]}-{r.points[1]}"


def _order(p: Pairing) -> tuple[int, int]:
    return (p.board, p.game)


def _complete_check(record: EventRecord) -> Check:
    """A record whose seed is published is an event over: every round it plays, every
    game with its result; or none at all, an event cancelled before it started. Else
    rounds were cut from it, or results left out."""
    total = rounds_of(record.rules, record.entrants)
    played = sorted({p.round for p in record.pairings})
    if not played:
        return Check("complete", True, "no round: the event was cancelled before it started")
    if played != list(range(1, total + 1)):
        held = f"rounds {played[0]} to {played[-1]}" if len(played) > 1 else f"round {played[0]}"
        return Check(
            "complete",
            False,
            f"the record holds {held} of the {total} the event plays: rounds were cut from "
            "it (the seed is published only when the event is over)",
        )
    decided = {(r.round, r.board, r.game) for r in record.results}
    for p in sorted(record.pairings, key=lambda p: (p.round, p.board, p.game)):
        if not p.is_bye and (p.round, p.board, p.game) not in decided:
            return Check(
                "complete",
                False,
                f"round {p.round}, board {p.board} has no result, yet the seed is published "
                "only when the event is over",
            )
    return Check("complete", True, f"all {total} rounds, every game with its result")


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
            return Check("standings", False, _line_differs(i, want, got))
    return Check("standings", True, f"{len(stated)} lines recomputed from the results")


def _line_differs(i: int, want: dict[str, Any], got: dict[str, Any]) -> str:
    """How line ``i`` of the record's standings differs from the recomputed one."""
    if got["entrant"] != want["entrant"]:
        return (
            f"line {i}: the record puts {got['entrant']} there; the results put "
            f"{want['entrant']} there"
        )

    def numbers(line: dict[str, Any]) -> dict[str, Any]:
        flat = {k: v for k, v in line.items() if k not in ("entrant", "tiebreaks")}
        return flat | {k: v for k, v in line["tiebreaks"].items()}

    said, given = numbers(got), numbers(want)
    keys = [k for k in given | said if not same_json(said.get(k), given.get(k))]
    return (
        f"line {i} ({got['entrant']}): the record says "
        + ", ".join(f"{k} {said.get(k, 'missing')}" for k in keys)
        + "; the results give "
        + ", ".join(f"{k} {given.get(k, 'none')}" for k in keys)
    )


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
            checks.append(Check(name, False, "it is on no board of this event"))
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
                    Check(
                        name,
                        False,
                        f"the result of {_where(result)} is not its record's: the event "
                        f"says {_outcome(result)}; the game record says {_outcome(played)}",
                    )
                )
                continue
        checks.append(Check(name, True, "verifies and ends with the event's chain hash"))
    return checks
