"""docs/record-format.md §1.3, player entropy: a web game waits for both players, then
deals from the server's committed seed mixed with both contributions."""

from __future__ import annotations

import hashlib
import secrets

import pytest

from pbem.engine import Match, load_record, rng, verify
from pbem.services.core import access, errors
from pbem.services.play import game_pages, moves, new_games
from pbem.services.records import game_records
from tests.helpers import csrf_of, link_in, mails


def _waiting(env) -> str:
    return new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "ada@example.test"),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
        await_players=True,
    ).public_id


def test_a_waiting_game_deals_only_when_both_have_accepted(env):
    public_id = _waiting(env)
    tokens = game_pages.seat_tokens(env, public_id)
    assert game_pages.public_page(env, public_id).view is None
    assert isinstance(game_pages.seat_page(env, tokens[0], access.Client()), game_pages.WaitingPage)
    with pytest.raises(errors.NotStarted):
        moves.submit_move(env, tokens[0], 1, "camels", access.Client())
    with pytest.raises(errors.NotStarted):
        game_records.operator_record(env, public_id)
    e0, e1 = secrets.token_bytes(32), hashlib.sha256(b"my own words").digest()
    assert new_games.accept(env, tokens[0], e0, access.Client()) is False
    with pytest.raises(errors.InvalidInput, match="accepted this game already"):
        new_games.accept(env, tokens[0], e0, access.Client())
    assert new_games.accept(env, tokens[1], e1, access.Client()) is True
    data = game_records.operator_record(env, public_id)
    server = bytes.fromhex(data["server_seed"])
    assert data["seed"] == rng.mix_seed(server, e0, e1).hex()
    assert data["commitment"] == rng.commitment(server)
    assert data["contributions"] == [e0.hex(), e1.hex()]
    report = verify(load_record(data))
    assert report.ok and "seed mix" in [c.name for c in report.checks]
    match = Match.new(bytes.fromhex(data["seed"]))
    dealt = mails(env, public_id, kind="dealt")
    assert len(dealt) == 2
    starter = next(m for m in dealt if m.seat == match.to_move)
    assert "Reply-To" in starter.headers and "your turn" in starter.subject
    # a waiting game's invitation asks for no move; a reply to it is read, and answered
    # that the game waits (tests/mail/test_every_mail_answerable.py)
    for invitation in mails(env, public_id, kind="invitation"):
        assert "To move by mail" not in invitation.text_body
        assert f"+{public_id}-{invitation.seat}-1-" in invitation.headers["Reply-To"]


def test_contributions_from_a_browser_or_a_phrase():
    assert len(new_games.contribution_from("ab" * 32, None)) == 32
    assert new_games.contribution_from("", "a phrase") == hashlib.sha256(b"a phrase").digest()
    assert (
        new_games.contribution_from("not hex", "fallback words")
        == hashlib.sha256(b"fallback words").digest()
    )
    with pytest.raises(errors.InvalidInput):
        new_games.contribution_from("abcd", "")  # too few bytes, and no words


def test_accepting_through_the_api(client, env):
    public_id = _waiting(env)
    tokens = game_pages.seat_tokens(env, public_id)
    for i, t in enumerate(tokens):
        auth = {"Authorization": f"Bearer {t}"}
        assert client.get("/api/seat", headers=auth).get_json()["status"] == "waiting"
        answer = client.post(
            "/api/seat/accept", json={"entropy": secrets.token_hex(16)}, headers=auth
        )
        assert answer.status_code == 200 and answer.get_json()["dealt"] == (i == 1)
    assert client.get("/api/seat", headers=auth).get_json()["status"] == "in_progress"


def test_the_audit_of_a_finished_game_shows_how_the_seed_follows(client, env):
    public_id = _waiting(env)
    tokens = game_pages.seat_tokens(env, public_id)
    for t in tokens:
        new_games.accept(env, t, secrets.token_bytes(32), access.Client())
    to_move = game_pages.public_page(env, public_id).view.table.to_move
    moves.resign(env, tokens[to_move], 1, access.Client())
    page = client.get(f"/g/{public_id}/audit/1")
    assert "How the seed follows from the players' contributions" in page.text
    evidence = client.get(f"/g/{public_id}/audit/1/evidence.json").get_json()
    assert verify(load_record(evidence)).ok


def test_the_waiting_pages(client, env):
    public_id = _waiting(env)
    assert "Waiting for both players to accept" in client.get(f"/g/{public_id}").text
    link = link_in(mails(env, public_id, seat=0)[-1])
    page = client.get(link)
    assert "Accept the game" in page.text and 'id="entropy"' in page.text
    bad = client.post(f"{link}/accept", data={"csrf_token": csrf_of(page.text), "phrase": ""})
    assert bad.status_code == 400 and "Type a few words" in bad.text
    assert "accept the game" in mails(env, public_id, seat=0, kind="invitation")[0].text_body
