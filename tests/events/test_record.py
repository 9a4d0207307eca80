"""The event record: the schema it is published with, and a strict reader that refuses
hostile files with a reason (invariants 9 and 10 of the design, as for game records)."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path

import jsonschema
import pytest

from pbem.events import EVENT_FORMAT as EVENT
from pbem.events import EventRecordError, parse, read_event

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "jaipur-event.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_every_format_s_record_matches_the_published_schema(event):
    data = json.loads(event.record.dumps())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(data)]
    assert not errors, errors[:5]


def test_the_record_reads_back_the_same(event, tmp_path):
    path = tmp_path / "event.json"
    path.write_text(event.record.dumps(), encoding="utf-8")
    assert read_event(str(path)).to_json() == event.record.to_json()
    with pytest.raises(EventRecordError, match="cannot read"):
        read_event(str(tmp_path / "missing.json"))


def _first_game(d):
    return next(g for r in d["rounds"] for g in r["games"] if g["result"])


HOSTILE = {
    "an unknown field": lambda d: d.update(extra=1),
    "a missing field": lambda d: d.pop("standings"),
    "a name with a line break": lambda d: d.update(name="Cup\r\nBcc: x@example.org"),
    "a name with angle brackets": lambda d: d.update(name="<script>alert(1)</script>"),
    "an encoded word as a name": lambda d: d["entrants"][0].update(name="=?utf-8?q?x?="),
    "an id with a colon": lambda d: d["entrants"][0].update(id="a:b"),
    "an id with a comma": lambda d: d.update(event_id="a,b"),
    "an id too long": lambda d: d.update(event_id="x" * 65),
    "true for a number": lambda d: d["standings"][0].update(rank=True),
    "a fraction for a count": lambda d: d["standings"][0].update(wins=1.0),
    "a negative count": lambda d: d["standings"][0].update(byes=-1),
    "a huge count": lambda d: d["standings"][0].update(played=10**12),
    "upper-case hex": lambda d: d.update(commitment=d["commitment"].upper()),
    "a short seed": lambda d: d.update(seed="ab"),
    "an unknown format": lambda d: d["rules"].update(format="arena"),
    "Swiss without rounds": lambda d: d["rules"].update(rounds=None),
    "a misnumbered round": lambda d: d["rounds"][0].update(round=2),
    "a stranger in a game": lambda d: _first_game(d).update(first="nobody"),
    "a player against themselves": lambda d: _first_game(d).update(second=_first_game(d)["first"]),
    "a winner who did not play": lambda d: _first_game(d)["result"].update(winner="nobody"),
    "three seals": lambda d: _first_game(d)["result"].update(seals=[2, 1, 0]),
    "a game id with a link": lambda d: _first_game(d).update(game_id="https://x.example/"),
    "a duplicate game": lambda d: d["rounds"][0]["games"].append(d["rounds"][0]["games"][0]),
    "a bad time": lambda d: d.update(created_at="2026-02-30T09:00:00Z"),
    "a computer level with spaces": lambda d: d["entrants"][0].update(computer_level="a b"),
    "too many entrants": lambda d: d.update(entrants=d["entrants"] * 200),
    "not an object": lambda d: d.clear(),
}


@pytest.mark.parametrize("what", sorted(HOSTILE))
def test_a_hostile_record_is_refused_with_a_reason(swiss, what):
    d = json.loads(swiss.record.dumps())
    HOSTILE[what](d)
    with pytest.raises(EventRecordError) as caught:
        parse(json.dumps(d))
    assert str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        b'{"format": "jaipur-event/1", "format": "jaipur-event/1"}',
        b'{"format": "jaipur-event/1", "x": NaN}',
        b'{"format": "jaipur-event/1", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'{"format": "jaipur-event/1", "x": 1' + b"0" * 40 + b"}",
        b'{"format": "jaipur-event/1", "name": "\\ud800"}',
        b'{"format": "jaipur-event/1", "name": "\xff"}',
        b"[]",
        b'{"format": "jaipur-record/2"}',
    ],
)
def test_a_file_that_is_not_strict_json_is_refused(text):
    with pytest.raises(EventRecordError):
        parse(text)


def test_a_bye_has_no_result_and_a_result_needs_its_game(swiss):
    d = json.loads(swiss.record.dumps())
    bye = next(g for r in d["rounds"] for g in r["games"] if g["second"] is None)
    bye["result"] = copy.deepcopy(_first_game(d)["result"])
    with pytest.raises(EventRecordError, match="a bye has no result"):
        parse(json.dumps(d))
    d = json.loads(swiss.record.dumps())
    g = _first_game(d)
    g["result"], g["game_id"] = None, "g1"
    with pytest.raises(EventRecordError, match="without a result"):
        parse(json.dumps(d))


def test_the_documented_example_matches_the_schema_and_reads():
    """docs/record-format.md §10.1: shortened (two entrants of seven), but well formed."""
    doc = (ROOT / "docs" / "record-format.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```json\n(.*?)```", doc, flags=re.S) if EVENT in b]
    example = json.loads(block)
    assert not list(VALIDATOR.iter_errors(example))
    with pytest.raises(EventRecordError, match="not an entrant"):
        parse(block)  # the games name players the shortened list leaves out
    assert hashlib.sha256(bytes.fromhex(example["seed"])).hexdigest() == example["commitment"]
