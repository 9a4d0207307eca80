"""Whole events, played with random legal moves, verify; every tampered copy is refused
(as the game record's tamper tests: tests/engine/test_record_v2.py)."""

from __future__ import annotations

import copy
import json
import random

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.events import EventRecordError, EventRules, Format, parse, verify_event
from tests.events.play import Played, people, run_event


def test_an_untampered_event_verifies_with_its_games(event):
    text = event.record.dumps()
    assert parse(text).to_json() == event.record.to_json()
    report = verify_event(text, event.games)
    assert report.ok, report.first_failure
    names = [c.name for c in report.checks]
    games = len(event.games)
    assert names[:2] == ["commitment", "results"]  # the results, then what uses them
    assert all(n.startswith("game ") for n in names[2 : 2 + games])
    assert names[2 + games :] == ["pairings", "standings"]
    assert report.unchecked == ()


def test_the_events_have_what_they_promise(swiss, elimination, round_robin):
    pairings = swiss.record.pairings
    assert any(p.second is None for p in pairings)  # a bye
    assert not [p for p in pairings if p.round == 3 and "p2" in (p.first, p.second)]
    assert any(p.game == 2 for p in elimination.record.pairings)  # a tie-break game
    forfeits = [r for r in round_robin.record.results if r.forfeit]
    assert forfeits and all(r.winner != "p4" for r in forfeits)


def data(event: Played) -> dict:
    return json.loads(event.record.dumps())


def refused(tampered: dict, games, kind: str = "") -> str:
    """Why the tampered copy is refused: ``parse``'s error or the first failed check."""
    try:
        report = verify_event(json.dumps(tampered), games)
    except EventRecordError as exc:
        return f"not a record: {exc}"
    assert not report.ok, f"a tampered event verified ({kind})"
    failed = report.first_failure
    return f"{failed.name}: {failed.detail}"


def games_of(d: dict) -> list[dict]:
    return [g for r in d["rounds"] for g in r["games"]]


def played_games(d: dict) -> list[dict]:
    return [g for g in games_of(d) if g["result"] and not g["result"]["forfeit"]]


def test_a_swapped_pairing_is_caught(swiss):
    d = data(swiss)
    g = played_games(d)[0]
    g["first"], g["second"] = g["second"], g["first"]
    why = refused(d, [])
    assert why.startswith("pairings: round 1, board 1: the record pairs"), why


def test_a_changed_result_is_caught(round_robin):
    d = data(round_robin)
    g = played_games(d)[-1]
    played = g["result"]["winner"]
    g["result"]["winner"] = g["second"] if played == g["first"] else g["first"]
    assert refused(d, []).startswith("standings: line")
    r, b = g["result"], g["board"]
    n = next(x["round"] for x in d["rounds"] if g in x["games"])
    seals, points = "-".join(map(str, r["seals"])), "-".join(map(str, r["points"]))
    assert refused(d, round_robin.games) == (
        f"game {g['game_id']}: the result of round {n}, board {b} is not its record's: the "
        f"event says {r['winner']} won, seals {seals}, round points {points}; the game record "
        f"says {played} won, seals {seals}, round points {points}"
    )


def test_a_changed_standing_is_caught(elimination):
    d = data(elimination)
    d["standings"][0], d["standings"][1] = d["standings"][1], d["standings"][0]
    one, two = d["standings"][0]["entrant"], d["standings"][1]["entrant"]
    assert refused(d, []) == (
        f"standings: line 1: the record puts {one} there; the results put {two} there"
    )
    d = data(elimination)
    line = d["standings"][3]
    line["tiebreaks"]["seals"] += 1
    line["wins"] += 2
    assert refused(d, []) == (
        f"standings: line 4 ({line['entrant']}): the record says wins {line['wins']}, seals "
        f"{line['tiebreaks']['seals']}; the results give wins {line['wins'] - 2}, seals "
        f"{line['tiebreaks']['seals'] - 1}"
    )


def test_a_changed_seed_or_commitment_is_caught(swiss):
    d = data(swiss)
    d["seed"] = "ff" + d["seed"][2:]
    assert refused(d, []).startswith("commitment: sha256(seed) does not equal the commitment")
    d = data(swiss)
    d["commitment"] = "0" * 64
    assert refused(d, []).startswith("commitment:")


def test_a_changed_chain_hash_is_caught_with_the_games_records(round_robin):
    d = data(round_robin)
    played_games(d)[2]["chain_hash"] = "ab" * 32
    assert verify_event(json.dumps(d)).ok  # without the game, the event's word is all there is
    assert "final chain hash is not the one the event records" in refused(d, round_robin.games)


def test_a_game_record_that_fails_fails_the_event(swiss):
    game = swiss.games[0]
    broken = copy.replace(game, moves=game.moves[:-1]) if hasattr(copy, "replace") else None
    if broken is None:  # Python 3.11
        from dataclasses import replace

        broken = replace(game, moves=game.moves[:-1])
    report = verify_event(swiss.record, [broken])
    assert not report.ok and "its record fails" in report.first_failure.detail


def test_a_running_event_says_what_it_cannot_check_yet(swiss):
    d = data(swiss)
    d["seed"] = None
    report = verify_event(json.dumps(d))
    assert report.ok
    assert [c.name for c in report.checks] == ["results", "standings"]
    assert any("seed is published when the event ends" in u for u in report.unchecked)


