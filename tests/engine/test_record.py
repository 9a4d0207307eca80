"""FORMAT.md §4: records load, replay, chain and verify; every kind of tampering is caught."""

from __future__ import annotations

import dataclasses
import json

import pytest

from pbem.engine import (
    RecordError,
    ReplayError,
    chain_hash,
    load_record,
    position_hash,
    replay,
    result_json,
    verify,
)

from .records import play_record

SEED = bytes.fromhex("11" * 32)


@pytest.fixture(scope="module")
def finished():
    return play_record(SEED, 7)


def test_a_finished_record_round_trips_through_json_and_verifies(finished):
    loaded = load_record(finished.dumps())
    assert loaded == finished
    report = verify(loaded)
    assert report.ok, report.first_failure
    assert [c.name for c in report.checks] == [
        "format",
        "commitment",
        "chain",
        "times",
        "replay",
        "positions",
        "result",
    ]
    assert report.final is not None and report.final.is_over


def test_the_record_in_format_md_shape_replays_from_seed_and_texts_alone(finished):
    bare = {
        "format": "jaipur-record/1",
        "seed": finished.seed,
        "moves": [{"move": m.move} for m in finished.moves],
    }
    assert result_json(replay(load_record(bare))) == finished.result
    assert verify(load_record(bare)).ok


def test_chain_hash_formula():
    import hashlib

    expected = hashlib.sha256(b"c0ffee\n1|0|take diamond|2026-12-02T09:05:11Z").hexdigest()
    assert chain_hash("c0ffee", 1, 0, "take diamond", "2026-12-02T09:05:11Z") == expected


def _tampered(record, i, **changes):
    moves = list(record.moves)
    moves[i] = dataclasses.replace(moves[i], **changes)
    return dataclasses.replace(record, moves=tuple(moves))


def test_a_changed_time_breaks_the_chain_at_that_move(finished):
    report = verify(_tampered(finished, 9, at="2026-12-03T00:00:00Z"))
    assert not report.ok
    assert report.first_failure.name == "chain"
    assert report.first_bad_move == 10


def test_a_rewritten_move_is_caught(finished):
    # swap a move for another legal one, and even re-chain the log: the position hashes
    # and the stored result still give it away, and the chain from the commitment breaks
    record = _tampered(
        finished, 0, move="camels" if finished.moves[0].move != "camels" else "take leather"
    )
    report = verify(record)
    assert not report.ok


def test_a_different_seed_fails_the_commitment(finished):
    report = verify(dataclasses.replace(finished, seed="22" * 32))
    assert report.first_failure.name == "commitment"


def test_a_wrong_stored_result_is_caught(finished):
    result = json.loads(json.dumps(finished.result))
    result["winner"] = 1 - result["winner"]
    report = verify(dataclasses.replace(finished, result=result))
    assert report.first_failure.name == "result"


def test_a_drifting_position_hash_is_named(finished):
    report = verify(_tampered(finished, 4, position="00" * 32))
    names = {c.name: c for c in report.checks}
    assert not names["positions"].ok
    assert "move 5" in names["positions"].detail
    assert report.first_bad_move == 5


def test_an_illegal_move_names_its_number(finished):
    # in this fixed game the third move cannot take three goods (the test fails if it could)
    moves = [{"move": m.move} for m in finished.moves[:2]]
    moves.append({"move": "exchange diamond gold silver for camel camel camel"})
    bare = load_record({"format": "jaipur-record/1", "seed": finished.seed, "moves": moves})
    with pytest.raises(ReplayError) as info:
        replay(bare)
    assert info.value.n == 3
    assert verify(bare).first_bad_move == 3


def test_a_move_by_the_wrong_seat_is_refused(finished):
    first = finished.moves[0]
    record = _tampered(finished, 0, seat=1 - first.seat)
    report = verify(record)
    assert not report.ok


def test_non_canonical_move_text_is_flagged():
    rec = load_record(
        {"format": "jaipur-record/1", "seed": SEED.hex(), "moves": [{"move": "CAMELS"}]}
    )
    report = verify(rec)
    assert report.first_failure.name == "replay"
    assert "canonical" in report.first_failure.detail


def test_a_running_game_record_is_checked_as_far_as_it_can_be_without_the_seed():
    running = play_record(SEED, 3, stop_after=20)
    withheld = dataclasses.replace(running, seed=None)
    report = verify(withheld)
    assert report.ok, report.first_failure
    assert [c.name for c in report.checks] == ["format", "chain", "times"]
    assert report.unchecked and "seed" in report.unchecked[0]
    assert report.final is None
    with pytest.raises(RecordError):
        replay(withheld)
    broken = _tampered(
        withheld, 5, move="camels" if withheld.moves[5].move != "camels" else "take gold"
    )
    assert verify(broken).first_failure.name == "chain"


def test_position_digests_match_the_logged_ones_in_both_versions(finished):
    from pbem.engine import position_digest, replay_states

    states = list(replay_states(SEED, finished.moves))
    assert [m.position for m in finished.moves] == [position_digest(SEED, s) for s in states[1:]]
    old = play_record(SEED, 7, record_format="jaipur-record/1")
    assert [m.position for m in old.moves] == [position_hash(s) for s in states[1:]]
    assert verify(load_record(old.dumps())).ok


@pytest.mark.parametrize(
    "data",
    [
        "not json",
        "[]",
        '{"format": "pgn"}',
        '{"format": "jaipur-record/1", "moves": {}}',
        '{"format": "jaipur-record/1", "moves": [{"n": 1}]}',
        '{"format": "jaipur-record/1", "seed": "xyz", "moves": []}',
        '{"format": "jaipur-record/1", "seed": "00", "moves": []}',
        '{"format": "jaipur-record/1", "moves": [{"move": "camels", "seat": 2}]}',
        '{"format": "jaipur-record/1", "moves": [{"move": "camels", "hash": 5}]}',
    ],
)
def test_not_a_record(data):
    with pytest.raises(RecordError):
        load_record(data)


def test_seed_mixed_from_contributions_verifies():
    from pbem.engine import Match, build_record, rng

    server, e0, e1 = bytes(32), b"\x01" * 16, b"\x02" * 16
    seed = rng.mix_seed(server, e0, e1)
    rec = build_record(
        seed=seed,
        commitment=rng.commitment(server),
        moves=[],
        final=None,
        server_seed=server,
        contributions=(e0, e1),
    )
    report = verify(load_record(rec.dumps()))
    assert report.ok, report.first_failure
    assert [c.name for c in report.checks][:3] == ["format", "commitment", "seed mix"]
    forged = dataclasses.replace(rec, contributions=(e1.hex(), e0.hex()))
    assert verify(forged).first_failure.name == "seed mix"
    assert Match.new(seed).round.number == 1
