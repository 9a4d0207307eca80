"""The page that tells players what is kept about them (``/privacy``, linked from every
page's footer). Each sentence is a promise, and each is kept by a test:

- the evidence and its reduction after the period, and what the other seat and the public
  see: ``tests/mail/test_retention.py`` (clients reduced; the other seat and the public);
- the copy of each mail and what stays of it: ``tests/mail/test_retention.py`` (sent mails);
- the sign-in link's IP, the account's own uses, what remains kept for good:
  ``test_sign_in_links_and_account_uses_are_kept_as_the_page_says`` below;
- erasure, the mails dropped and written again, the sign-in links:
  ``tests/mail/test_erasure.py``; the moves stay and verify: the same test.
"""

from __future__ import annotations

import html

from pbem.config import Retention
from tests.helpers import csrf_of

SENTENCES = (
    "Each use of your link records the time, your IP address and your browser's user agent: "
    "the evidence an audit of a disputed move reads.",
    "After {client} days, only the network of the address (such as 203.0.x.x) and the "
    "browser's family (such as Firefox) are kept.",
    "Your opponent and every visitor only ever see that much of your uses of your link; you "
    "see your own in full until then.",
    "A copy of each mail sent is kept for {mail} days; after that, only when it went, to whom, "
    "what kind of mail it was and the chain hash it carried.",
    "Erasing your account (on the page of your games) replaces your name and address with a "
    "neutral label everywhere: in every game, in the mails kept and in the sign-in links. "
    "Mails not sent yet to you are dropped, and those to your opponent that name you are "
    "written again.",
    "The moves, and the notes sent with them, stay as they were: they are the game's record.",
    "A sign-in link keeps the IP address of whoever asked for it for {client} days; after "
    "that, no address at all.",
    "Each use of your account (asking for a sign-in link, signing in or out, changing your "
    "settings) is recorded in the same way, and reduced after the same period.",
    "What remains of each use after that reduction is kept for good, as the moves are.",
)


def test_the_page_says_each_period_as_configured(client, env):
    for mail, kept in ((90, 90), (30, 400)):
        env.config = env.config.with_(retention=Retention(mail_days=mail, client_days=kept))
        page = client.get("/privacy")
        assert page.status_code == 200
        text = html.unescape(page.text)
        for sentence in SENTENCES:
            assert sentence.format(client=kept, mail=mail) in text


def test_every_page_links_to_it(client):
    home = client.get("/").text
    assert 'href="/privacy"' in home and "What is kept about you" in home


def test_the_audit_pages_say_and_show_what_the_other_seat_and_the_public_see(client, env):
    from pbem.services.play import game_pages, moves
    from tests.mail.play import new_game, to_move, token
    from tests.mail.test_retention import CLIENTS, FIREFOX, SAFARI

    public_id = new_game(env)
    for n in range(1, 4):
        seat = to_move(env, public_id)
        t = token(env, public_id, seat)
        moves.submit_move(env, t, n, game_pages.legal_moves(env, t)[0], CLIENTS[seat])
    loser = to_move(env, public_id)
    moves.submit_move(env, token(env, public_id, loser), 4, "resign", CLIENTS[loser])
    public = html.unescape(client.get(f"/g/{public_id}/audit/2").text)
    assert (
        "This public page shows only the network of each address and the browser's family."
        in public
    )
    assert "203.0.x.x" in public and "2001:db8:1:…" in public
    assert "203.0.113.7" not in public and "2001:db8:1:2::7" not in public
    assert FIREFOX[:60] not in public and SAFARI[:60] not in public
    seat = html.unescape(client.get(f"/s/{token(env, public_id, 1)}/audit/2").text)
    assert (
        "Your opponent's uses show only the network of the address and the browser's family."
        in seat
    )
    assert "2001:db8:1:2::7" in seat and SAFARI[:60] in seat  # its own, whole
    assert "203.0.113.7" not in seat and FIREFOX[:60] not in seat and "203.0.x.x" in seat


def test_sign_in_links_and_account_uses_are_kept_as_the_page_says(client, env):
    from sqlalchemy import select

    from pbem.services.accounts import account_settings
    from pbem.services.core.access import Client
    from pbem.services.scheduled import retention
    from pbem.store.models import AccessLog, Player, SignInLink
    from tests.web.test_players import sign_in

    email = "kept-account@example.test"
    sign_in(client, env, email)
    with env.db.read() as session:
        player = session.scalars(select(Player).where(Player.email == email)).one()
    browser = Client("198.51.100.23", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Firefox/128.0")
    account_settings.update_settings(env, player.id, client=browser, mail_mode="digest")

    with env.db.read() as session:  # asked before the account existed: it names the address
        asked = session.scalars(select(AccessLog.id).where(AccessLog.detail == email)).all()

    def kept() -> tuple[list, list]:
        with env.db.read() as session:
            links = session.scalars(select(SignInLink).where(SignInLink.email == email)).all()
            mine = (AccessLog.player_id == player.id) | AccessLog.id.in_(asked)
            uses = session.scalars(select(AccessLog).where(mine).order_by(AccessLog.id)).all()
            return list(links), list(uses)

    links, uses = kept()
    assert links and all(link.ip for link in links)  # whoever asked for it
    assert {"sign-in-request", "sign-in", "settings"} <= {u.action for u in uses}
    assert all(u.ip and u.user_agent for u in uses)  # recorded the same way
    client.post("/signout", data={"csrf_token": csrf_of(client.get("/me").text)})
    assert "sign-out" in {u.action for u in kept()[1]}

    env.clock.advance(days=env.config.retention.client_days - 1)
    retention.run(env)
    links, uses = kept()
    assert all(link.ip for link in links) and all(u.reduced_at is None for u in uses)
    env.clock.advance(days=2)
    retention.run(env)
    links, uses = kept()
    assert all(link.ip is None for link in links)  # no address at all
    assert uses and all(u.reduced_at is not None for u in uses)
    settings_use = next(u for u in uses if u.action == "settings")
    assert (settings_use.ip, settings_use.user_agent) == ("198.51.x.x", "Firefox")
    env.clock.advance(days=3650)  # kept for good
    retention.run(env)
    assert [u.id for u in kept()[1]] == [u.id for u in uses]
