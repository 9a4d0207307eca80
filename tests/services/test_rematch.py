"""A rematch is made once per game, also when both players ask for it at the same moment."""

from __future__ import annotations

import pytest

from pbem.services.core import access, errors
from pbem.services.play import challenges, game_clock, game_pages, new_games
from pbem.store import games as game_rows
from tests.mail.play import new_game
from tests.support import play_random


def test_a_rematch_asked_for_at_the_same_moment_is_the_one_the_other_player_made(env, monkeypatch):
    """The other player's rematch commits between this request's read and its insert:
    the unique ``rematch_of`` refuses the second (the recorder's ``RematchMade``), and
    the request answers with the rematch that stands."""
    public_id = new_game(env, first=0)
    play_random(env, public_id)
    t0, t1 = game_pages.seat_tokens(env, public_id)
    theirs = challenges.rematch(env, t1, None, access.Client())
    found = game_rows.rematch_of
    reads = []

    def not_yet(session, game_id):  # the first read is from before the other one's commit
        reads.append(game_id)
        return None if len(reads) == 1 else found(session, game_id)

    monkeypatch.setattr(game_rows, "rematch_of", not_yet)
    assert challenges.rematch(env, t0, None, access.Client()) == theirs
    assert len(reads) == 2  # the read before, and the one after the refusal


def test_the_recorder_refuses_a_second_rematch_of_a_game_and_writes_nothing(env):
    public_id = new_game(env, first=0)
    with env.db.read() as session:
        old = game_rows.by_public_id(session, public_id)
        assert old is not None
        old_id, newest = old.id, game_rows.newest(session, 1)[0].id
    players = (
        new_games.PlayerIn("Ada", "ada@example.test"),
        new_games.PlayerIn("Bo", "bo@example.test"),
    )
    made = new_games.create_game(env, players, await_players=True, rematch_of=old_id)
    with pytest.raises(game_rows.RematchMade):
        new_games.create_game(env, players, await_players=True, rematch_of=old_id)
    with env.db.read() as session:
        assert game_rows.rematch_of(session, old_id).public_id == made.public_id
        assert [g.public_id for g in game_rows.newest(session, 10) if g.id > newest] == [
            made.public_id
        ]


def test_a_game_stored_before_todays_rules_still_gets_its_rematch(env):
    """A name and a clock kept before the name rule and the clock's bounds of issue 31 (an
    address as a name, hourly reminders): the rematch, one click, is made within today's
    rules instead of being refused for something nobody typed."""
    from pbem.engine.names import clean_name
    from pbem.store.models import Game, Seat

    public_id = new_game(env, first=0)
    play_random(env, public_id)
    with env.db.write() as session:
        game = game_rows.by_public_id(session, public_id)
        session.get(Seat, game.seats[1].id).name = "x@evil.example, \uff1cy\uff1e"
        session.get(Game, game.id).reminder_every_hours = 1
    new_id = challenges.rematch(
        env, game_pages.seat_tokens(env, public_id)[0], None, access.Client()
    )
    with env.db.read() as session:
        new = game_rows.by_public_id(session, new_id)
        assert new.reminder_every_hours == game_clock.CLOCK_LIMITS["reminder_every_hours"].low
        kept = new.seats[1].name
    assert clean_name(kept) == kept and "@" not in kept


def test_a_stored_clock_is_brought_within_todays_bounds_one_setting_at_a_time():
    """``GameClock.of`` reads every bounded setting through ``CLOCK_LIMITS`` and a timeout
    action it does not know as the default one (a slotted dataclass's class attribute is a
    descriptor, not the default: an instance's is read)."""
    from types import SimpleNamespace

    stored = SimpleNamespace(
        days_per_move=None,
        reminder_after_hours=1,
        reminder_every_hours=10_000,
        timeout_action="forfeit",
        vacation_days=-3,
    )
    clock = game_clock.GameClock.of(stored)
    limits = game_clock.CLOCK_LIMITS
    assert clock == game_clock.GameClock(
        days_per_move=None,
        reminder_after_hours=limits["reminder_after_hours"].low,
        reminder_every_hours=limits["reminder_every_hours"].high,
        timeout_action="claim",
        vacation_days=limits["vacation_days"].low,
    )
    assert clock.check() is clock
    for name, limit in limits.items():
        for wrong in (limit.low - 1, limit.high + 1):
            with pytest.raises(errors.InvalidInput):
                game_clock.GameClock(**{name: wrong}).check()
    with pytest.raises(errors.InvalidInput):
        game_clock.GameClock(timeout_action="forfeit").check()
