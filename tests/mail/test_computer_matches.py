"""Whole matches against the computer: once through the JSON API, once by email replies
in Greek through the real LMTP receiver. Between the person's moves the scheduler's
``computer`` job runs (called directly: no sleeping); mail goes out over real SMTP
(aiosmtpd), and none of it ever goes to the computer's address."""

from __future__ import annotations

import json
import random
from email.message import EmailMessage

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from pbem.cli import main
from pbem.i18n.notation import written
from pbem.mail.delivery import SmtpBackend
from pbem.receiver import ReceiverController
from pbem.services.play import computer, game_pages, new_games
from pbem.services.records import game_records
from pbem.services.scheduled import jobs
from pbem.store.models import Game, MoveRow, Player
from tests.helpers import past_the_hold, reply_headers
from tests.mail.conftest import free_port
from tests.mail.lmtp import lmtp_exchange

pytestmark = pytest.mark.slow


def _deliver(env) -> None:
    past_the_hold(env)
    while jobs.deliver_mail(env, SmtpBackend(env.config), limit=1000):
        pass


def _pick(rnd: random.Random, legal: list[str]) -> str:
    sells = [m for m in legal if m.startswith("sell")]
    return rnd.choice(sells) if sells and rnd.random() < 0.6 else rnd.choice(legal)


def _sources(env, public_id: str) -> dict[int, set[str]]:
    with env.db.read() as session:
        rows = session.execute(
            select(MoveRow.seat, MoveRow.source)
            .join(Game, Game.id == MoveRow.game_id)
            .where(Game.public_id == public_id)
        ).all()
    found: dict[int, set[str]] = {0: set(), 1: set()}
    for seat, source in rows:
        found[seat].add(source)
    return found


def _finished_and_checked(env, smtp_server, public_id: str, email: str, tmp_path) -> None:
    """Over, not rated, nothing mailed to the computer, and the record verifies offline."""
    _deliver(env)
    assert all(computer.ADDRESS not in rcpts for rcpts in smtp_server.collector.envelopes)
    assert game_pages.public_page(env, public_id).view.table.to_move is None
    with env.db.read() as session:
        person = session.scalars(select(Player).where(Player.email == email)).one()
        assert person.rated_games == 0
    record = game_records.export_record(env, public_id)
    assert record["players"][1]["name"].startswith("Computer (")
    path = tmp_path / f"{public_id}.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 0, result.output


def test_a_whole_match_against_the_computer_by_the_json_api(
    smtp_env, smtp_server, client, tmp_path
):
    env, rnd = smtp_env, random.Random(3)
    email = "api-player@example.test"
    created = computer.start(
        env, new_games.PlayerIn("Ada", email), "easy", contribution=bytes(range(32))
    )
    auth = {"Authorization": f"Bearer {created.tokens[0]}"}
    for _ in range(400):
        computer.computer_moves(env)  # the scheduler's job, run as it would be
        seat = client.get("/api/seat", headers=auth).get_json()
        assert seat["computer"]["thinking"] is False  # one run answered
        if seat["status"] == "finished":
            break
        assert seat["your_turn"]
        legal = client.get("/api/seat/legal-moves", headers=auth).get_json()["moves"]
        made = client.post(
            "/api/seat/moves", headers=auth, json={"n": seat["next_n"], "move": _pick(rnd, legal)}
        )
        assert made.status_code == 201, made.get_json()
        after = client.get("/api/seat", headers=auth).get_json()
        running = after["status"] == "in_progress"
        assert after["computer"]["thinking"] == (running and not after["your_turn"])
    else:
        pytest.fail("the match did not end in 400 moves")
    assert _sources(env, created.public_id) == {0: {"api"}, 1: {"bot"}}
    _finished_and_checked(env, smtp_server, created.public_id, email, tmp_path)


def _reply(move: str, original: EmailMessage, sender: str) -> bytes:
    """A Greek reader's answer: the move on top, a greeting, the mail quoted below."""
    quoted = "\n".join(
        "> " + line for line in original.get_body(("plain",)).get_content().splitlines()
    )
    msg = reply_headers(original, sender)
    body = f"{move}\n\nΚαλή συνέχεια!\n\nΣτις {original['Date']}, ο/η Jaipur έγραψε:\n{quoted}\n"
    msg.set_content(body, charset="utf-8")
    return msg.as_bytes()


def test_a_whole_match_against_the_computer_by_greek_email_replies(smtp_env, smtp_server, tmp_path):
    env, rnd = smtp_env, random.Random(5)
    email = "eleni@example.test"
    created = computer.start(
        env,
        new_games.PlayerIn("Ελένη", email, "el", "Europe/Athens"),
        "normal",
        contribution=bytes(range(1, 33)),
    )
    token = created.tokens[0]
    port = free_port()
    receiver = ReceiverController(env, "127.0.0.1", port, lmtp=True)
    receiver.start()
    try:
        for _ in range(400):
            computer.computer_moves(env)
            _deliver(env)
            page = game_pages.seat_page(env, token, _client())
            assert not page.thinking
            if page.view.table.to_move is None:
                break
            asks = [
                m
                for m in smtp_server.received
                if m["To"].addresses[0].addr_spec == email and m["Reply-To"]
            ]
            original = asks[-1]
            canonical = _pick(rnd, game_pages.legal_moves(env, token))
            greek = written(canonical, "el")
            before = page.next_n - 1
            answers = lmtp_exchange(
                port, [str(original["Reply-To"])], _reply(greek, original, email), email
            )
            assert answers[0].startswith("250") and answers[-1].startswith("250"), answers
            logged = game_records.operator_record(env, created.public_id)["moves"]
            assert len(logged) == before + 1, greek
            assert logged[-1]["move"] == canonical, greek
        else:
            pytest.fail("the match did not end in 400 moves")
    finally:
        receiver.stop()
    assert _sources(env, created.public_id) == {0: {"email"}, 1: {"bot"}}
    _finished_and_checked(env, smtp_server, created.public_id, email, tmp_path)


def _client():
    from pbem.services.core.access import Client

    return Client(user_agent="test")
