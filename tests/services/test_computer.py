"""Playing the computer: its moves go through the move use case (source ``bot``) from the
scheduler's job, are reproducible from the seed, and its games are neither rated nor
timed out; the computer's seat opens to no link and is mailed nothing."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from sqlalchemy import select

from pbem import ai
from pbem.engine import Match, parse_move, rng
from pbem.services.core import access
from pbem.services.core.errors import InvalidInput, NotAllowed, ServiceError
from pbem.services.play import computer, game_pages, moves, new_games, ratings
from pbem.services.scheduled import jobs
from pbem.store.models import Game, MoveRow, OutboxMessage, Player

ENTROPY = bytes(range(32))


def person(email: str = "ada@example.test") -> new_games.PlayerIn:
    return new_games.PlayerIn("Ada", email)


def game_of(env, public_id: str) -> Game:
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        session.expunge_all()
        return game


def rows_of(env, public_id: str) -> list[MoveRow]:
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        return list(session.scalars(select(MoveRow).where(MoveRow.game_id == game.id)))


def play_out(env, token: str, seed: int = 1, *, stop_after: int | None = None) -> int:
    """The person plays random legal moves; the computer's job runs between them."""
    rnd, made = random.Random(seed), 0
    while True:
        computer.computer_moves(env, budget=600)
        page = game_pages.seat_page(env, token, access.Client())
        assert not page.thinking  # one run of the job answered
        if page.view.table.to_move is None or (stop_after is not None and made >= stop_after):
            return made
        legal = game_pages.legal_moves(env, token)
        moves.submit_move(env, token, page.next_n, rnd.choice(legal), access.Client())
        made += 1


def test_signed_in_start_deals_at_once_with_the_public_contribution(env):
    created = computer.start(env, person(), "easy", contribution=ENTROPY)
    game = game_of(env, created.public_id)
    assert game.dealt and game.seats[1].bot == "easy" and game.seats[0].bot is None
    assert game.seats[1].name == "Computer (easy)"
    assert game.seats[1].email == computer.ADDRESS
    fixed = new_games.COMPUTER_CONTRIBUTION
    assert fixed == hashlib.sha256(b"pbem/computer/contribution").digest()
    assert game.seats[1].contribution == fixed.hex()
    assert bytes.fromhex(game.seed) == rng.mix_seed(bytes.fromhex(game.server_seed), ENTROPY, fixed)
    assert game.commitment == rng.commitment(bytes.fromhex(game.server_seed))
    assert game.days_per_move is None and game.timeout_action == "wait"
    with env.db.read() as session:  # the computer is no player
        assert (
            session.scalars(select(Player).where(Player.email == computer.ADDRESS)).first() is None
        )


def test_the_home_page_start_waits_for_the_person_to_accept_from_their_mail(env):
    created = computer.start(
        env, person("home@example.test"), "normal", client=access.Client("10.9.0.1")
    )
    assert not game_of(env, created.public_id).dealt
    with env.db.read() as session:
        kinds = [
            (m.kind, m.to_addr)
            for m in session.scalars(
                select(OutboxMessage).where(
                    OutboxMessage.game_id == game_of(env, created.public_id).id
                )
            )
        ]
    assert kinds == [("invitation", "home@example.test")]
    assert new_games.accept(env, created.tokens[0], ENTROPY, access.Client()) is True
    assert game_of(env, created.public_id).dealt


def test_a_level_must_be_one_of_the_three(env):
    with pytest.raises(InvalidInput):
        computer.start(env, person(), "grandmaster", contribution=ENTROPY)


@pytest.mark.slow  # a whole match searched or judged: seconds on its own
def test_a_whole_match_the_computer_moving_through_the_use_case(env):
    created = computer.start(env, person("whole@example.test"), "easy", contribution=ENTROPY)
    play_out(env, created.tokens[0])
    game = game_of(env, created.public_id)
    assert game.status == "finished"
    rows = rows_of(env, created.public_id)
    assert {r.source for r in rows if r.seat == 1} == {"bot"}
    assert {r.source for r in rows if r.seat == 0} == {"web"}
    # not rated: counted once as done, no player's rating moved
    assert game.rated_at is not None
    with env.db.read() as session:
        ada = session.scalars(select(Player).where(Player.email == "whole@example.test")).one()
        assert ada.rated_games == 0 and ada.rating_mu is None
        to_computer = session.scalars(
            select(OutboxMessage).where(OutboxMessage.to_addr == computer.ADDRESS)
        ).all()
        assert to_computer == []
    ratings.rebuild(env)  # the rebuild leaves it out too
    with env.db.read() as session:
        ada = session.scalars(select(Player).where(Player.email == "whole@example.test")).one()
        assert ada.rated_games == 0
    # the record names the computer as a player, and verifies
    from pbem.services.records import game_records

    record = game_records.export_record(env, created.public_id)
    assert [p["name"] for p in record["players"]] == ["Ada", "Computer (easy)"]
    from pbem.engine import load_record, verify

    assert verify(load_record(record)).ok
    assert game_records.verify_game(env, created.public_id).ok


