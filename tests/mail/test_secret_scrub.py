"""Nothing secret-shaped that a person supplies is kept or shown (issue 31, follow-up).

A stranger who mails a seat's token to its reply address, as the first line, mid-line,
in a link or in a quoted line, during a game or after it, must not find it quoted in the
access log, the public audit or its evidence, the refusal mail, the inbound log or any
log line; nor can a challenge's note publish a seat link, a token or a reply address.
"""

from __future__ import annotations

import json
import logging

import pytest
from sqlalchemy import select

from pbem import redact
from pbem.services.core.access import Client
from pbem.services.play import challenges, game_pages, moves, replies
from pbem.store.models import AccessLog, InboundMail, OutboxMessage, Player
from tests.mail.play import new_game, token
from tests.mail.test_replies import reply, reply_to_of

SIGN_IN = "Qm9ndXNTaWduSW5Ub2tlbl9vZl80M19jaGFyYWN0ZXI"


def _bodies(seat_token: str, reply_token: str) -> list[str]:
    return [
        f"{seat_token} please",
        f"play {seat_token} now",
        f"see http://evil.example/s/{seat_token}",
        f"> {seat_token}",
        f"> said:\n> {seat_token}",
        f"{reply_token} yes",
        f'"play+{reply_token}"@pbem.test',
        f"{SIGN_IN} go",
    ]


def _everything_kept(env, public_id: str, client) -> str:
    with env.db.read() as session:
        access = session.scalars(select(AccessLog.detail)).all()
        inbound = session.scalars(select(InboundMail.detail)).all()
        sent = session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "refusal")).all()
    texts = [str(a) for a in access] + [str(i) for i in inbound]
    own_link = f"{env.config.base_url}/s/{token(env, public_id, 0)}"  # the seat's own mail
    texts += [(m.text_body + (m.html_body or "")).replace(own_link, "") for m in sent]
    texts.append(client.get(f"/g/{public_id}/audit/1").text)
    texts.append(json.dumps(client.get(f"/g/{public_id}/audit/1/evidence.json").get_json()))
    return "\n".join(texts)


def test_a_token_mailed_to_a_reply_address_is_never_kept_or_shown(smtp_env, client, caplog):
    env = smtp_env
    caplog.set_level(logging.INFO)
    public_id = new_game(env, first=0)
    seat_token = token(env, public_id, 0)
    address = reply_to_of(env, public_id, 0)
    reply_token = address.split("+", 1)[1].split("@", 1)[0]
    for body in _bodies(seat_token, reply_token):  # during the game
        outcome = replies.handle_mail(env, bytes(reply(address, body, sender="m@evil.test")))
        assert outcome.outcome == "refused", (body, outcome)
    moves.resign(env, seat_token, game_pages.seat_page(env, seat_token, Client()).next_n, Client())
    for body in _bodies(seat_token, reply_token):  # once it is over
        outcome = replies.handle_mail(env, bytes(reply(address, body, sender="m@evil.test")))
        assert outcome.outcome == "refused", (body, outcome)
    kept = _everything_kept(env, public_id, client) + caplog.text
    for secret in (seat_token, seat_token.split(".")[1], reply_token, SIGN_IN):
        assert secret not in kept
    assert redact.CUT in kept  # what was cut shows as cut
    assert client.get(f"/s/{seat_token}").status_code == 200  # and the seat is the owner's


def test_a_challenge_note_shows_no_link_token_or_reply_address(env, client):
    public_id = new_game(env, first=0)
    seat_token = token(env, public_id, 0)
    reply_token = env.links.reply_token(public_id, 0, 1, 1)
    with env.db.read() as session:
        ada = session.scalars(select(Player.id).where(Player.email == "ada@example.test")).one()
    note = (
        f"play me {env.config.base_url}/s/{seat_token} or {seat_token} "
        f"or mail play+{reply_token}@pbem.test, {SIGN_IN}"
    )
    challenges.post(env, ada, days_per_move=3, starter="random", note=note)
    shown = [c.note for c in challenges.open_list(env, None)]
    page = client.get("/challenges").text
    for secret in (seat_token, seat_token.split(".")[1], reply_token, SIGN_IN, "/s/"):
        assert not any(secret in (n or "") for n in shown)
        assert secret not in page
    assert any((n or "").startswith("play me […]") for n in shown)


@pytest.mark.parametrize(
    "text",
    [
        "{t} please",
        "mid {t} line",
        "http://x.example/s/{t}",
        "> {t}",
        "<play+{r}>",
        '"play+{r}"@localhost',
        "{r}",
        "Bearer {t}",
    ],
)
def test_scrubbed_cuts_every_secret_shape(text):
    seat_token = "WyJkOGZtcTZoOGE3IiwxLDFd.mqBM7VDU_KnzLoLtt5m0sYQV0Ec"
    reply_token = "d8fmq6h8a7-1-4-1-rj6xjf2if4uooayxzmxd76tn"
    out = redact.scrubbed(text.format(t=seat_token, r=reply_token))
    assert seat_token not in out and "mqBM7VDU" not in out and reply_token not in out
    assert "rj6xjf2if4" not in out


def test_a_row_kept_before_the_scrub_is_shown_scrubbed(env, client):
    """Rows written by an older server, with a token in their detail, stay in the append-only
    access log; the audit and its evidence show them scrubbed."""
    from pbem.store import access_log
    from pbem.store.models import Game

    public_id = new_game(env, first=0)
    seat_token = token(env, public_id, 0)
    with env.db.write() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        access_log.append(
            session,
            game_id=game.id,
            seat=0,
            at=env.clock.now(),
            action="refused",
            detail=f"'{seat_token} please': not a move",
        )
    moves.resign(env, seat_token, game_pages.seat_page(env, seat_token, Client()).next_n, Client())
    page = client.get(f"/g/{public_id}/audit/1").text
    evidence = json.dumps(client.get(f"/g/{public_id}/audit/1/evidence.json").get_json())
    for shown in (page, evidence):
        assert seat_token not in shown and seat_token.split(".")[1] not in shown
