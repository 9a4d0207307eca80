"""Version 2 of the record (docs/record-format.md §6) and what verify refuses in any version.

Each test is a tampering an outside auditor tried, or a property version 2 promises:
digests that tell nothing while the seed is secret, a chain bound to the game's header,
a result checked in full, a dispute's evidence checked against the moves it carries,
and files that are not records refused as such (exit 2), never with a traceback.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine import (
    Claim,
    Match,
    RecordError,
    Resign,
    Timeout,
    build_record,
    chain_start,
    load_record,
    log_move,
    position_digester,
    position_json,
    rng,
    verify,
)
from pbem.engine.position import canonical_json

from .records import CREATED_AT, play_record

SEED = bytes.fromhex("5a" * 32)


@pytest.fixture(scope="module")
def finished():
    return play_record(SEED, 11)


def _played(*tail: tuple[object, int | None], before: int = 6, times=None):
    """A v2 record of ``before`` random-free moves (the first legal each time), then ``tail``
    (move, seat) entries, chained and digested as the server writes them."""
    commitment = rng.commitment(SEED)
    start = chain_start(
        "jaipur-record/2", commitment, game_id="gX", created_at=CREATED_AT, first_player=None
    )
    digest = position_digester("jaipur-record/2", SEED)
    state, log, previous = Match.new(SEED), [], start
    entries = [(None, None)] * before + list(tail)
    for i, (move, seat) in enumerate(entries):
        if move is None:
            seat, move = state.to_move, state.legal_moves()[0]
        state = state.apply(move, seat)
        at = times[i] if times else f"2026-12-02T10:{i // 60:02d}:{i % 60:02d}Z"
        entry = log_move(previous, i + 1, seat, move, at, state, digest)
        log.append(entry)
        previous = entry.hash
    return build_record(
        seed=SEED,
        commitment=commitment,
        moves=log,
        final=state if state.is_over else None,
        game_id="gX",
        created_at=CREATED_AT,
    )


def _json(record) -> dict:
    return json.loads(record.dumps())


# ------------------------------------------------------------ digests and the chain


def test_a_v2_digest_is_an_hmac_keyed_with_the_seed_not_a_bare_hash(finished):
    from pbem.engine import replay_states

    states = list(replay_states(SEED, finished.moves))
    text = canonical_json(position_json(states[5])).encode()
    assert finished.moves[4].position == hmac.new(SEED, text, hashlib.sha256).hexdigest()
    # What brute force of version 1 tried: the bare hash of a guessed position never matches.
    assert finished.moves[4].position != hashlib.sha256(text).hexdigest()


def test_the_chain_starts_from_the_header_so_a_log_cannot_pass_as_another_games(finished):
    for change in (
        {"game_id": "another"},
        {"created_at": "2026-12-01T09:00:00Z"},
        {"first_player": 1 - Match.new(SEED).first_player},
        {"tie_policy": "no-seal"},  # unchanged: still verifies
    ):
        report = verify(dataclasses.replace(finished, **change))
        if change == {"tie_policy": "no-seal"}:
            assert report.ok
            continue
        assert not report.ok
        assert report.first_failure.name == "chain" and report.first_bad_move == 1, change


def test_a_record_without_moves_binds_its_header_through_chain_start(finished):
    """§6.3: with no entry, ``chain_start`` is what binds the header (issue 35)."""
    empty = dataclasses.replace(finished, moves=(), result=None)
    assert empty.start == empty.chain_start(empty.commitment)
    assert _json(empty)["chain_start"] == empty.start
    assert verify(load_record(empty.dumps())).ok
    for change in (
        {"game_id": "another"},
        {"created_at": "2026-12-01T09:00:00Z"},
        {"first_player": 0},
        {"format": "jaipur-record/1"},
        {"commitment": rng.commitment(bytes(32)), "seed": None},
        {"start": None},
    ):
        report = verify(dataclasses.replace(empty, **change))
        assert report.first_failure is not None, change
        assert report.first_failure.name == "chain" and report.first_bad_move is None, change


def test_chain_start_is_checked_where_a_record_has_moves_and_kept_as_the_file_gives_it(
    finished,
):
    assert verify(dataclasses.replace(finished, start=None)).ok  # written before it existed
    data = _json(finished)
    data["chain_start"] = "0" * 64
    loaded = load_record(json.dumps(data))
    assert json.loads(loaded.dumps())["chain_start"] == "0" * 64  # not recomputed
    failure = verify(loaded).first_failure
    assert failure is not None and failure.name == "chain" and "chain_start" in failure.detail
    for bad in (None, "0" * 63, "A" * 64, 7):
        with pytest.raises(RecordError):
            load_record(json.dumps({**data, "chain_start": bad}))


def test_an_unchained_version_1_file_is_still_numbered():
    """§5.2 numbering: without commitment and hashes, a wrong ``n`` still fails."""
    record = play_record(SEED, 7, record_format="jaipur-record/1")
    data = _json(record)
    data.pop("commitment")
    for entry in data["moves"]:
        entry.pop("hash")
    assert verify(load_record(json.dumps(data))).ok
    data["moves"][2]["n"] = 999
    report = verify(load_record(json.dumps(data)))
    assert report.first_failure is not None and report.first_failure.name == "numbering"
    assert report.first_bad_move == 3


def test_names_stay_outside_the_chain_so_an_erased_name_still_verifies(finished):
    erased = dataclasses.replace(
        finished, players=({"seat": 0, "name": "erased player"}, finished.players[1])
    )
    assert verify(erased).ok


def test_version_1_records_keep_verifying_with_upper_case_hex_too():
    old = _json(play_record(SEED, 4, record_format="jaipur-record/1"))
    assert verify(load_record(old)).ok
    old["seed"] = old["seed"].upper()
    old["moves"][0]["hash"] = old["moves"][0]["hash"].upper()
    assert verify(load_record(old)).ok


def test_version_2_refuses_upper_case_hex(finished):
    data = _json(finished)
    data["moves"][0]["hash"] = data["moves"][0]["hash"].upper()
    with pytest.raises(RecordError, match="lower-case"):
        load_record(data)


# ------------------------------------------------------------ the result in full


def test_resigned_added_to_an_ordinary_win_is_caught(finished):
    data = _json(finished)
    data["result"]["resigned"] = 1 - data["result"]["winner"]
    report = verify(load_record(data))
    assert report.first_failure.name == "result" and "resigned" in report.first_failure.detail


def test_resigned_removed_from_a_resigned_game_is_caught():
    record = _played((Resign(), 0))
    assert record.result["resigned"] == 0 and verify(record).ok
    data = _json(record)
    del data["result"]["resigned"]
    assert verify(load_record(data)).first_failure.name == "result"


def test_claimed_is_checked_like_the_rest_of_the_result():
    probe = _played()
    late = Match.new(SEED)
    for _entry in probe.moves:
        late = late.apply(late.legal_moves()[0])
    seat = late.to_move
    record = _played((Timeout(), seat), (Claim(), 1 - seat))
    assert record.result["claimed"] == 1 - seat and verify(record).ok
    data = _json(record)
    data["result"]["claimed"] = seat
    assert verify(load_record(data)).first_failure.name == "result"
    del data["result"]["claimed"]
    assert verify(load_record(data)).first_failure.name == "result"


def test_an_extra_key_in_the_result_is_caught(finished):
    data = _json(finished)
    data["result"]["forfeit"] = True
    assert verify(load_record(data)).first_failure.name == "result"


# ------------------------------------------------------------ times


def test_a_move_dated_before_the_one_it_follows_fails_the_times_check():
    times = [f"2026-12-02T10:00:{i:02d}Z" for i in range(6)]
    times[3] = "2026-12-02T09:59:59Z"  # chained as written: only the times give it away
    report = verify(_played(times=times))
    assert report.first_failure.name == "times" and report.first_bad_move == 4


def test_a_move_dated_before_the_game_was_created_fails_the_times_check():
    times = ["2026-12-02T08:00:00Z"] + [f"2026-12-02T10:00:{i:02d}Z" for i in range(1, 6)]
    assert verify(_played(times=times)).first_failure.name == "times"


@pytest.mark.parametrize(
    "at", ["2026-12-02 10:00:00", "2026-12-02T10:00:00+00:00", "2026-13-02T10:00:00Z"]
)
def test_a_time_not_in_the_records_form_is_not_a_record(finished, at):
    data = _json(finished)
    data["moves"][0]["at"] = at
    with pytest.raises(RecordError):
        load_record(data)


# ------------------------------------------------------------ a dispute's evidence


def _evidence(record, n: int) -> dict:
    data = _json(dataclasses.replace(record, moves=record.moves[:n], result=None))
    last = record.moves[n - 1]
    data["evidence"] = {
        "format": "pbem-evidence/1",
        "disputed_move": n,
        "move": last.move,
        "seat": last.seat,
        "at": last.at,
        "via": "web",
        "chain_hash": last.hash,
        "position_hash": last.position,
        "access_log": [
            {"at": CREATED_AT, "seat": last.seat, "action": "view"},
            {"at": last.at, "seat": last.seat, "action": "move"},
        ],
    }
    return data


def test_a_sound_evidence_file_verifies_finished_or_running(finished):
    data = _evidence(finished, 9)
    report = verify(load_record(data))
    assert report.ok and "evidence" in [c.name for c in report.checks]
    data["seed"] = None
    report = verify(load_record(data))
    assert report.ok, report.first_failure
    assert report.unchecked and "seed" in report.unchecked[0]


@pytest.mark.parametrize(
    "tamper",
    [
        lambda d: d["evidence"].update(disputed_move=8),
        lambda d: d["evidence"].update(chain_hash="ab" * 32),
        lambda d: d["evidence"].update(
            move="camels" if d["evidence"]["move"] != "camels" else "take gold"
        ),
        lambda d: d["evidence"].update(seat=1 - d["evidence"]["seat"]),
        lambda d: d["evidence"].update(position_hash="00" * 32),
        lambda d: d.update(moves=d["moves"][:-1]),  # the disputed move dropped
        lambda d: d["evidence"]["access_log"].reverse(),
        lambda d: d["evidence"].update(format="pbem-evidence/9"),
    ],
    ids=["number", "chain hash", "move text", "seat", "position", "dropped", "order", "format"],
)
def test_a_changed_evidence_block_is_caught(finished, tamper):
    for seed_published in (True, False):
        data = _evidence(finished, 9)
        if not seed_published:
            data["seed"] = None
        tamper(data)
        report = verify(load_record(data))
        assert not report.ok, report.checks
        assert report.first_failure.name == "evidence", report.first_failure


# ------------------------------------------------------------ files that are not records


def test_a_duplicate_key_is_refused_even_before_the_real_one(finished):
    text = finished.dumps()
    forged = text.replace('"result": {', '"result": {"winner": 0}, "result": {', 1)
    assert forged != text
    with pytest.raises(RecordError, match="twice"):
        load_record(forged)
    inner = text.replace('"n": 1,', '"n": 1, "n": 2,', 1)
    with pytest.raises(RecordError, match="twice"):
        load_record(inner)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 6000,
        "[" * 100 + "]" * 100,
        '{"format": "jaipur-record/2", "x": ' + "[" * 70 + "]" * 70 + "}",
        '{"format": "jaipur-record/2", "x": ' + '{"a":' * 10000 + "1" + "}" * 10000 + "}",
        '{"format": "jaipur-record/2", "moves": [{"n": 1' + "0" * 30 + ', "move": "camels"}]}',
        '{"format": "jaipur-record/2", "moves": [], "x": NaN}',
        '{"format": "jaipur-record/2", "moves": [], "x": 1e999999}',
        '{"format": "jaipur-record/2", "moves": [{"move": "camels", "n": true}]}',
        '{"format": "jaipur-record/2", "moves": [{"move": "camels", "position": "zz"}]}',
        '{"format": "jaipur-record/2", "game_id": 5, "moves": []}',
        '{"format": "jaipur-record/2", "commitment": "a b", "moves": []}',
        b"\xff\xfe\x00",
    ],
    ids=[
        "6k brackets",
        "100 deep",
        "70 deep inside",
        "10k objects deep",
        "huge number",
        "NaN",
        "infinite float",
        "bool as number",
        "bad hex",
        "game id type",
        "hex with a space",
        "not utf-8",
    ],
)
def test_malformed_files_are_record_errors_never_other_exceptions(text):
    with pytest.raises(RecordError):
        load_record(text)


def test_a_record_reads_in_about_what_json_costs(finished):
    # strict reading (duplicate keys, number bounds, depth) still reads every server record
    assert load_record(finished.dumps()) == finished


@settings(max_examples=40, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), choices=st.integers(0, 2**32), order=st.randoms())
def test_the_fast_canonical_text_is_json_dumps_of_the_position_in_any_order(seed, choices, order):
    """Digests are built from ``canonical_position`` with its caches of the last parts
    written; whatever order positions come in, the text is ``canonical_json`` exactly."""
    import random

    from pbem.engine.position import canonical_position

    rnd, state, states = random.Random(choices), Match.new(seed), []
    while not state.is_over and len(states) < 400:
        states.append(state)
        state = state.apply(rnd.choice(state.legal_moves()))
    states.append(state)
    order.shuffle(states)
    for s in states:
        assert canonical_position(s) == canonical_json(position_json(s))


@pytest.mark.parametrize("seat", [1.0, 0.0, True, "1"])
def test_a_seat_written_as_anything_but_the_integer_is_not_a_record(finished, seat):
    data = _json(finished)
    data["moves"][0]["seat"] = seat
    with pytest.raises(RecordError, match="0 or 1"):
        load_record(data)
    data = _json(finished)
    data["first_player"] = seat
    with pytest.raises(RecordError, match="0 or 1"):
        load_record(data)


@pytest.mark.parametrize("size", [15, 65])
def test_a_contribution_outside_16_to_64_bytes_is_not_a_record(finished, size):
    data = _json(finished)
    data["server_seed"], data["contributions"] = "00" * 32, ["ab" * size, "cd" * 16]
    with pytest.raises(RecordError, match="16 to 64 bytes"):
        load_record(data)


# ------------------------------------------------- what an outside verifier found open
# Each mended a gap between docs/record-format.md and `pbem verify` that the outside
# verifier (tests/outside) found; these keep them mended in the quick loop.

NEVER_NULL = (
    "rules",
    "tie_policy",
    "engine",
    "game_id",
    "players",
    "commitment",
    "contributions",
    "server_seed",
    "created_at",
    "moves",
    "result",
    "evidence",
)


@pytest.mark.parametrize("key", NEVER_NULL)
def test_a_known_field_set_to_null_is_not_a_record(finished, key):
    data = _json(finished)
    data[key] = None
    with pytest.raises(RecordError, match="null"):
        load_record(json.dumps(data))


@pytest.mark.parametrize("key", ["n", "at", "hash", "position"])
def test_an_entry_field_set_to_null_is_not_a_record(finished, key):
    data = _json(finished)
    data["moves"][0][key] = None
    with pytest.raises(RecordError, match="null"):
        load_record(json.dumps(data))


def test_seed_first_player_and_seat_may_be_null(finished):
    data = _json(finished)
    data["seed"], data["first_player"] = None, None
    data.pop("result")
    data["moves"][0]["seat"] = None
    record = load_record(json.dumps(data))
    assert record.seed is None and record.moves[0].seat is None


def test_players_must_be_a_list_even_an_empty_object(finished):
    data = _json(finished)
    data["players"] = {}
    with pytest.raises(RecordError, match="players"):
        load_record(json.dumps(data))


def test_utf_16_is_not_a_record_but_a_utf_8_byte_order_mark_is_skipped(finished):
    text = finished.dumps()
    with pytest.raises(RecordError, match="UTF-8"):
        load_record(text.encode("utf-16"))
    assert verify(load_record(b"\xef\xbb\xbf" + text.encode())).ok


def test_a_number_a_float_cannot_hold_is_not_a_record_even_in_an_unknown_field(finished):
    text = finished.dumps().replace("{", '{"x": 1e999, ', 1)
    with pytest.raises(RecordError, match="64-bit"):
        load_record(text)
    assert load_record(finished.dumps().replace("{", '{"x": 1e300, ', 1)).extra["x"] == 1e300


@pytest.mark.parametrize(
    "tamper",
    [
        lambda r: r.update(winner=bool(r["winner"])),
        lambda r: r["rounds"][0].update(scores=[float(x) for x in r["rounds"][0]["scores"]]),
        lambda r: r.update(resigned=None),
        lambda r: r.update(seals=[bool(s) if s < 2 else s for s in r["seals"]]),
    ],
    ids=["winner as bool", "scores as floats", "resigned null", "seals as bools"],
)
def test_the_stored_result_is_compared_as_json_values(finished, tamper):
    data = _json(finished)
    tamper(data["result"])
    report = verify(load_record(json.dumps(data)))
    assert report.first_failure is not None and report.first_failure.name == "result"


@pytest.mark.parametrize(
    "tamper",
    [
        lambda d: d["evidence"].update(seat=bool(d["evidence"]["seat"])),
        lambda d: d["evidence"].pop("access_log"),
        lambda d: d["evidence"].update(chain_hash=d["evidence"]["chain_hash"].upper()),
    ],
    ids=["seat as bool", "no access log", "upper-case hash in version 2"],
)
def test_an_evidence_block_is_compared_as_json_values_and_needs_its_access_log(finished, tamper):
    data = _evidence(finished, 9)
    tamper(data)
    report = verify(load_record(json.dumps(data)))
    assert report.first_failure is not None and report.first_failure.name == "evidence"


def test_a_record_read_leniently_is_written_back_without_nulls():
    """A version-1 file from another tool, without times, engine or game id: the viewer's
    download of it reads again (null would be refused)."""
    match = Match.new(SEED)
    moves = [{"move": str(match.legal_moves()[0])}]
    data = {"format": "jaipur-record/1", "seed": SEED.hex(), "moves": moves}
    record = load_record(json.dumps(data))
    again = json.loads(record.dumps())
    assert not {"engine", "game_id", "commitment", "created_at"} & again.keys()
    assert "at" not in again["moves"][0]
    assert verify(load_record(record.dumps())).ok


def _unsigned_v1(*texts: str) -> dict:
    """A version-1 file from another tool: two card moves then ``texts``, no seat, time,
    hash or commitment on any entry (§4.3: readers are lenient with version 1)."""
    match = Match.new(SEED)
    first = match.legal_moves()[0]
    second = match.apply(first).legal_moves()[0]
    moves = [{"move": str(m)} for m in (first, second)] + [{"move": t} for t in texts]
    return {"format": "jaipur-record/1", "seed": SEED.hex(), "moves": moves}


def test_a_version_1_timeout_or_claim_without_seat_is_the_only_seat_it_can_be_by():
    report = verify(load_record(json.dumps(_unsigned_v1("timeout", "claim"))))
    assert report.ok, report.first_failure
    final = report.final
    assert final is not None and final.is_over
    mover = Match.new(SEED).to_move  # after two moves the first mover is to move again
    assert final.claimed == 1 - mover and final.winner == 1 - mover


def test_a_version_1_resignation_without_seat_cannot_be_replayed():
    report = verify(load_record(json.dumps(_unsigned_v1("resign"))))
    assert report.first_failure is not None and report.first_failure.name == "replay"
    assert report.first_bad_move == 3


def test_a_version_1_evidence_hash_in_upper_case_is_the_same_bytes():
    record = play_record(SEED, 11, record_format="jaipur-record/1")
    data = _evidence(record, 9)
    data["evidence"]["chain_hash"] = data["evidence"]["chain_hash"].upper()
    assert verify(load_record(json.dumps(data))).ok


@pytest.mark.parametrize(
    ("name", "readable"),
    [
        ("علی\u200cرضا", True),  # a Persian name spelt with its zero-width non-joiner
        ("🐪\u200d🐪", True),
        ("Ada\u0378", True),  # unassigned today: perhaps a letter tomorrow
        ("Ada\tBo", False),
        ("   ", False),
        ("Ada\u200bBo", False),
        ("=??q?a b?=", False),
        ("a" * 81, False),
    ],
)
def test_a_records_names_follow_the_rule_of_section_4_2_as_written(finished, name, readable):
    data = _json(finished)
    data["players"][0]["name"] = name
    if readable:
        assert load_record(json.dumps(data)).players[0]["name"] == name
    else:
        with pytest.raises(RecordError, match="name"):
            load_record(json.dumps(data))


# ------------------------------------------------- what an outside auditor found next


def test_a_lone_surrogate_is_not_a_record_but_an_escaped_pair_is_a_character(finished):
    text = finished.dumps()
    with pytest.raises(RecordError, match="surrogate"):
        load_record(text.replace('"move": "', '"move": "\\ud800', 1))
    with pytest.raises(RecordError, match="surrogate"):
        load_record(text.replace("{", '{"x": {"\\udfff": 1}, ', 1))
    paired = load_record(text.replace("{", '{"x": "\\ud83d\\udc2a", ', 1))
    assert paired.extra["x"] == "🐪"


def test_a_version_2_entry_without_its_number_is_not_a_record(finished):
    data = _json(finished)
    del data["moves"][0]["n"]
    with pytest.raises(RecordError, match="'n'"):
        load_record(json.dumps(data))


def test_times_are_written_with_ascii_digits(finished):
    data = _json(finished)
    data["created_at"] = "２０２６" + data["created_at"][4:]
    with pytest.raises(RecordError):
        load_record(json.dumps(data))
    evidence = _evidence(finished, 9)
    evidence["evidence"]["access_log"][0]["at"] = "２０２６-12-02T09:00:05Z"
    failure = verify(load_record(json.dumps(evidence))).first_failure
    assert failure is not None and failure.name == "evidence"


def test_replay_refuses_a_text_that_is_not_canonical(finished):
    from pbem.engine import NotCanonical, replay

    data = _json(finished)
    data["moves"][2]["move"] = "  " + data["moves"][2]["move"].upper()
    with pytest.raises(NotCanonical) as caught:
        replay(load_record(json.dumps(data)))
    assert caught.value.n == 3 and caught.value.canonical == finished.moves[2].move


def test_a_version_1_ok_names_the_times_check_it_made():
    record = play_record(SEED, 4, record_format="jaipur-record/1")
    assert "times" in [c.name for c in verify(record).checks]


def test_version_1_hashes_without_a_commitment_fail_the_chain():
    data = _json(play_record(SEED, 4, record_format="jaipur-record/1"))
    del data["commitment"]
    failure = verify(load_record(json.dumps(data))).first_failure
    assert failure is not None and failure.name == "chain" and "commitment" in failure.detail
