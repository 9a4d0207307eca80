"""A rematch is made once per game, also when both players ask for it at the same moment."""

from __future__ import annotations

import pytest

from pbem.services import challenges, games, log
from pbem.store import games as game_rows
from tests.mail.play import new_game
from tests.web.test_replay import play_random


def test_a_rematch_asked_for_at_the_same_moment_is_the_one_the_other_player_made(env, monkeypatch):
    """The other player's rematch commits between this request's read and its insert:
    the unique ``rematch_of`` refuses the second (the recorder's ``RematchMade``), and
    the request answers with the rematch that stands."""
    public_id = new_game(env, first=0)
    play_random(env, public_id)
    t0, t1 = games.seat_tokens(env, public_id)
    theirs = challenges.rematch(env, t1, None, log.Client())
    found = game_rows.rematch_of
    reads = []

    def not_yet(session, game_id):  # the first read is from before the other one's commit
        reads.append(game_id)
        return None if len(reads) == 1 else found(session, game_id)

    monkeypatch.setattr(game_rows, "rematch_of", not_yet)
    assert challenges.rematch(env, t0, None, log.Client()) == theirs
    assert len(reads) == 2  # the read before, and the one after the refusal


def test_the_recorder_refuses_a_second_rematch_of_a_game_and_writes_nothing(env):
    public_id = new_game(env, first=0)
    with env.db.read() as session:
        old = game_rows.by_public_id(session, public_id)
        assert old is not None
        old_id, newest = old.id, game_rows.newest(session, 1)[0].id
    players = (games.PlayerIn("Ada", "ada@example.test"), games.PlayerIn("Bo", "bo@example.test"))
    made = games.create_game(env, players, await_players=True, rematch_of=old_id)
    with pytest.raises(game_rows.RematchMade):
        games.create_game(env, players, await_players=True, rematch_of=old_id)
    with env.db.read() as session:
        assert game_rows.rematch_of(session, old_id).public_id == made.public_id
        assert [g.public_id for g in game_rows.newest(session, 10) if g.id > newest] == [
            made.public_id
        ]