@pytest.mark.slow  # a whole match searched or judged: seconds on its own
def test_each_computer_move_is_reproducible_from_the_seed_and_its_view(env):
    created = computer.start(env, person("again@example.test"), "normal", contribution=ENTROPY)
    play_out(env, created.tokens[0], seed=4, stop_after=12)
    game = game_of(env, created.public_id)
    seed = bytes.fromhex(game.seed)
    match = Match.new(seed, game.first_player)
    round_moves: list = []
    checked = 0
    for row in sorted(rows_of(env, created.public_id), key=lambda r: r.n):
        move = parse_move(row.move)
        if row.seat == 1:
            again = ai.play(match, 1, round_moves, "normal", ai.move_seed(seed, row.n))
            assert str(again) == row.move
            checked += 1
        number = match.round_number
        match = match.apply(move, row.seat)
        round_moves = [] if match.round_number != number else [*round_moves, move]
    assert checked >= 10


def test_the_log_and_the_record_name_the_program_of_each_computer_move(env, tmp_path):
    """docs/computer.md, "Fairness": each computer move names ``pbem.ai.VERSION``; the
    finished game's record says so in ``computer``, and ``pbem reproduce`` plays them again."""
    from click.testing import CliRunner

    from pbem.cli import main
    from pbem.services.records import game_records

    created = computer.start(env, person("programs@example.test"), "easy", contribution=ENTROPY)
    play_out(env, created.tokens[0], seed=6, stop_after=8)
    page = game_pages.seat_page(env, created.tokens[0], access.Client())
    moves.submit_move(env, created.tokens[0], page.next_n, "resign", access.Client())
    rows = rows_of(env, created.public_id)
    assert {r.program for r in rows if r.seat == 1} == {ai.VERSION}
    assert {r.program for r in rows if r.seat == 0} == {None}  # a person's moves name none
    record = game_records.export_record(env, created.public_id)
    computer_moves = sorted(r.n for r in rows if r.seat == 1)
    assert record["computer"] == {
        "seat": 1,
        "level": "easy",
        "programs": [{"program": ai.VERSION, "moves": computer_moves}],
    }
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(main, ["reproduce", str(path)])
    assert result.exit_code == 0, result.output
    assert f"all {len(computer_moves)} of its moves played again" in result.output


def test_a_game_between_people_has_no_computer_field(env):
    from pbem.services.records import game_records
    from tests.mail.play import new_game
    from tests.support import play_random

    public_id = new_game(env)
    play_random(env, public_id)
    assert "computer" not in game_records.export_record(env, public_id)


def test_no_link_opens_the_computers_seat_and_no_person_moves_for_it(env):
    created = computer.start(env, person("links@example.test"), "easy", contribution=ENTROPY)
    bot_token = created.tokens[1]
    with pytest.raises(NotAllowed):
        game_pages.seat_page(env, bot_token, access.Client())
    with pytest.raises(NotAllowed):
        moves.submit_move(env, bot_token, 1, "take camels", access.Client(), source="api")
    game = game_of(env, created.public_id)

    def seat_opener(which: int):
        def opener(session):
            g = session.get(Game, game.id, with_for_update=True)
            return g, g.seats[which]

        return opener

    first = game_pages.seat_page(env, created.tokens[0], access.Client())
    n = first.next_n
    to_move = first.view.table.to_move
    legal = parse_move(game_pages.legal_moves(env, created.tokens[0])[0]) if to_move == 0 else None
    for which, source in ((1, "web"), (1, "email"), (1, "api"), (0, "bot")):
        with pytest.raises(ServiceError):
            moves._append(
                env,
                seat_opener(which),
                n,
                access.Client(),
                source,
                lambda _s, m: legal or m.legal_moves()[0],
                None,
            )
    assert rows_of(env, created.public_id) == []


