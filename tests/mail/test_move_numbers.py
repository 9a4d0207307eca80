"""One number per move through a whole timeout (issue 32, finding 4).

The record numbers every entry, a ``timeout`` too (docs/record-format.md §3.3, §4): that is a
contract and stays. What mails and pages call "move N" is the move of the card game, which a
timeout does not make: the reminders, the warning, the timeout, the late move itself (or the
claim made instead of it) and the game-over mail all name the move the late seat was waiting
to make by one number, and the numbers after it go on from there.
"""

from __future__ import annotations

import re

import pytest

from pbem.services.core import access
from pbem.services.core.errors import WrongState
from pbem.services.play import game_clock, game_pages, moves, replies, seat_settings
from pbem.services.scheduled import jobs
from tests.helpers import mails
from tests.mail.play import ask_receipts, new_game, play, token
from tests.mail.test_replies import reply
from tests.support import own_database

CLOCK = game_clock.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)

# A database of each test's own: the clock job, run every hour of days, then looks only at
# this test's games.
database_url, database = own_database("function")


def run_days(env, days: float) -> None:
    for _ in range(round(days * 24)):
        env.clock.advance(hours=1)
        jobs.run_clock(env)


def _timed_out_at_move_2(env) -> str:
    """Ada makes move 1; Bo lets move 2 time out, reminded and warned of it."""
    public_id = new_game(env, CLOCK, first=0)
    ask_receipts(env, public_id)
    play(env, public_id, 1)
    run_days(env, 4)
    assert [e.move for e in game_pages.public_page(env, public_id).entries][1] == "timeout"
    late = mails(env, public_id, seat=1)
    for kind in ("reminder", "deadline_warning", "timeout"):
        (subject,) = {m.subject for m in late if m.kind == kind}
        assert subject.endswith(("(2)", "(move 2)")), (kind, subject)
    (timeout,) = [m for m in late if m.kind == "timeout"]
    assert "Your time for move 2 has run out." in timeout.text_body
    return public_id


def test_the_late_move_is_the_move_its_reminders_named(env, client):
    public_id = _timed_out_at_move_2(env)
    play(env, public_id, 1)  # Bo moves after all: entry 3 of the record, move 2
    entries = game_pages.public_page(env, public_id).entries
    assert [e.n for e in entries] == [1, 2, 3] and entries[1].move == "timeout"
    late = entries[2]
    (receipt,) = mails(env, public_id, seat=1, kind="receipt")
    assert receipt.subject.endswith("move 2 recorded")
    assert "Your move 2 is recorded" in receipt.text_body
    turn = mails(env, public_id, seat=0, kind="your_turn")[-1]
    assert turn.subject.endswith("your turn (move 3)")
    assert "(move 2: " in turn.text_body and "(move 3: " not in turn.text_body
    assert "Move 2 is entry 3 of the game's record: each timeout is an entry of its own." in (
        turn.text_body
    )
    assert "Chain hash of move 2" in turn.text_body and late.hash in turn.text_body
    page = client.get(f"/s/{token(env, public_id, 0)}").text
    listed = re.findall(r'<li value="(\d+)"><span class="words">', page)
    assert listed == ["2", "2", "1"]  # newest first: the late move and its timeout, one number
    play(env, public_id, 1)  # Ada's next move is move 3
    turn = mails(env, public_id, seat=1, kind="your_turn")[-1]
    assert turn.subject.endswith("your turn (move 4)") and "(move 3: " in turn.text_body
    assert "Move 3 is entry 4 of the game's record" in turn.text_body
    # a mail written once the game has moved on (after an outage) says the same
    (receipt,) = mails(env, public_id, seat=1, kind="receipt")
    assert receipt.subject.endswith("move 2 recorded")
    assert "Move 2 is entry 3 of the game's record" in receipt.text_body


def test_the_claim_and_the_game_over_mail_name_the_move_that_timed_out(env):
    public_id = _timed_out_at_move_2(env)
    moves.claim_win(env, token(env, public_id, 0), 3, access.Client())
    for seat in (0, 1):
        (over,) = mails(env, public_id, seat=seat, kind="game_over")
        assert "(move 2: " in over.text_body and "(move 3: " not in over.text_body
        assert "Final chain hash (move 2)" in over.text_body
        assert "Move 2 is entry 3 of the game's record" in over.text_body


def test_a_digest_after_a_timeout_names_the_move_it_waits_for(env):
    public_id = _timed_out_at_move_2(env)
    seat_settings.set_mail_mode(env, token(env, public_id, 1), "digest", access.Client())
    env.clock.advance(days=1)
    jobs.send_digests(env)
    from sqlalchemy import select

    from pbem.store.models import OutboxMessage

    with env.db.read() as session:
        digest = session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.kind == "digest", OutboxMessage.to_addr == "bo@example.test"
            )
        ).all()[-1]
    assert "vs Ada: move 2" in digest.text_body


def test_without_a_timeout_moves_and_entries_are_one_number(env):
    public_id = new_game(env, CLOCK, first=0)
    play(env, public_id, 2)
    turn = mails(env, public_id, seat=0, kind="your_turn")[-1]
    assert turn.subject.endswith("your turn (move 3)") and "(move 2: " in turn.text_body
    assert "entry" not in turn.text_body


