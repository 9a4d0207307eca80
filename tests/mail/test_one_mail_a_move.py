"""One mail a move: "your turn" tells the other player's move, the position and the chain
hash; a receipt of one's own move is a setting, on by default only for a move mailed in."""

from __future__ import annotations

import random
from collections import Counter
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from pbem.services.core import access
from pbem.services.core.errors import InvalidInput
from pbem.services.mailing.told import untold
from pbem.services.play import game_pages, moves, replies, seat_settings
from pbem.services.records import game_records
from tests.helpers import mails
from tests.mail.play import new_game, to_move, token
from tests.mail.test_written_when_sent import play_out


@pytest.fixture
def reply_env(env):
    env.config = env.config.with_(reply_address="play@pbem.test")
    return env


def kinds(env, public_id: str, seat: int | None = None) -> Counter:
    return Counter(m.kind for m in mails(env, public_id, seat=seat))


def web_move(env, public_id: str) -> int:
    """The seat to move plays its first legal move on the web; the seat that moved."""
    seat = to_move(env, public_id)
    t = token(env, public_id, seat)
    n = len(game_records.operator_record(env, public_id)["moves"]) + 1
    moves.submit_move(env, t, n, game_pages.legal_moves(env, t)[0], access.Client())
    return seat


def reply_move(env, public_id: str) -> int:
    """The seat to move replies to its newest mail with its first legal move."""
    seat = to_move(env, public_id)
    sent = [m for m in mails(env, public_id, seat=seat) if "Reply-To" in m.headers][-1]
    msg = EmailMessage()
    msg["From"] = ("ada@example.test", "bo@example.test")[seat]
    msg["To"] = sent.headers["Reply-To"]
    msg["Subject"] = f"Re: {sent.subject}"
    msg["Message-ID"] = make_msgid(domain="example.test")
    msg.set_content(game_pages.legal_moves(env, token(env, public_id, seat))[0])
    outcome = replies.handle_mail(env, msg.as_bytes(), [sent.headers["Reply-To"]])
    assert outcome.outcome == "accepted", outcome
    return seat


@pytest.mark.slow  # a whole match
def test_a_whole_match_on_default_settings_sends_one_mail_a_move(env):
    public_id = new_game(env)
    play_out(env, public_id, random.Random(11))
    record = game_records.operator_record(env, public_id)
    count = len(record["moves"])
    assert count > 20
    counted = kinds(env, public_id)
    # the invitations, one "your turn" a move but the last, and the end to both players
    assert counted == {"invitation": 2, "your_turn": count - 1, "game_over": 2}
    assert sum(counted.values()) <= count + 2 + 2
    hashes = {e["n"]: e["hash"] for e in record["moves"]}
    for mail in mails(env, public_id, kind="your_turn"):
        # the latest chain hash, which commits to every move before it
        assert hashes[mail.about_n] in mail.text_body and hashes[mail.about_n] in mail.html_body
        assert "every move before it" in mail.text_body
    for over in mails(env, public_id, kind="game_over"):
        assert hashes[count] in over.text_body and hashes[count] in over.html_body


def test_a_reply_move_gets_a_receipt_by_default_and_a_web_move_does_not(reply_env):
    env = reply_env
    public_id = new_game(env)
    mover = reply_move(env, public_id)
    receipt = mails(env, public_id, seat=mover, kind="receipt")
    assert len(receipt) == 1 and receipt[0].about_n == 1
    assert "Your move 1 is recorded" in receipt[0].text_body
    assert receipt[0].headers["In-Reply-To"] == receipt[0].headers["References"]
    other = web_move(env, public_id)
    assert other != mover and mails(env, public_id, seat=other, kind="receipt") == []
    assert [m.about_n for m in mails(env, public_id, kind="receipt")] == [1]
    assert [m.about_n for m in mails(env, public_id, kind="your_turn")] == [1, 2]


