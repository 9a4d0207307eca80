"""A shown rating is never negative: the conservative mu - 3 sigma of a new player who
lost once (-1.8) shows as 0, and the ratings page says why."""

from __future__ import annotations

import re

from sqlalchemy import select

from pbem.services.play import new_games, ratings
from pbem.store.models import Player
from tests.support import own_database, play_random
from tests.web.test_players import sign_in
from tests.web.test_replay import omniscient

# a database of its own: the ratings page shows the top 100, and on the run's shared
# database enough rated players of other tests can push this test's new loser off it
database_url, database = own_database("module")


def test_shown_is_the_ordinal_never_below_zero():
    assert ratings.shown(25.0, 25 / 3) == 0.0
    assert ratings.shown(22.9, 8.2) == 0.0  # ordinal -1.7
    assert ratings.shown(27.6, 8.07) == 3.4
    assert ratings.shown(None, None) == 0.0


def test_a_new_loser_shows_zero_everywhere(client, env):
    public_id = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada Newcomer", "ada-new@example.test"),
            new_games.PlayerIn("Bo Newcomer", "bo-new@example.test"),
        ),
    ).public_id
    play_random(env, public_id)
    record, replay = omniscient(env, public_id)
    loser = 1 - replay(record).winner
    email = ("ada-new@example.test", "bo-new@example.test")[loser]
    with env.db.read() as session:
        player = session.scalars(select(Player).where(Player.email == email)).one()
        assert player.rating_mu - 3 * player.rating_sigma < 0  # the ordinal itself
        pid = player.public_id

    table = client.get("/ratings").text
    assert "never below 0" in table
    cells = re.findall(r"<tr><td>\d+</td><td><a [^>]+>([^<]+)</a></td><td>([^<]+)</td>", table)
    assert all(not shown.startswith(("-", "−")) for _, shown in cells), cells
    assert (("Ada Newcomer", "Bo Newcomer")[loser], "0") in cells

    public = client.get(f"/p/{pid}").text
    assert "Rating 0 (" in public and "Rating -" not in public
    sign_in(client, env, email)
    assert "rating 0 (" in client.get("/me").text
