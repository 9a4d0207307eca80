"""A "your turn" mail is held a few minutes (``PBEM_TURN_MAIL_HOLD``) and dropped if the
seat's page showed the move meanwhile: one who plays on the page, against the computer or
a person, is not mailed each move; one who is away still gets one mail a move."""

from __future__ import annotations

from pbem.mail.delivery import SmtpBackend
from pbem.services.core import access
from pbem.services.play import computer, game_pages, moves, new_games
from pbem.services.scheduled import jobs
from tests.helpers import csrf_of, mails, next_n_of
from tests.mail.play import new_game, to_move, token

HOLD = 180  # the default, seconds


def deliver(env) -> int:
    return jobs.deliver_mail(env, SmtpBackend(env.config), limit=10_000)


def web_move(env, public_id: str) -> int:
    """The seat to move plays its first legal move; returns the move's number."""
    t = token(env, public_id, to_move(env, public_id))
    n = len(game_pages.public_page(env, public_id).entries) + 1
    moves.submit_move(env, t, n, game_pages.legal_moves(env, t)[0], access.Client())
    return n


def statuses(env, public_id: str, seat: int) -> list[tuple[int, str]]:
    return [(m.about_n, m.status) for m in mails(env, public_id, seat=seat, kind="your_turn")]


def test_the_default_hold_is_three_minutes(env):
    assert env.config.turn_mail_hold == HOLD  # tests/test_config.py: PBEM_TURN_MAIL_HOLD


def test_your_turn_waits_the_hold_then_goes_to_a_seat_that_did_not_look(smtp_env, smtp_server):
    env = smtp_env
    public_id = new_game(env)
    deliver(env)  # the invitations
    before = len(smtp_server.received)
    n = web_move(env, public_id)
    seat = to_move(env, public_id)
    assert deliver(env) == 0  # held
    env.clock.advance(seconds=HOLD - 1)
    assert deliver(env) == 0
    env.clock.advance(seconds=1)
    assert deliver(env) == 1
    assert statuses(env, public_id, seat) == [(n, "sent")]
    assert len(smtp_server.received) == before + 1
    assert f"your turn (move {n + 1})" in smtp_server.received[-1]["Subject"]


def test_a_move_the_seats_page_showed_is_not_mailed(smtp_env, smtp_server, client):
    env = smtp_env
    public_id = new_game(env)
    deliver(env)
    before = len(smtp_server.received)
    n = web_move(env, public_id)
    seat = to_move(env, public_id)
    env.clock.advance(seconds=30)
    assert client.get(f"/s/{token(env, public_id, seat)}").status_code == 200  # the page
    env.clock.advance(seconds=HOLD)
    assert deliver(env) == 0
    [row] = mails(env, public_id, seat=seat, kind="your_turn")
    assert (row.about_n, row.status) == (n, "dropped")
    assert "showed the move" in row.last_error
    assert len(smtp_server.received) == before


def test_only_that_seats_page_showing_that_move_counts(smtp_env, smtp_server, client):
    env = smtp_env
    public_id = new_game(env)
    first = web_move(env, public_id)
    seat = to_move(env, public_id)
    # the other seat's page, and this seat's page before the move, show it nothing
    assert client.get(f"/s/{token(env, public_id, 1 - seat)}").status_code == 200
    env.clock.advance(seconds=10)
    second = web_move(env, public_id)  # this seat moves (by mail, say): its page showed n-1
    assert to_move(env, public_id) == 1 - seat
    env.clock.advance(seconds=10)
    assert client.get(f"/s/{token(env, public_id, seat)}").status_code == 200  # after its move
    env.clock.advance(seconds=HOLD)
    deliver(env)
    # the seat's page showed the log at ``second``: past ``first``, whose mail it drops;
    # it never counts for the other seat's mail
    assert statuses(env, public_id, seat) == [(first, "dropped")]
    assert statuses(env, public_id, 1 - seat) == [(second, "sent")]


def test_a_page_opened_before_the_move_does_not_count(smtp_env, smtp_server, client):
    env = smtp_env
    public_id = new_game(env)
    seat = 1 - to_move(env, public_id)
    assert client.get(f"/s/{token(env, public_id, seat)}").status_code == 200
    n = web_move(env, public_id)
    env.clock.advance(seconds=HOLD)
    deliver(env)
    assert statuses(env, public_id, seat) == [(n, "sent")]


