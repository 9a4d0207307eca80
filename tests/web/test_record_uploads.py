"""Record files opened on the home page or with ``pbem view FILE``.

A file that is a record is verified: one that fails is shown failing, with the check
that broke, on every page of it, and its download says so. A file that is not a
record is refused with a message, never a 500. Every link the viewer serves works.
"""

from __future__ import annotations

import copy
import io
import json
from html import unescape
from typing import Any

import pytest

from pbem.engine import load_record, replay_states, verify
from pbem.services.core import access
from pbem.services.play import game_pages, moves
from pbem.services.records import game_records
from pbem.web import create_app
from tests.helpers import csrf_of
from tests.mail.play import new_game
from tests.support import play_random
from tests.web.crawl import crawl

FAILS = "This record fails verification."


@pytest.fixture
def short(env) -> dict[str, Any]:
    """The record of a finished game of a few moves (the first player resigns at move 9)."""
    public_id = new_game(env, first=0)
    play_random(env, public_id, 8)
    moves.resign(env, game_pages.seat_tokens(env, public_id)[0], 9, access.Client())
    return game_records.operator_record(env, public_id)


def _forged(record: dict[str, Any], n: int = 3) -> dict[str, Any]:
    """The record with move ``n`` changed to another move that was legal there, its
    chain hash left as it was: what someone rewriting a game's history would send."""
    forged = copy.deepcopy(record)
    loaded = load_record(json.dumps(record))
    before = list(replay_states(loaded.seed_bytes, loaded.moves, loaded.first_player))[n - 1]
    played = forged["moves"][n - 1]["move"]
    forged["moves"][n - 1]["move"] = next(str(m) for m in before.legal_moves() if str(m) != played)
    return forged


def _upload(client, data: bytes, csrf: str | None = None) -> Any:
    form: dict[str, Any] = {"record": (io.BytesIO(data), "game.json")}
    if csrf is not None:
        form["csrf_token"] = csrf
    return client.post("/records", data=form, content_type="multipart/form-data")


def _viewer_crawl(data: bytes):
    """Every page ``pbem view`` serves for ``data``, reached by following links from ``/``."""
    app = create_app(record=data)
    return crawl(app.test_client, ["/"], lambda url: not url.startswith("/static/"))


def test_a_forged_record_is_shown_failing_on_every_page_and_in_its_download(client, short):
    forged = json.dumps(_forged(short)).encode()
    failure = verify(load_record(forged)).first_failure
    assert failure is not None
    answer = _upload(client, forged, csrf_of(client.get("/").text))
    assert answer.status_code == 303
    page = client.get(answer.headers["Location"]).text
    assert FAILS in page and f"{failure.name}: {failure.detail}" in page

    download = client.get(answer.headers["Location"] + ".json")
    assert download.data == forged  # exactly as uploaded: `pbem verify` finds the same
    assert "FAILS-VERIFICATION" in download.headers["Content-Disposition"]
    assert download.headers["X-Pbem-Verification"] == f"fails: {failure.name}"

    seen = _viewer_crawl(forged)  # the same pages as served by `pbem view`
    pages = seen.pages()
    assert len(pages) > 20
    for visit in pages:
        assert visit.status == 200, (visit.url, visit.status)
        assert f"{failure.name}: {failure.detail}" in visit.text, visit.url
        if '<html lang="en"' in visit.text:
            assert FAILS in visit.text, visit.url


def test_a_sound_record_is_served_as_uploaded_and_flagged_nowhere(client, short):
    data = json.dumps(short, indent=2).encode()
    answer = _upload(client, data, csrf_of(client.get("/").text))
    page = client.get(answer.headers["Location"]).text
    assert "(record file)" in page and FAILS not in page
    download = client.get(answer.headers["Location"] + ".json")
    assert download.data == data and download.headers["X-Pbem-Verification"] == "passes"


def test_moves_that_do_not_replay_end_the_replay_with_the_flag(client, short):
    broken = copy.deepcopy(short)
    broken["moves"][4]["move"] = "sell 5 diamond"
    answer = _upload(client, json.dumps(broken).encode(), csrf_of(client.get("/").text))
    assert answer.status_code == 303
    page = client.get(answer.headers["Location"]).text
    assert FAILS in page and "Shown here: moves 1 to 4. The moves after them do not replay." in page
    assert "Move 4 of 4" in page


def test_every_link_pbem_view_serves_works(short):
    """`pbem view FILE` has no database and no server setup: each page it links to (every
    step, every perspective, the what-if explorer, the download, each language) answers."""
    seen = _viewer_crawl(json.dumps(short).encode())
    assert {v.status for v in seen.visits.values()} <= {200, 302}, [
        (v.url, v.status) for v in seen.visits.values() if v.status not in (200, 302)
    ]
    urls = list(seen.visits)
    assert any("/whatif" in u for u in urls) and any(u.endswith(".json") for u in urls)
    assert any("as=0" in u for u in urls) and any("lang=fa" in u for u in urls)
    assert all(FAILS not in v.text for v in seen.pages())


