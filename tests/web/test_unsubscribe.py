"""The one-click unsubscribe of every automatic mail (RFC 8058): the link of a mail's
``List-Unsubscribe`` header, POSTed with no cookie and no form token, switches that
seat's mail to the daily digest (the digest's own link switches it off); a GET shows
what the button does and changes nothing; the token opens no game."""

from __future__ import annotations

import html
import re

import pytest
from sqlalchemy import select

from pbem.services.core import access
from pbem.services.play import seat_settings
from pbem.services.scheduled import jobs
from pbem.store.models import Game, OutboxMessage, Player
from tests.helpers import mails
from tests.mail.play import new_game, token

EMAILS = ("unsub-ada@example.test", "unsub-bo@example.test")


def _unsubscribe_path(message) -> str:
    header = message.headers["List-Unsubscribe"]
    assert header.startswith("<http://pbem.test/u/") and header.endswith(">")
    assert message.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    return header[len("<http://pbem.test") : -1]


def _mode(env, public_id: str, seat: int) -> str:
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        return game.seats[seat].mail_mode


def test_a_one_click_post_puts_that_seat_on_the_daily_digest(env, app):
    public_id = new_game(env, first=0, emails=EMAILS)
    path = _unsubscribe_path(mails(env, public_id, seat=1, kind="invitation")[0])
    fresh = app.test_client()  # a mail provider: no cookie, no form token
    page = fresh.get(path)
    assert page.status_code == 200 and b"Switch to the daily digest" in page.data
    assert b'method="post"' in page.data
    assert _mode(env, public_id, 1) == "each"  # a GET changes nothing (mail scanners)
    answer = fresh.post(
        path,
        data={"List-Unsubscribe": "One-Click"},
        content_type="application/x-www-form-urlencoded",
    )
    assert answer.status_code == 200
    assert b"now comes as one daily digest" in answer.data
    assert _mode(env, public_id, 1) == "digest" and _mode(env, public_id, 0) == "each"
    assert fresh.post(path).status_code == 200  # again: nothing more to do
    assert b"now comes as one daily digest" in fresh.get(path).data
    assert answer.headers["Cache-Control"] == "no-store"


def test_the_token_opens_no_game_and_a_forged_one_nothing(env, app, client):
    public_id = new_game(env, first=0, emails=EMAILS)
    path = _unsubscribe_path(mails(env, public_id, seat=0, kind="invitation")[0])
    unsub = path.rsplit("/", 1)[1]
    assert client.get(f"/s/{unsub}").status_code in (403, 404)
    seat_path = f"/u/{token(env, public_id, 0)}"  # a seat link is no unsubscribe link
    assert client.get(seat_path).status_code == 404
    assert client.post(seat_path).status_code == 404
    forged = unsub[:-2] + ("AA" if not unsub.endswith("AA") else "BB")
    assert client.post(f"/u/{forged}").status_code == 404
    assert _mode(env, public_id, 0) == "each"


def test_the_digest_s_link_stops_the_digest(env, app):
    emails = ("unsub-digest@example.test", "unsub-other@example.test")
    public_id = new_game(env, first=0, emails=emails)
    seat_settings.set_mail_mode(env, token(env, public_id, 0), "digest", access.Client())
    env.clock.advance(days=1)
    assert jobs.send_digests(env) >= 1
    with env.db.read() as session:
        digest = session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.kind == "digest", OutboxMessage.to_addr == emails[0]
            )
        ).one()
    path = _unsubscribe_path(digest)
    fresh = app.test_client()
    assert b"Stop the digest" in fresh.get(path).data
    assert b"No daily digest" in fresh.post(path).data
    assert _mode(env, public_id, 0) == "invitations"
    with env.db.read() as session:
        player = session.scalars(select(Player).where(Player.email == emails[0])).one()
        assert player.mail_mode == "invitations"
    env.clock.advance(days=1)
    jobs.send_digests(env)
    with env.db.read() as session:
        digests = session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.kind == "digest", OutboxMessage.to_addr == emails[0]
            )
        ).all()
    assert len(digests) == 1  # no second one


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("el", "Λιγότερη αλληλογραφία"),
        ("fa", "ایمیل کمتر"),
        ("uk", "Менше листів"),
        ("zh", "减少邮件"),
    ],
)
def test_the_page_is_translated(env, app, language, words):
    public_id = new_game(env, first=0, emails=EMAILS)
    path = _unsubscribe_path(mails(env, public_id, seat=0, kind="invitation")[0])
    page = app.test_client().get(f"{path}?lang={language}")
    assert words in page.data.decode()


