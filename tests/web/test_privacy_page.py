"""The page that tells players what is kept about them (``/privacy``, linked from every
page's footer). Each sentence is a promise, and each is kept by a test:

- the evidence and its reduction after the period, and what the other seat and the public
  see: ``tests/mail/test_retention.py`` (clients reduced; the other seat and the public);
- the copy of each mail and what stays of it: ``tests/mail/test_retention.py`` (sent mails);
- erasure, the mails dropped and written again, the sign-in links:
  ``tests/mail/test_erasure.py``; the moves stay and verify: the same test.
"""

from __future__ import annotations

import html

from pbem.config import Retention

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
    from pbem.services.play import games, moves
    from tests.mail.play import new_game, to_move, token
    from tests.mail.test_retention import CLIENTS, FIREFOX, SAFARI

    public_id = new_game(env)
    for n in range(1, 4):
        seat = to_move(env, public_id)
        t = token(env, public_id, seat)
        moves.submit_move(env, t, n, games.legal_moves(env, t)[0], CLIENTS[seat])
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