def test_an_unfinished_record_with_its_seed_opens_from_every_perspective(short):
    """An evidence file of a finished game (its seed, moves up to a disputed one) hides
    nothing: the file holds the seed. It used to end in an IndexError."""
    cut = copy.deepcopy(short)
    cut["moves"] = cut["moves"][:5]
    cut.pop("result", None)
    seen = _viewer_crawl(json.dumps(cut).encode())
    assert {v.status for v in seen.visits.values()} <= {200, 302}
    assert any("as=all" in u for u in seen.visits)


NOT_RECORDS = {
    "not JSON": b"{nope",
    "6 KB of [": b"[" * 6 * 1024,
    "deep objects": b'{"a":' * 3000 + b"1" + b"}" * 3000,
    "empty": b"",
    "not UTF-8": b'{"format": "\xff\xfe"}',
    "a list": b"[]",
    "a number": b"1e999999",
    "no format": b"{}",
    "moves not a list": b'{"format": "jaipur-record/1", "moves": "e4"}',
    "a move not an object": b'{"format": "jaipur-record/1", "moves": [7]}',
    "n as text": b'{"format": "jaipur-record/1", "moves": [{"n": "1", "move": "camels"}]}',
    "seed a number": b'{"format": "jaipur-record/1", "seed": 5, "moves": []}',
    "seed not hex": b'{"format": "jaipur-record/1", "seed": "zz", "moves": []}',
    "players a text": b'{"format": "jaipur-record/1", "players": "ada", "moves": []}',
    "first player text": b'{"format": "jaipur-record/1", "first_player": "0", "moves": []}',
}


@pytest.mark.parametrize("name", list(NOT_RECORDS))
def test_a_file_that_is_not_a_record_is_refused_with_a_message(client, name):
    answer = _upload(client, NOT_RECORDS[name], csrf_of(client.get("/").text))
    assert answer.status_code == 400, answer.text
    assert "That file is not a game record:" in answer.text


VALUES: list[Any] = [None, 0, -1, 2, 1.5, True, "", "x", "0" * 64, [], {}, [[]], {"a": {}}, 10**30]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path] if path else []
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*path, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value[:3]):
            out += _paths(inner, (*path, i))
    return out


def _with(record: Any, path: tuple[Any, ...], value: Any) -> Any:
    changed = copy.deepcopy(record)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


@pytest.mark.slow  # every field times every type, each upload and its pages
def test_a_record_with_any_field_of_a_wrong_type_is_refused_or_shown_never_a_500(short):
    """Every field of a real record (the header, the first moves) set to values of every
    type: each upload is refused (400, 403) or opened, and every page of it answers."""
    app = create_app(record=json.dumps(short).encode())  # no rate limit, no CSRF: one user
    app.config["PROPAGATE_EXCEPTIONS"] = False
    c = app.test_client()
    opened = 0
    for path in _paths(short):
        for value in VALUES:
            answer = _upload(c, json.dumps(_with(short, path, value)).encode())
            assert answer.status_code in (303, 400, 403), (path, value, answer.status_code)
            if answer.status_code == 303:
                opened += 1
                where = answer.headers["Location"]
                for url in (where, f"{where}?n=1&as=0", f"{where}/whatif?n=1", f"{where}.json"):
                    assert c.get(url).status_code < 500, (path, value, url)
    assert opened > 0


COVERS = "The check covers the moves, the deal and the result, not the players' names"


def _page_of(client, record: dict[str, Any]) -> str:
    answer = _upload(client, json.dumps(record).encode(), csrf_of(client.get("/").text))
    assert answer.status_code == 303
    return unescape(client.get(answer.headers["Location"]).text)


def test_a_renamed_copy_of_a_real_record_shows_the_servers_names_beside_the_files(client, short):
    """Issue 31: names are outside the chain by design, so a real record with its players
    renamed still passes. The page says what the check covers, and, since this server
    holds the same game, whom it names and whom the file names."""
    renamed = copy.deepcopy(short)
    renamed["players"][0]["name"] = "Mallory (champion)"
    page = _page_of(client, renamed)
    assert FAILS not in page and COVERS in page
    assert "This record file passes verification" in page
    held = page[page.index("This server holds the same game") :][:600]
    assert "Ada" in held and "Bo" in held and f'href="/g/{short["game_id"]}"' in held
    assert "The file names them Mallory (champion) and Bo." in held


def test_an_unchanged_copy_names_no_one_twice(client, short):
    page = _page_of(client, short)
    assert COVERS in page and "This server holds the same game" in page
    assert "The file names them" not in page


def test_a_record_this_server_does_not_hold_is_only_told_what_the_check_covers(client, short):
    """The same record under another game id fails (the id is in the chain), and a record
    opened with ``pbem view`` has no server behind it: neither claims a game of the server."""
    other = copy.deepcopy(short)
    other["game_id"] = "zzzzzzzzzz"
    page = _page_of(client, other)
    assert FAILS in page and COVERS in page and "This server holds" not in page
    viewer = create_app(record=json.dumps(short).encode()).test_client()
    alone = unescape(viewer.get(viewer.get("/").headers["Location"]).text)
    assert COVERS in alone and "This record file passes verification" in alone
    assert "This server holds" not in alone


def test_a_forged_record_with_the_real_chain_claims_no_game_of_the_server(client, short):
    """Hashes copied from the real log over other moves: the record fails, and the page does
    not call it this server's game."""
    page = _page_of(client, _forged(short))
    assert FAILS in page and "This server holds" not in page
