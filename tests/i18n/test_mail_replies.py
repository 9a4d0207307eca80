"""Playing by email reply in one's own language (issue 8): a Greek and a Ukrainian
player reply with moves in their words; the log stays canonical; refusals and every
mail, delivered over real SMTP, speak the recipient's language and say so."""

from __future__ import annotations

import random
import re

from pbem.engine import Card, load_record, verify
from pbem.i18n.notation import card_name, written
from pbem.mail.delivery import SmtpBackend
from pbem.services.play import new_games
from pbem.services.records import game_records
from pbem.services.scheduled import jobs
from tests.helpers import mails, past_the_hold
from tests.mail.test_replies import reply, reply_to_of, send, state

GREEK = re.compile(r"[\u0370-\u03ff]")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")
SEATS = (
    new_games.PlayerIn("Ελένη", "eleni@example.test", "el", "Europe/Athens"),
    new_games.PlayerIn("Остап", "ostap@example.test", "uk", "Europe/Kyiv"),
)


def new_game(env) -> str:
    return new_games.create_game(env, SEATS, first_player=0).public_id


def test_moves_replied_in_greek_and_ukrainian_are_recorded_canonically(
    smtp_env, smtp_server, receiver
):
    env = smtp_env
    public_id = new_game(env)
    rnd = random.Random(11)
    for count in range(1, 25):
        position = state(env, public_id)
        if position.is_over:
            break
        seat = position.to_move
        move = rnd.choice(position.legal_moves())
        body = f"\n{written(str(move), SEATS[seat].language)}\n\n> {'-' * 20}\n> quoted\n"
        send(receiver, reply(reply_to_of(env, public_id, seat), body, SEATS[seat].email))
        logged = game_records.operator_record(env, public_id)["moves"]
        assert len(logged) == count, mails(env, public_id)[-1].text_body
        assert logged[-1]["move"] == str(move)  # the log keeps the canonical notation
    assert verify(load_record(game_records.operator_record(env, public_id))).ok
    assert not [m for m in mails(env, public_id) if m.kind == "refusal"]

    # Delivered over SMTP, each mail is in its recipient's language and says which.
    past_the_hold(env)
    assert jobs.deliver_mail(env, SmtpBackend(env.config), 10_000)
    by_recipient = {"eleni@example.test": ("el", GREEK), "ostap@example.test": ("uk", CYRILLIC)}
    # The outbox may hold other tests' mail (one database per run on PostgreSQL).
    ours = {m.message_id for m in mails(env, public_id)}
    received = [m for m in smtp_server.received if m["Message-ID"] in ours]
    assert len(received) == len(ours)
    for message in received:
        language, script = by_recipient[re.search(r"<(.+)>", message["To"]).group(1)]
        assert message["Content-Language"] == language
        assert script.search(message["Subject"]), message["Subject"]
        text = message.get_body(("plain",)).get_content()
        assert script.search(text) and "Your move" not in text
        html = message.get_body(("html",)).get_content()
        assert f'lang="{language}"' in html


def test_a_refused_reply_is_answered_in_the_player_language(smtp_env, receiver):
    env = smtp_env
    public_id = new_game(env)
    position = state(env, public_id)
    absent = next(g for g in Card if g is not Card.CAMEL and not position.round.market[g])
    address = reply_to_of(env, public_id, 0)
    send(receiver, reply(address, "πούλα 3 κρασιά", SEATS[0].email))
    send(receiver, reply(address, written(f"take {absent.word}", "el"), SEATS[0].email))
    assert game_records.operator_record(env, public_id)["moves"] == []
    unknown, forbidden = [m for m in mails(env, public_id) if m.kind == "refusal"]
    assert unknown.headers["Content-Language"] == "el"
    assert GREEK.search(unknown.subject)
    assert "«κρασιά» δεν είναι κάρτα" in unknown.text_body
    # The moves it suggests instead are legal now, written in Greek notation.
    examples = unknown.text_body.split("για παράδειγμα:\n")[1].split("\n\n")[0].splitlines()
    legal = {written(str(m), "el") for m in position.legal_moves()}
    assert examples and {line.strip() for line in examples} <= legal
    assert f"η αγορά έχει 0 {card_name(absent, 'el')}" in forbidden.text_body
