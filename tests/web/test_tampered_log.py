"""A game whose stored log was tampered with, as an attacker with the database would:
every page of it shows the flag (what broke, that the game is frozen), none is a 500,
none shows what comes after the break as if it were true, and nothing more is played.

The move log is append-only through triggers: the attacker drops them, rewrites the
rows and puts them back. Each case changes move 5 of a game of 10 moves (the move text,
the seat, the row itself, the chain hash), in a running game and in a finished one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
from sqlalchemy import select, text

from pbem.engine import load_record, replay_states
from pbem.services.core import access
from pbem.services.core.env import Env
from pbem.services.core.errors import Frozen
from pbem.services.play import game_pages, moves
from pbem.services.records import game_records
from pbem.services.scheduled import jobs
from pbem.store.db import Database, is_sqlite
from pbem.store.models import Game
from pbem.web import create_app
from tests.mail.play import new_game, token
from tests.web.crawl import crawl

BANNER = "This game's stored log does not verify."
TAMPERED = 5  # the move the attacker changes
PLAYED = 10


@pytest.fixture(scope="module")
def attacked_database(migrated_database) -> Iterator[Database]:
    """A database of these tests' own: the attacker's trigger dance touches only it."""
    db = Database(migrated_database())
    yield db
    db.dispose()


@pytest.fixture
def tenv(attacked_database, config, clock) -> Env:
    return Env(
        config=config.with_(database_url=attacked_database.url), db=attacked_database, clock=clock
    )


def _play(env: Env, count: int, finish: bool) -> str:
    """A game of ``count`` random moves in which the attacker had a choice at move
    TAMPERED: the deal is random, and about one deal in seventy leaves a market of five
    camels there, where taking them is the only move (a new game is dealt then)."""
    for _ in range(20):
        rnd = random.Random(11)
        public_id = new_game(env, first=0)
        tokens = game_pages.seat_tokens(env, public_id)
        for n in range(1, count + 1):
            t = next(t for t in tokens if game_pages.legal_moves(env, t))
            if n == TAMPERED and len(game_pages.legal_moves(env, t)) < 2:
                break
            moves.submit_move(
                env, t, n, rnd.choice(game_pages.legal_moves(env, t)), access.Client()
            )
        else:
            if finish:
                moves.resign(env, tokens[0], count + 1, access.Client())
            return public_id
    raise AssertionError("twenty deals in a row left no choice at the tampered move")


def _game_id(env: Env, public_id: str) -> int:
    with env.db.read() as session:
        return session.scalars(select(Game.id).where(Game.public_id == public_id)).one()


def tamper(db: Database, statement: str, **params: object) -> None:
    """Run ``statement`` on the move log past its triggers, then put them back, as an
    attacker with the database's keys would (a role that owns the tables)."""
    with db.write() as session:
        if is_sqlite(db.url):
            triggers = session.execute(
                text(
                    "SELECT name, sql FROM sqlite_master "
                    "WHERE type = 'trigger' AND tbl_name = 'moves'"
                )
            ).all()
            for name, _sql in triggers:
                session.execute(text(f"DROP TRIGGER {name}"))
            session.execute(text(statement), params)
            for _name, sql in triggers:
                session.execute(text(sql))
        else:
            session.execute(text("ALTER TABLE moves DISABLE TRIGGER USER"))
            session.execute(text(statement), params)
            session.execute(text("ALTER TABLE moves ENABLE TRIGGER USER"))


def _other_legal_move(env: Env, public_id: str, n: int) -> str:
    """A move that was legal at move ``n`` but was not played (the attacker's choice)."""
    record = load_record(game_records.operator_record(env, public_id))
    before = list(replay_states(record.seed_bytes, record.moves, record.first_player))[n - 1]
    played = record.moves[n - 1].move
    return next(str(m) for m in before.legal_moves() if str(m) != played)


