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