# A game that waits after a timeout: the late seat is reminded, warned, timed out and
# reminded again, all of one move (issue 32 follow-up, finding 1).
WAITS = game_clock.GameClock(
    days_per_move=3, reminder_after_hours=24, reminder_every_hours=48, timeout_action="wait"
)


def _late_in_a_waiting_game(env) -> str:
    """Ada owes move 1 of a waiting game and lets it time out; reminded after it too."""
    public_id = new_game(env, WAITS, first=0)
    run_days(env, 6)
    assert [e.move for e in game_pages.public_page(env, public_id).entries] == ["timeout"]
    return public_id


def _owed_mails(env, public_id: str) -> list:
    got = mails(env, public_id, seat=0)
    return [m for m in got if m.kind in ("reminder", "deadline_warning", "timeout")]


def test_every_mail_of_a_move_that_timed_out_names_it_by_one_number_and_one_address(env):
    public_id = _late_in_a_waiting_game(env)
    owed = _owed_mails(env, public_id)
    kinds = [m.kind for m in owed]
    assert {"reminder", "deadline_warning", "timeout"} <= set(kinds)
    assert kinds.index("timeout") < len(kinds) - 1  # a reminder after the timeout too
    for m in owed:
        assert re.findall(r"\d+", m.subject.rpartition("(")[2]) == ["1"], (m.kind, m.subject)
        numbers = re.findall(r"\b[Mm]ove \(?(\d+)", m.text_body)
        assert set(numbers) <= {"1"}, (m.kind, numbers)
    # one reply address for the one move owed, before the timeout and after it
    assert len({m.headers["Reply-To"] for m in owed}) == 1


@pytest.mark.parametrize("kind", ["reminder", "deadline_warning", "timeout", "late reminder"])
def test_a_reply_to_any_mail_of_the_owed_move_plays_it_after_the_timeout(env, kind):
    public_id = _late_in_a_waiting_game(env)
    owed = _owed_mails(env, public_id)
    if kind == "late reminder":
        mail = owed[-1]
        assert mail.kind == "reminder"
    else:
        mail = next(m for m in owed if m.kind == kind)
    address = mail.headers["Reply-To"]
    outcome = replies.handle_mail(env, reply(address, "camels").as_bytes(), [address])
    assert outcome.outcome == "accepted", outcome.detail
    entries = game_pages.public_page(env, public_id).entries
    assert [e.move for e in entries] == ["timeout", "camels"]
    assert [e.turn for e in entries] == [1, 1]
    # once the move is made the address is spent, and the refusal counts as the mails did
    again = replies.handle_mail(env, reply(address, "camels").as_bytes(), [address])
    assert again.outcome == "refused"
    assert "about move 1, but the game has moved on since: it is now at move 2" in again.detail


def test_a_page_or_an_api_call_made_before_the_timeout_still_plays_the_move(env, client):
    public_id = new_game(env, WAITS, first=0)
    t = token(env, public_id, 0)
    form_n = game_pages.seat_page(env, t, access.Client()).next_n
    assert form_n == 1
    run_days(env, 4)
    assert [e.move for e in game_pages.public_page(env, public_id).entries] == ["timeout"]
    preview = client.post(
        "/api/seat/preview",
        json={"n": form_n, "move": "camels"},
        headers={"Authorization": f"Bearer {t}"},
    )
    assert preview.status_code == 200, preview.json
    done = client.post(
        "/api/seat/moves",
        json={"n": form_n, "move": "camels"},
        headers={"Authorization": f"Bearer {t}"},
    )
    assert done.status_code == 201, done.json
    assert done.json["n"] == 2  # the record's entry number stays the contract
    # a move made is not across a timeout: the form of move 1 is spent now
    with pytest.raises(WrongState):
        moves.submit_move(env, token(env, public_id, 1), 1, "camels", access.Client())


def test_after_a_timeout_and_two_moves_a_your_turn_mail_and_the_api_agree(env, client):
    clock = game_clock.GameClock(days_per_move=7, reminder_after_hours=24, reminder_every_hours=48)
    public_id = new_game(env, clock, first=0)
    run_days(env, 8)  # Ada's move 1 times out
    play(env, public_id, 2)  # Ada's late move 1, then Bo's move 2
    turn = mails(env, public_id, seat=0, kind="your_turn")[-1]
    assert turn.subject.endswith("your turn (move 3)")
    assert "(move 2: " in turn.text_body
    claim = env.links.open_reply(turn.headers["Reply-To"].split("@")[0].split("+")[-1])
    t = token(env, public_id, 0)
    seat = client.get("/api/seat", headers={"Authorization": f"Bearer {t}"}).json
    assert claim is not None and claim.n == seat["next_n"]
    address = turn.headers["Reply-To"]
    legal = game_pages.legal_moves(env, t)[0]  # any deal: the market may hold no camel
    outcome = replies.handle_mail(env, reply(address, legal).as_bytes(), [address])
    assert outcome.outcome == "accepted", outcome.detail
    (answered,) = [e for e in game_pages.public_page(env, public_id).entries if e.turn == 3]
    assert answered.n == 4