CASES = {
    "move text": "UPDATE moves SET move = :move WHERE game_id = :game AND n = :n",
    "seat": "UPDATE moves SET seat = 1 - seat WHERE game_id = :game AND n = :n",
    "removed row": "DELETE FROM moves WHERE game_id = :game AND n = :n",
    "chain hash": "UPDATE moves SET hash = :hash WHERE game_id = :game AND n = :n",
}
REASONS = {
    "move text": f"chain: move {TAMPERED}: the chain hash does not match",
    "seat": f"chain: move {TAMPERED}: the chain hash does not match",
    "removed row": f"chain: move {TAMPERED} is numbered {TAMPERED + 1}",
    "chain hash": f"chain: move {TAMPERED}: the chain hash does not match",
}


def _tampered(env: Env, case: str, finish: bool) -> str:
    public_id = _play(env, PLAYED, finish)
    assert game_records.verify_game(env, public_id).ok
    params: dict[str, object] = {"game": _game_id(env, public_id), "n": TAMPERED}
    if case == "move text":
        params["move"] = _other_legal_move(env, public_id, TAMPERED)
    if case == "chain hash":
        params["hash"] = "0" * 64
    tamper(env.db, CASES[case], **params)
    env.cache = type(env.cache)()  # a process that starts after the change
    return public_id


# each case crawls some hundred pages: the quick loop crawls one of them
CRAWLS = [
    pytest.param(
        case,
        finish,
        id=f"{case}-{'finished' if finish else 'running'}",
        marks=() if (case, finish) == ("move text", True) else pytest.mark.slow,
    )
    for finish in (False, True)
    for case in CASES
]


@pytest.mark.parametrize(("case", "finish"), CRAWLS)
def test_every_page_of_a_tampered_game_shows_the_flag_and_none_is_a_500(
    tenv, template_code, case, finish
):
    public_id = _tampered(tenv, case, finish)
    reason = REASONS[case]
    app = create_app(env=tenv)
    app.jinja_env.bytecode_cache = template_code
    tokens = game_pages.seat_tokens(tenv, public_id)
    seat_links = [f"/s/{t}" for t in tokens]
    last = PLAYED + finish
    starts = [f"/g/{public_id}", f"/g/{public_id}/record.json", f"/g/{public_id}/whatif"]
    for link in (f"/g/{public_id}", *seat_links):  # steps and audits around the break
        for n in sorted({0, 1, TAMPERED - 1, TAMPERED, TAMPERED + 1, last, last + 1}):
            starts += [
                f"{link}/replay?n={n}",
                f"{link}/audit/{n}",
                f"{link}/audit/{n}/evidence.json",
            ]
    for link in seat_links:
        starts += [link, f"{link}/export", f"{link}/replay", f"{link}/replay?as=all"]

    def ours(url: str) -> bool:
        return url.startswith((f"/g/{public_id}", *seat_links))

    plain = {f"/g/{public_id}", *seat_links}
    seen = crawl(app.test_client, starts, ours, languages=lambda url: url in plain)
    assert len(seen.visits) > 60
    for visit in seen.visits.values():
        assert visit.status < 500, (visit.url, visit.status)
        if 300 <= visit.status < 400:
            continue
        if visit.mimetype == "text/html":
            assert visit.status in (200, 403, 404), (visit.url, visit.status)
            assert reason in visit.text, visit.url  # what broke, on every page
            if '<html lang="en"' in visit.text:
                assert BANNER in visit.text and "The game is frozen" in visit.text, visit.url
        else:
            data = json.loads(visit.text)
            assert data["flagged"]["integrity_error"].startswith(reason), visit.url
            assert data["flagged"]["frozen"] is True
            assert visit.headers["X-Pbem-Verification"].startswith("fails"), visit.url

    # the game is flagged in the database, once, with what broke
    with tenv.db.read() as session:
        flag = session.scalars(
            select(Game.integrity_error).where(Game.public_id == public_id)
        ).one()
    assert flag is not None and flag.startswith(reason)
    # and `pbem verify --game` agrees on where it breaks (it names a missing row's successor)
    bad = game_records.verify_game(tenv, public_id).first_bad_move
    assert bad == TAMPERED + (case == "removed row")


