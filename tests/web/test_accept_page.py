"""The accept page, before the deal: each side is told who invited whom."""

from __future__ import annotations

from sqlalchemy import select

from pbem.services.play import new_games
from pbem.store.models import Game
from tests.helpers import csrf_of, link_in, mails


def _create(client, my=("Ada", "ada@example.test"), their=("Bo", "bo@example.test")) -> str:
    home = client.get("/")
    response = client.post(
        "/",
        data={
            "csrf_token": csrf_of(home.text),
            "my_name": my[0],
            "my_email": my[1],
            "their_name": their[0],
            "their_email": their[1],
        },
    )
    assert response.status_code == 303
    return response.headers["Location"].split("/")[2]


def test_the_creator_is_told_they_invited_and_the_opponent_that_they_are_invited(client, env):
    public_id = _create(client)
    creator = client.get(link_in(mails(env, public_id, seat=0)[-1])).text
    invited = client.get(link_in(mails(env, public_id, seat=1)[-1])).text
    assert "You have invited Bo to a game of Jaipur by mail." in creator
    assert "invites you" not in creator
    assert "Ada invites you to a game of Jaipur by mail." in invited
    assert "You have invited" not in invited


def test_a_rematch_names_no_inviter(client, env):
    first = _create(client)
    with env.db.read() as session:
        old = session.scalars(select(Game).where(Game.public_id == first)).one().id
    made = new_games.create_game(
        env,
        # in English whatever an earlier test chose for these addresses' accounts
        (
            new_games.PlayerIn("Ada", "ada@example.test", "en"),
            new_games.PlayerIn("Bo", "bo@example.test", "en"),
        ),
        await_players=True,
        rematch_of=old,
    )
    for seat, them in ((0, "Bo"), (1, "Ada")):
        page = client.get(f"/s/{made.tokens[seat]}").text
        assert f"{them} and you have a rematch" in page
        assert "invites you" not in page and "You have invited" not in page


def test_the_accept_form_leaves_the_zone_to_the_browser_and_keeps_a_refused_choice(client, env):
    """As the create form: the zone field is empty and marked for static/timezone.js to fill
    with the browser's zone; a refused accept gives back the language and zone chosen."""
    import re

    public_id = _create(client)
    link = link_in(mails(env, public_id, seat=1)[-1])
    page = client.get(link).text
    zone = re.search(r'<input name="timezone"[^>]*>', page).group(0)
    assert 'value=""' in zone and "data-browser-timezone" in zone
    refused = client.post(
        f"{link}/accept",
        data={
            "csrf_token": csrf_of(page),
            "entropy": "",
            "phrase": "",
            "language": "uk",
            "timezone": "Asia/Tehran",
        },
    )
    assert refused.status_code == 400
    zone = re.search(r'<input name="timezone"[^>]*>', refused.text).group(0)
    assert 'value="Asia/Tehran"' in zone and "data-browser-timezone" not in zone
    assert re.search(r'<option value="uk"[^>]*selected', refused.text)
    assert not re.search(r'<option value="en"[^>]*selected', refused.text)