def _uk_game(env, emails) -> str:
    from pbem.services.play import new_games

    return new_games.create_game(
        env,
        (
            new_games.PlayerIn("Оля", emails[0], "uk", "Europe/Kyiv"),
            new_games.PlayerIn("Bo", emails[1], "en", "UTC"),
        ),
        first_player=0,
    ).public_id


def test_the_page_speaks_the_seats_language_and_its_switcher_stays_on_the_link(env, app):
    """The mail was in Ukrainian: so is its page, whatever the browser asks for; after the
    POST the language links still lead to this link's page, not to a seat page (403)."""
    emails = ("unsub-olya@example.test", "unsub-bo2@example.test")
    public_id = _uk_game(env, emails)
    path = _unsubscribe_path(mails(env, public_id, seat=0, kind="invitation")[0])
    fresh = app.test_client()
    page = fresh.get(path, headers={"Accept-Language": "en"}).data.decode()
    assert 'lang="uk"' in page and "Менше листів" in page
    answer = fresh.post(path, headers={"Accept-Language": "en"}).data.decode()
    assert "Менше листів" in answer
    links = re.findall(r'hreflang="(\w+)" href="([^"]+)"', answer)
    assert len(links) == 4
    for code, href in links:
        href = html.unescape(href)
        assert href == f"{path}?lang={code}", href
        assert fresh.get(href).status_code == 200
    assert "Less mail" in fresh.get(f"{path}?lang=en").data.decode()


def test_the_page_offers_every_choice_and_an_undo(env, app):
    """Besides the one-click digest: no mail about the game at all, and back to a mail on
    every turn; each a POST with the same token (and the page's form token)."""
    from pbem.services.mailing.told import wants
    from tests.helpers import csrf_of

    public_id = new_game(env, first=0, emails=EMAILS)
    path = _unsubscribe_path(mails(env, public_id, seat=1, kind="invitation")[0])
    browser = app.test_client()
    page = browser.get(path).data.decode()
    assert 'name="mode" value="invitations"' in page and "no mail about this game" in page
    answer = browser.post(path, data={"csrf_token": csrf_of(page), "mode": "invitations"})
    assert answer.status_code == 200, answer.data
    assert _mode(env, public_id, 1) == "invitations"
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        assert not wants(game, 1, "your_turn") and not wants(game, 1, "game_over")
    text = answer.data.decode()
    assert "No more mail comes about your game against Ada" in text
    assert 'value="each"' in text and 'value="digest"' in text
    undo = browser.post(path, data={"csrf_token": csrf_of(text), "mode": "each"})
    assert "comes on every turn again" in undo.data.decode()
    assert _mode(env, public_id, 1) == "each"
    # a choice needs the page's form token; a mode that is no choice is refused
    assert app.test_client().post(path, data={"mode": "invitations"}).status_code == 400
    assert _mode(env, public_id, 1) == "each"
    bad = browser.post(path, data={"csrf_token": csrf_of(text), "mode": "weekly"})
    assert bad.status_code == 400 and _mode(env, public_id, 1) == "each"


@pytest.mark.parametrize("language", ["el", "fa", "uk", "zh"])
def test_the_choices_are_translated(env, app, language):
    public_id = new_game(env, first=0, emails=EMAILS)
    path = _unsubscribe_path(mails(env, public_id, seat=1, kind="invitation")[0])
    page = app.test_client().get(f"{path}?lang={language}").data.decode()
    assert "no mail about this game" not in page and "Or choose" not in page
    assert 'value="invitations"' in page


def test_the_digest_s_page_offers_the_digest_back_and_every_move(env, app):
    """After the digest's one-click stop, its page offers the digest again (the undo) and
    a mail on every move; the undo puts the account and the seats it took off back."""
    from tests.helpers import csrf_of

    emails = ("unsub-undo@example.test", "unsub-undo-other@example.test")
    public_id = new_game(env, first=0, emails=emails)
    seat_settings.set_mail_mode(env, token(env, public_id, 0), "digest", access.Client())
    env.clock.advance(days=1)
    assert jobs.send_digests(env) >= 1
    with env.db.read() as session:
        digest = session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.kind == "digest", OutboxMessage.to_addr == emails[0]
            )
        ).one()
    path = _unsubscribe_path(digest)
    browser = app.test_client()
    stopped = browser.post(path).data.decode()
    assert _mode(env, public_id, 0) == "invitations"
    assert 'value="digest"' in stopped and 'value="each"' in stopped
    back = browser.post(path, data={"csrf_token": csrf_of(stopped), "mode": "digest"})
    assert "comes as one daily digest again" in back.data.decode()
    assert _mode(env, public_id, 0) == "digest"
    with env.db.read() as session:
        player = session.scalars(select(Player).where(Player.email == emails[0])).one()
        assert player.mail_mode == "digest"