@pytest.mark.parametrize("case", list(CASES))
def test_nothing_after_the_break_is_shown_as_true(tenv, client_of, case):
    public_id = _tampered(tenv, case, finish=False)
    c = client_of(tenv)
    shown = TAMPERED - 1
    page = c.get(f"/g/{public_id}").text
    assert f"Shown here: moves 1 to {shown}, the part of the log that verifies." in page
    assert page.count('<li value="') == shown  # the public move list ends before the break
    for seat in (0, 1):
        link = f"/s/{token(tenv, public_id, seat)}"
        assert f"Move {shown} of {shown}" in c.get(f"{link}/replay").text
        assert c.get(f"{link}/replay?n={shown + 1}").status_code == 404
        api = c.get("/api/seat", headers={"Authorization": f"Bearer {link[3:]}"}).json
        assert api["flagged"]["moves_shown"] == shown and [m["n"] for m in api["moves"]] == list(
            range(1, shown + 1)
        )
        assert api["your_turn"] is False
        exported = c.get(f"{link}/export").json
        assert len(exported["moves"]) == PLAYED - (case == "removed row")  # as stored, to check
        assert exported["flagged"]["moves_shown"] == shown


@pytest.fixture
def client_of(template_code):
    def client(env: Env):
        app = create_app(env=env)
        app.jinja_env.bytecode_cache = template_code
        return app.test_client()

    return client


def test_a_frozen_game_takes_no_move_by_any_way(tenv, client_of):
    public_id = _tampered(tenv, "chain hash", finish=False)
    c = client_of(tenv)
    tokens = game_pages.seat_tokens(tenv, public_id)
    page = c.get(f"/s/{tokens[0]}").text
    assert "The game is frozen." in page
    assert 'action="/s/' not in page.split('class="seat-tools"')[0]  # no move, claim, rematch
    assert "/preview" not in page and "/resign" not in page
    for t in tokens:
        assert game_pages.legal_moves(tenv, t) == []
        with pytest.raises(Frozen):
            moves.submit_move(tenv, t, TAMPERED, "take camels", access.Client())
        with pytest.raises(Frozen):
            moves.resign(tenv, t, TAMPERED, access.Client())
        answer = c.post(
            "/api/seat/moves",
            json={"n": TAMPERED, "move": "camels"},
            headers={"Authorization": f"Bearer {t}"},
        )
        assert answer.status_code == 409 and answer.json["flagged"]["frozen"] is True
    # the scheduler passes it by: no reminder, no warning, no timeout, and no crash
    tenv.clock.advance(days=40)
    jobs.run_clock(tenv)
    jobs.send_digests(tenv)
    with tenv.db.read() as session:
        rows = session.execute(
            text("SELECT COUNT(*) FROM moves WHERE game_id = :g"), {"g": _game_id(tenv, public_id)}
        ).scalar_one()
    assert rows == PLAYED


def test_a_live_process_finds_a_change_to_the_last_move(tenv, client_of):
    """No restart: the cached log ends with the move the attacker changed, so the next
    read sees the change and flags the game."""
    public_id = _play(tenv, PLAYED, finish=False)
    c = client_of(tenv)
    assert BANNER not in c.get(f"/g/{public_id}").text
    tamper(tenv.db, CASES["chain hash"], game=_game_id(tenv, public_id), n=PLAYED, hash="f" * 64)
    page = c.get(f"/g/{public_id}").text
    assert BANNER in page and f"chain: move {PLAYED}: the chain hash does not match" in page


def test_a_game_frozen_by_pbem_verify_shows_every_move_with_the_flag(tenv, client_of):
    """A flag set by `pbem verify --game` on a log that still chains and replays: the pages
    show it all, flagged, and the game is frozen."""
    public_id = _play(tenv, PLAYED, finish=False)
    with tenv.db.write() as session:
        session.execute(
            text("UPDATE games SET integrity_error = :flag WHERE public_id = :p"),
            {"p": public_id, "flag": "positions: move 3: the replayed position differs"},
        )
    c = client_of(tenv)
    page = c.get(f"/g/{public_id}").text
    assert BANNER in page and "Shown here" not in page and page.count('<li value="') == PLAYED
    link = f"/s/{token(tenv, public_id, 0)}"
    assert "The game is frozen." in c.get(link).text
    assert c.get(f"{link}/replay?n={PLAYED}").status_code == 200
