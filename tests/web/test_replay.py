"""The replay viewer, the audit of a turn and the evidence bundle, through HTTP."""

from __future__ import annotations

import io
import json
import re
from collections import Counter

import pytest

from pbem.engine import load_record, verify
from pbem.services.play import game_pages
from pbem.services.records import game_records
from tests.mail.play import new_game, token
from tests.support import play_random

FACE = re.compile(r'class="card card-(\w+)(?: small)?"')


@pytest.fixture(scope="module")  # the module's tests only read it
def finished(module_env) -> str:
    env = module_env
    public_id = new_game(env)
    play_random(env, public_id)
    return public_id


@pytest.fixture(scope="module")  # the module's tests only read it
def running(module_env) -> str:
    env = module_env
    public_id = new_game(env, first=0)
    play_random(env, public_id, 9)
    return public_id


def omniscient(env, public_id):
    from pbem.engine import replay

    return load_record(game_records.operator_record(env, public_id)), replay


def test_a_finished_game_replays_step_by_step_from_every_perspective(client, env, finished):
    record = load_record(game_records.operator_record(env, finished))
    last = len(record.moves)
    page = client.get(f"/g/{finished}/replay")
    assert page.status_code == 200
    assert f"Move {last} of {last}" in page.text
    for n in (0, 1, last // 2, last):
        for p in ("all", "0", "1"):
            response = client.get(f"/g/{finished}/replay?n={n}&as={p}")
            assert response.status_code == 200, (n, p)
            assert f'data-n="{n}"' in response.text
    everything = client.get(f"/g/{finished}/replay?n=0&as=all").text
    assert "Deck (40), top first:" in everything and "Bonus piles, top first" in everything
    assert client.get(f"/g/{finished}/replay?n={last + 1}").status_code == 404
    assert client.get(f"/g/{finished}/replay?n=x").status_code == 404
    assert "Round 1 is over" in "".join(
        client.get(f"/g/{finished}/replay?n={s.n}").text
        for s in game_pages.public_page(env, finished).entries
        if s.words.round_end
    )
    assert "Rupees over time" in page.text and "<polyline" in page.text


def test_a_running_game_replays_only_for_its_players_and_only_their_side(client, env, running):
    assert client.get(f"/g/{running}/replay").status_code == 403
    link = f"/s/{token(env, running, 0)}/replay"
    assert client.get(f"{link}?as=all").status_code == 403
    assert client.get(f"{link}?as=1").status_code == 403
    record = load_record(game_records.operator_record(env, running))
    from pbem.engine import replay_states

    states = list(replay_states(record.seed_bytes, record.moves, record.first_player))
    for n in range(len(states)):
        html = client.get(f"{link}?n={n}").text
        assert record.seed not in html
        board = html.split('<section class="board">', 1)[1].split("</section>", 1)[0]
        r = states[n].round
        expected = Counter(c.word for c in r.market_cards()) + Counter(c.word for c in r.hand(0))
        assert Counter(FACE.findall(board)) == expected, n  # no card of seat 1's hand
        deck = ", ".join(c.word for c in r.deck_cards()[:6])
        assert deck not in html
        assert "Bonus piles, top first" not in html
    assert client.get(f"{link}?n={len(states)}").status_code == 404  # nothing beyond now


def test_the_audit_of_a_finished_game_shows_everything(client, env, finished):
    page = client.get(f"/g/{finished}/audit/5")
    assert page.status_code == 200
    assert "the chain holds from the commitment to move 5" in page.text
    assert "could have played" in page.text and "Seed" in page.text
    assert "pbem verify jaipur-" in page.text
    assert client.get(f"/g/{finished}/audit/0").status_code == 404


def test_the_audit_of_a_running_game_hides_the_opponents_side(client, env, running):
    t = token(env, running, 0)
    entries = game_pages.public_page(env, running).entries
    mine = next(e.n for e in entries if e.seat == 0)
    theirs = next(e.n for e in entries if e.seat == 1)
    own = client.get(f"/s/{t}/audit/{mine}").text
    assert "could have played" in own
    other = client.get(f"/s/{t}/audit/{theirs}").text
    assert "Hidden while the game runs" in other and "legal moves)" not in other
    assert "<td>Bo</td>" not in other  # the opponent's access log stays hidden
    assert client.get(f"/g/{running}/audit/1").status_code == 403


def test_the_evidence_of_a_disputed_turn_verifies_offline(client, env, finished, tmp_path):
    response = client.get(f"/g/{finished}/audit/7/evidence.json")
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    data = response.get_json()
    assert len(data["moves"]) == 7
    assert data["evidence"]["disputed_move"] == 7 and data["evidence"]["access_log"]
    assert all(e["ip"] is None or e["ip"].endswith("x.x") for e in data["evidence"]["access_log"])
    report = verify(load_record(data))
    assert report.ok, report.first_failure
    path = tmp_path / "evidence.json"
    path.write_text(json.dumps(data))
    from click.testing import CliRunner

    from pbem.cli import main

    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 0, result.output


def test_a_players_evidence_while_running_withholds_the_seed_and_verifies_as_it_is(
    client, env, running
):
    data = client.get(f"/s/{token(env, running, 0)}/audit/3/evidence.json").get_json()
    assert data["seed"] is None and data["format"] == "jaipur-record/2"
    assert all(len(m["position"]) == 64 for m in data["moves"])  # keyed: they tell nothing
    from pbem.engine import verify

    report = verify(load_record(data))
    assert report.ok, report.first_failure
    assert [c.name for c in report.checks] == ["format", "chain", "times", "evidence"]
    assert "seed" in report.unchecked[0]


def test_a_record_file_opens_in_the_viewer_from_the_home_page(client, env, finished):
    from tests.helpers import csrf_of

    home = client.get("/")
    data = client.get(f"/g/{finished}/record.json").data
    response = client.post(
        "/records",
        data={"csrf_token": csrf_of(home.text), "record": (io.BytesIO(data), "game.json")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 303
    viewer = client.get(response.headers["Location"])
    assert viewer.status_code == 200 and "(record file)" in viewer.text
    assert client.get(response.headers["Location"] + "?n=3&as=1").status_code == 200

    bad = client.post(
        "/records",
        data={"csrf_token": csrf_of(home.text), "record": (io.BytesIO(b"{nope"), "x.json")},
        content_type="multipart/form-data",
    )
    assert bad.status_code == 400 and "not a game record" in bad.text
    running = client.get(f"/s/{token(env, new_game(env), 0)}/export").data
    seedless = client.post(
        "/records",
        data={"csrf_token": csrf_of(home.text), "record": (io.BytesIO(running), "mine.json")},
        content_type="multipart/form-data",
    )
    assert seedless.status_code == 403 and "running game" in seedless.text


def test_pbem_view_serves_a_record_without_a_database(env, finished, tmp_path):
    from click.testing import CliRunner

    from pbem.cli import main
    from pbem.web import create_app

    data = json.dumps(game_records.operator_record(env, finished)).encode()
    app = create_app(record=data)
    c = app.test_client()
    start = c.get("/")
    assert start.status_code == 302
    page = c.get(start.headers["Location"] + "?n=10&as=all")
    assert page.status_code == 200 and "Replay:" in page.text
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert CliRunner().invoke(main, ["view", str(bad)]).exit_code == 2


def test_the_what_if_explorer_plays_on_against_the_real_deck(client, env, finished):
    record = load_record(game_records.operator_record(env, finished))
    from pbem.engine import replay_states

    states = list(replay_states(record.seed_bytes, record.moves, record.first_player))
    # The deal is random: take the first step after move 5 where another move was legal
    # (a market of five camels with a hand of single precious goods leaves only "camels").
    n = next(i for i in range(6, len(record.moves)) if len(states[i].legal_moves()) > 1)
    real_next = record.moves[n].move
    other = next(str(m) for m in states[n].legal_moves() if str(m) != real_next)
    page = client.get(f"/g/{finished}/whatif", query_string={"n": n, "try": other})
    assert page.status_code == 200
    assert f">{other}</code>" in page.text and f">{real_next}</code>" in page.text
    branch = states[n].apply(
        states[n].legal_moves()[[str(m) for m in states[n].legal_moves()].index(other)]
    )
    from pbem.i18n import shown_list

    deck_text = shown_list(c.word for c in branch.round.deck_cards())  # the reader's list
    assert deck_text in page.text  # the branch drew from the real deck
    bad = client.get(f"/g/{finished}/whatif", query_string={"n": n, "try": "sell 9 gold"})
    assert "Not played:" in bad.text
    before = len(load_record(game_records.operator_record(env, finished)).moves)
    assert before == len(record.moves)  # nothing stored
    assert client.get(f"/s/{token(env, new_game(env), 0)}/replay").status_code == 200
    assert "what if" in client.get(f"/g/{finished}/replay?n=3").text