def _mutations(d: dict, rnd: random.Random) -> tuple[dict, str]:
    """One random change to what fixes the event: a pairing, a result, a standing, the
    seed, the commitment, an entrant's id or rating, a chain hash or a game id."""
    d = copy.deepcopy(d)
    ids = [e["id"] for e in d["entrants"]]
    kind = rnd.choice(
        ["pairing", "winner", "seals", "points", "standing", "seed", "commitment", "chain",
         "game_id", "drop", "forfeit", "rank", "entrant"]
    )  # fmt: skip
    played = played_games(d)
    g = rnd.choice(played)
    if kind == "pairing":
        g = rnd.choice(games_of(d))
        others = [i for i in ids if i not in (g["first"], g["second"])]
        g["first"] = rnd.choice(others)
    elif kind == "winner":
        g["result"]["winner"] = rnd.choice(
            [x for x in (g["first"], g["second"], None) if x != g["result"]["winner"]]
        )
    elif kind in ("seals", "points"):
        side = rnd.randrange(2)
        g["result"][kind][side] += rnd.choice([1, 2]) if g["result"][kind][side] < 2 else -1
    elif kind == "standing":
        line = rnd.choice(d["standings"])
        key = rnd.choice(["match_points", "played", "wins", "losses", "byes"])
        line[key] += 1
    elif kind == "rank":
        i = rnd.randrange(len(d["standings"]) - 1)
        s = d["standings"]
        s[i], s[i + 1] = s[i + 1], s[i]
    elif kind == "seed":
        i = rnd.randrange(64)
        d["seed"] = d["seed"][:i] + ("0" if d["seed"][i] != "0" else "1") + d["seed"][i + 1 :]
    elif kind == "commitment":
        d["commitment"] = d["commitment"][::-1]
    elif kind == "chain":
        g["chain_hash"] = "0" * 63 + "1"
    elif kind == "game_id":
        g["game_id"] = "g-forged"
    elif kind == "drop":
        r = rnd.choice(d["rounds"])
        r["games"].pop(rnd.randrange(len(r["games"])))
        if not r["games"]:
            d["rounds"].remove(r)
    elif kind == "forfeit":
        g["result"]["forfeit"] = True
    elif kind == "entrant":  # a bracket seeded otherwise, or an entrant replaced
        a, b = rnd.sample(d["entrants"], 2)
        if d["rules"]["format"] == "elimination":
            a["rating"], b["rating"] = b["rating"], a["rating"]
        else:
            a["id"] = "intruder"
    return d, kind


def test_two_hundred_tampered_copies_are_all_refused(round_robin, swiss, elimination):
    rnd = random.Random(34)
    events = [round_robin, swiss, elimination]
    originals = [data(e) for e in events]
    reasons = set()
    for n in range(200):
        i = n % 3
        tampered, kind = _mutations(originals[i], rnd)
        assert tampered != originals[i]
        reasons.add(refused(tampered, events[i].games, kind).split(":")[0])
    assert {"pairings", "standings", "commitment", "not a record"} <= reasons, reasons


def test_pbem_verify_reads_an_event_with_its_games(swiss, tmp_path):
    event = tmp_path / "event.json"
    event.write_text(swiss.record.dumps(), encoding="utf-8")
    paths = []
    for game in swiss.games:
        path = tmp_path / f"{game.game_id}.json"
        path.write_text(game.dumps(), encoding="utf-8")
        paths.append(str(path))
    runner = CliRunner()
    done = runner.invoke(main, ["verify", str(event), *paths])
    assert done.exit_code == 0, done.output
    line = next(x for x in done.output.splitlines() if "event.json" in x)
    assert line.startswith(f"ok   {event}: jaipur-event/1, swiss, 7 entrants, 3 rounds")
    assert f"{len(swiss.games)} game records match" in line
    d = data(swiss)
    played_games(d)[0]["chain_hash"] = "cd" * 32
    event.write_text(json.dumps(d), encoding="utf-8")
    done = runner.invoke(main, ["verify", str(event), *paths])
    assert done.exit_code == 1
    assert f"FAIL {event}: game " in done.output
    event.write_text('{"format": "jaipur-event/1", "format": "x"}', encoding="utf-8")
    done = runner.invoke(main, ["verify", str(event)])
    assert done.exit_code == 2 and "NOT A RECORD" in done.output


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules, entrants, no_winner",
    [
        (EventRules(Format.ROUND_ROBIN), people(7, {5: 4}), set()),
        (EventRules(Format.DOUBLE_ROUND_ROBIN), people(4), set()),
        (EventRules(Format.SWISS, 4), people(9, {3: 2}), {(3, 2, 1)}),
        (EventRules(Format.ELIMINATION), people(8), {(1, 1, 1), (2, 1, 1)}),
    ],
    ids=["round-robin-7", "double-round-robin-4", "swiss-9", "elimination-8"],
)
def test_the_issues_events_verify_whole(rules, entrants, no_winner):
    """The sizes of issue 34's "done when": each event, played out, verifies offline."""
    played = run_event(rules, entrants, no_winner=no_winner)
    report = verify_event(played.record.dumps(), played.games)
    assert report.ok, report.first_failure
    assert sum(c.name.startswith("game ") for c in report.checks) == len(played.games)


def test_pbem_verify_says_what_a_running_event_leaves_unchecked(swiss, tmp_path):
    d = data(swiss)
    d["seed"] = None
    event = tmp_path / "running.json"
    event.write_text(json.dumps(d), encoding="utf-8")
    done = CliRunner().invoke(main, ["verify", str(event)])
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert (
        lines[0].startswith(f"ok   {event}: jaipur-event/1, swiss") and "0 game records" in lines[0]
    )
    assert lines[1] == (
        "     not checked: the pairings and the standings' lot: the seed is published when "
        "the event ends"
    )