def test_a_game_against_the_computer_played_on_its_page_sends_no_your_turn(
    smtp_env, smtp_server, client
):
    """The tester's flood (issue 32): a mail after every computer move while the player was
    on the page. The page asks for itself after each of the computer's moves (static/follow.js)."""
    env = smtp_env
    created = computer.start(
        env, new_games.PlayerIn("Ada", "ada-live@example.test"), "easy", contribution=bytes(32)
    )
    t = created.tokens[0]
    deliver(env)
    before = len(smtp_server.received)
    played = 0
    while played < 12:
        computer.computer_moves(env)  # the scheduler's run
        env.clock.advance(seconds=1)
        shown = client.get(f"/s/{t}")  # the page shows the computer's move
        assert shown.status_code == 200 and "Your turn" in shown.text
        legal = game_pages.legal_moves(env, t)
        form = {"csrf_token": csrf_of(shown.text), "n": next_n_of(shown.text), "move": legal[0]}
        assert client.post(f"/s/{t}/move", data=form).status_code == 303
        played += 1
        env.clock.advance(seconds=2)
        deliver(env)  # the scheduler delivers meanwhile: nothing is due yet
    env.clock.advance(seconds=HOLD)
    deliver(env)
    told = mails(env, created.public_id, seat=0, kind="your_turn")
    # one a move of the computer's that gave the turn back (not after a move of the
    # person's that ended a round the person then started again)
    assert len(told) >= played // 2
    assert {m.status for m in told} == {"dropped"}
    received = {m["Message-ID"] for m in smtp_server.received[before:]}
    assert not received & {m.message_id for m in told}


def _digests_to(env, address: str) -> list:
    from sqlalchemy import select

    from pbem.store.models import OutboxMessage

    with env.db.read() as session:
        query = select(OutboxMessage).where(
            OutboxMessage.kind == "digest", OutboxMessage.to_addr == address
        )
        return list(session.scalars(query))


def _to_digest_hour(env) -> None:
    env.clock.advance(days=1)
    while env.clock.now().hour != env.config.digest_hour:
        env.clock.advance(hours=1)


def test_a_computer_game_started_from_my_games_mails_nothing_its_page_showed(
    smtp_env, smtp_server, client
):
    """The tester's case (issue 32 follow-up, finding 5): one click in "my games" opened the
    game's page at once, yet "the cards are dealt: your turn (move 1)" came, and a digest
    13 s later counted the game the player was looking at."""
    from tests.web.test_computer_pages import ENTROPY, seat_path
    from tests.web.test_players import sign_in

    env, address = smtp_env, "dealt-on-the-page@example.test"
    sign_in(client, env, address)
    me = client.get("/me")
    answer = client.post(
        "/me/computer", data={"csrf_token": csrf_of(me.text), "level": "easy", "entropy": ENTROPY}
    )
    path = seat_path(answer.headers["Location"])
    t = path.removeprefix("/s/")
    public_id = env.links.open_seat(t).public_id
    assert client.get(path).status_code == 200  # the page opens at once
    deliver(env)
    (dealt,) = mails(env, public_id, seat=0, kind="dealt")
    assert dealt.status == "pending"  # held, as a "your turn" is
    env.clock.advance(seconds=HOLD)
    deliver(env)
    (dealt,) = mails(env, public_id, seat=0, kind="dealt")
    assert dealt.status == "dropped"
    assert dealt.message_id not in {m["Message-ID"] for m in smtp_server.received}
    computer.computer_moves(env)  # if the computer starts, its move: the person's turn
    assert client.get(path).status_code == 200  # seen after it became the person's turn
    _to_digest_hour(env)
    jobs.send_digests(env)
    assert _digests_to(env, address) == []
    # not looked at since it became their turn again: the next day's digest counts it
    page = game_pages.seat_page(env, t, access.Client())
    moves.submit_move(env, t, page.next_n, game_pages.legal_moves(env, t)[0], access.Client())
    computer.computer_moves(env)
    _to_digest_hour(env)
    jobs.send_digests(env)
    (digest,) = _digests_to(env, address)
    assert "1 game" in digest.subject
