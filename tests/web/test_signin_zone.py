"""A sign-in link's page gives its expiry in the reader's time zone: the one the browser
reported, else the player's saved zone, never UTC for want of a cookie."""

from __future__ import annotations

from pbem.services.core import identity
from tests.helpers import csrf_of
from tests.web.test_players import SIGN_IN, fresh_ip, sign_in_mail


def _link(client, env, email: str) -> str:
    page = client.get("/signin")
    client.post(
        "/signin", data={"csrf_token": csrf_of(page.text), "email": email}, environ_base=fresh_ip()
    )
    return SIGN_IN.search(sign_in_mail(env, email)[-1].text_body).group(1)


def _player_in(env, email: str, zone: str) -> None:
    with env.db.write() as session:
        player = identity.player_for(session, email, "Dariush", env.clock.now())
        player.timezone = zone


def test_the_expiry_is_in_the_players_zone(client, env):
    email = "dariush@example.test"
    _player_in(env, email, "Asia/Tehran")
    page = client.get(_link(client, env, email)).text  # a browser that reported no zone
    expiry = page.split("This link works once, until", 1)[1].split("</p>", 1)[0]
    assert "+03:30" in expiry and "UTC" not in expiry


def test_the_browsers_own_zone_comes_first(client, env):
    email = "traveller@example.test"
    _player_in(env, email, "Asia/Tehran")
    client.set_cookie("pbem_tz", "Asia/Tokyo")
    page = client.get(_link(client, env, email)).text
    expiry = page.split("This link works once, until", 1)[1].split("</p>", 1)[0]
    assert "+09:00" in expiry


def test_an_address_new_here_reads_the_browsers_zone_or_utc(client, env):
    page = client.get(_link(client, env, "never-seen-before@example.test")).text
    assert "UTC" in page.split("This link works once, until", 1)[1].split("</p>", 1)[0]