def test_receipts_can_be_turned_on_and_off(reply_env):
    env = reply_env
    public_id = new_game(env)
    ada = token(env, public_id, 0)
    seat_settings.set_receipts(env, ada, "all", access.Client())
    assert web_move(env, public_id) == 0  # on: a web move too
    web_move(env, public_id)
    assert [m.about_n for m in mails(env, public_id, seat=0, kind="receipt")] == [1]
    seat_settings.set_receipts(env, ada, "none", access.Client())
    assert reply_move(env, public_id) == 0  # off: not even a mailed move
    web_move(env, public_id)
    assert [m.about_n for m in mails(env, public_id, seat=0, kind="receipt")] == [1]
    seat_settings.set_receipts(env, ada, "replies", access.Client())  # the default again
    web_move(env, public_id)
    web_move(env, public_id)
    assert reply_move(env, public_id) == 0
    assert [m.about_n for m in mails(env, public_id, seat=0, kind="receipt")] == [1, 7]
    assert mails(env, public_id, seat=1, kind="receipt") == []  # Bo's setting is his own
    with pytest.raises(InvalidInput):
        seat_settings.set_receipts(env, ada, "sometimes", access.Client())


def test_receipts_for_all_games_of_an_address(env):
    first, second = new_game(env), new_game(env)
    ada = token(env, first, 0)
    assert seat_settings.set_receipts(env, ada, "all", access.Client(), all_games=True) >= 2
    web_move(env, second)
    assert len(mails(env, second, seat=0, kind="receipt")) == 1
    web_move(env, first)
    assert len(mails(env, first, seat=0, kind="receipt")) == 1


def test_a_round_end_no_mail_told_comes_in_the_next_your_turn():
    """``untold``: the other seat's round-ending moves, and the round one's own move ended."""
    from pbem.services.core.replayed import Entry

    def entry(n, seat, ended=None, move="take gold"):
        return Entry(n, n, seat, "x", move, None, None, "web", "h", None, ended)

    assert untold((entry(1, 0), entry(2, 1)), 2, 0) == ((), None)  # the usual: nothing
    ended = object()
    # Bo (1) ended a round with move 2 and started the next with move 3: Ada hears of both
    log_ = (entry(1, 0), entry(2, 1, ended), entry(3, 1))
    assert untold(log_, 3, 0) == ((log_[1],), None)
    # Ada (0) ended a round with move 2 and Bo started the next: Ada hears of her round
    log_ = (entry(1, 1), entry(2, 0, ended), entry(3, 1))
    assert untold(log_, 3, 0) == ((), ended)
    # a timeout was mailed to both: nothing before it is untold
    log_ = (entry(1, 1, ended), entry(2, 1, move="timeout"), entry(3, 1))
    assert untold(log_, 3, 0) == ((), None)


def test_a_digest_seat_that_mails_a_move_in_gets_its_receipt(reply_env):
    """No per-turn mail on the digest, but a move mailed in is answered, as a refusal is."""
    env = reply_env
    public_id = new_game(env)
    seat_settings.set_mail_mode(env, token(env, public_id, 0), "digest", access.Client())
    assert reply_move(env, public_id) == 0  # Ada replies to her invitation
    assert [m.about_n for m in mails(env, public_id, seat=0, kind="receipt")] == [1]
    web_move(env, public_id)
    assert mails(env, public_id, seat=0, kind="your_turn") == []  # still the digest's


def test_a_player_away_from_the_page_gets_every_your_turn_after_the_hold(env, smtp_server):
    """The hold (``PBEM_TURN_MAIL_HOLD``) drops a mail only when the seat's page showed its
    move: players who never open their pages get one mail a move, each a few minutes late."""
    from pbem.mail.delivery import SmtpBackend
    from pbem.services.scheduled import jobs

    env.config = env.config.with_(mail_backend="smtp", smtp_port=smtp_server.port)
    env.config = env.config.with_(smtp_host="127.0.0.1")
    public_id = new_game(env)
    for _ in range(6):
        web_move(env, public_id)
        env.clock.advance(seconds=20)
    env.clock.advance(seconds=env.config.turn_mail_hold)
    assert jobs.deliver_mail(env, SmtpBackend(env.config), limit=10_000) >= 2 + 6
    told = mails(env, public_id, kind="your_turn")
    assert [(m.about_n, m.status) for m in told] == [(n, "sent") for n in range(1, 7)]
    received = {m["Message-ID"]: m["Subject"] for m in smtp_server.received}
    assert [received[m.message_id] for m in told] == [m.subject for m in told]