def test_the_game_waits_for_the_person_with_gentle_reminders_and_no_timeout(env, clock):
    created = computer.start(env, person("slow@example.test"), "easy", contribution=ENTROPY)
    computer.computer_moves(env, budget=600)  # the computer's first move, if it starts
    game = game_of(env, created.public_id)

    def reminders() -> int:
        with env.db.read() as session:
            return len(
                session.scalars(
                    select(OutboxMessage).where(
                        OutboxMessage.game_id == game.id, OutboxMessage.kind == "reminder"
                    )
                ).all()
            )

    clock.advance(days=6)
    jobs.run_clock(env)
    assert reminders() == 0
    clock.advance(days=1, minutes=1)
    jobs.run_clock(env)
    assert reminders() == 1
    clock.advance(days=13)
    jobs.run_clock(env)
    assert reminders() == 1
    clock.advance(days=1, minutes=1)
    jobs.run_clock(env)
    assert reminders() == 2
    clock.advance(days=300)
    jobs.run_clock(env)
    assert all(r.move != "timeout" for r in rows_of(env, created.public_id))


def test_a_run_plays_at_most_its_limit_and_the_sweep_finds_older_games(env, clock):
    made = [
        computer.start(env, person(f"many{i}@example.test"), "easy", contribution=ENTROPY)
        for i in range(4)
    ]
    computer.computer_moves(env, budget=600)  # whoever the computer starts, it has moved
    for created in made:  # each person moves once
        page = game_pages.seat_page(env, created.tokens[0], access.Client())
        moves.submit_move(
            env,
            created.tokens[0],
            page.next_n,
            game_pages.legal_moves(env, created.tokens[0])[0],
            access.Client(),
        )
    clock.advance(hours=1)  # older than the quick job's window: only the sweep sees them
    assert computer.computer_moves(env).moves == 0
    assert computer.computer_moves(env, recent=None, limit=3).moves == 3
    assert computer.computer_moves(env, recent=None).moves == 1
    for created in made:
        assert not game_pages.seat_page(env, created.tokens[0], access.Client()).thinking


def test_play_the_computer_again_makes_one_new_game_at_the_same_level(env):
    created = computer.start(env, person("rematch@example.test"), "strong", contribution=ENTROPY)
    with pytest.raises(InvalidInput):
        computer.again(env, created.tokens[0], ENTROPY, access.Client())
    computer.computer_moves(env, budget=600)
    moves.resign(
        env,
        created.tokens[0],
        game_pages.seat_page(env, created.tokens[0], access.Client()).next_n,
        access.Client(),
    )
    token = computer.again(env, created.tokens[0], None, access.Client())
    assert computer.again(env, created.tokens[0], None, access.Client()) == token
    page = game_pages.seat_page(env, token, access.Client())
    assert page.game.computer == (1, "strong")
    assert page.game.public_id != created.public_id


def test_one_game_the_computer_cannot_move_in_keeps_no_other_waiting(env, monkeypatch):
    waiting = []
    for _ in range(2):
        token = computer.start(env, person(), "easy", contribution=ENTROPY).tokens[0]
        page = game_pages.seat_page(env, token, access.Client())
        if page.view.table.to_move == 0:  # the person begins: one move, then it is the computer's
            legal = game_pages.legal_moves(env, token)
            moves.submit_move(env, token, page.next_n, legal[0], access.Client())
        waiting.append(token)
    broken = game_pages.seat_page(env, waiting[0], access.Client()).game.public_id
    real = computer.ai.play

    def play(match, *args):
        if match.seed == bytes.fromhex(game_of(env, broken).seed):
            raise RuntimeError("a bug in the search")
        return real(match, *args)

    monkeypatch.setattr(computer.ai, "play", play)
    report = computer.computer_moves(env, recent=None, limit=100, budget=600)
    assert report.failed == 1 and report
    assert (
        game_pages.seat_page(env, waiting[0], access.Client()).view.table.to_move == 1
    )  # still owed
    assert (
        game_pages.seat_page(env, waiting[1], access.Client()).view.table.to_move == 0
    )  # answered
