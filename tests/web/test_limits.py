"""Limits an attacker cannot turn against the person they protect (issue 31).

What a tester found: refused requests counted too, so eleven sign-in requests for
someone else's address kept that address from getting a sign-in mail for a day while
the page said "sent"; five games naming an address refused that person's own games;
three "send me my link again" requests stopped the seat owner's own. And one IPv6 /64
counted as many clients, ``name+a@`` as another person than ``name@``.
"""

from __future__ import annotations

import re
import secrets

import pytest
from sqlalchemy import select

from pbem.config import Limits
from pbem.services.core import limits
from pbem.store.models import OutboxMessage, Seat
from pbem.web import create_app
from tests.helpers import csrf_of, link_in, mails
from tests.mail.play import new_game
from tests.web.test_players import SIGN_IN, sign_in

WITHDRAW = re.compile(r'action="/challenges/([a-z0-9]+)/withdraw"')


def _browser(env, **limits):
    """A browser on an app with the default limits, but for ``limits``."""
    env.config = env.config.with_(limits=Limits(**limits))
    return create_app(env=env).test_client()


def _address(who: str) -> str:
    """An address of this test's own: the outbox is shared by the run's tests."""
    return f"{who}-{secrets.token_hex(4)}@example.test"


def _sent(env, to: str, kind: str) -> list[OutboxMessage]:
    with env.db.read() as session:
        query = select(OutboxMessage).where(OutboxMessage.to_addr == to, OutboxMessage.kind == kind)
        return list(session.scalars(query.order_by(OutboxMessage.id)))


def _ask_sign_in(browser, email: str, ip: str):
    page = browser.get("/signin")
    return browser.post(
        "/signin",
        data={"csrf_token": csrf_of(page.text), "email": email},
        environ_base={"REMOTE_ADDR": ip},
    )


def _signs_in(browser, mail: OutboxMessage) -> bool:
    link = SIGN_IN.search(mail.text_body).group(1)
    confirm = browser.get(link)
    done = browser.post(link, data={"csrf_token": csrf_of(confirm.text)})
    return done.status_code == 303 and done.headers["Location"].endswith("/me")


# ------------------------------------------------------------ signing in


def test_strangers_asking_for_your_sign_in_link_never_keep_yours_from_you(env):
    browser = _browser(env)  # the defaults: 3 an hour and 10 a day per address and network
    victim = _address("victim")
    attackers = ("10.31.0.1", "10.31.0.2", "10.31.0.3")
    for _hour in range(3):  # hour after hour, from three networks, in alternating case
        answers = [
            _ask_sign_in(browser, victim.upper() if i % 2 else victim, attackers[i % 3])
            for i in range(11)
        ]
        # each network is refused its fourth request for one address, and is told so
        assert [a.status_code for a in answers] == [200] * 9 + [429] * 2
        for refused in answers[9:]:
            assert "on its way" not in refused.text
            assert "Too many sign-in mails to that address from here" in refused.text
            assert 0 < int(refused.headers["Retry-After"]) <= 3600
        before = len(_sent(env, victim, "sign_in"))
        mine = _ask_sign_in(browser, victim, "10.31.9.9")  # the person, from their own network
        assert mine.status_code == 200 and "a sign-in link is on its way" in mine.text
        mail = _sent(env, victim, "sign_in")
        assert len(mail) == before + 1
        assert _signs_in(browser.application.test_client(), mail[-1])
        env.clock.advance(hours=1, seconds=1)


def test_a_refused_request_does_not_count(env):
    env.config = env.config.with_(limits=Limits(uploads_per_client="3 per hour; 5 per day"))
    answers = [limits.allowed(env, "uploads_per_client", "10.31.1.1") for _ in range(10)]
    assert answers == [True] * 3 + [False] * 7
    env.clock.advance(hours=1, seconds=1)  # the day's window holds the 3 let through, not 10
    answers = [limits.allowed(env, "uploads_per_client", "10.31.1.1") for _ in range(3)]
    assert answers == [True, True, False]


# ------------------------------------------------------------ starting a game


def _new_game(browser, mine: str, theirs: str, ip: str, path: str = "/"):
    home = browser.get("/")
    return browser.post(
        path,
        data={
            "csrf_token": csrf_of(home.text),
            "my_name": "Someone",
            "my_email": mine,
            "their_name": "Buy cheap rupees now",
            "their_email": theirs,
        },
        environ_base={"REMOTE_ADDR": ip},
    )


def test_games_naming_your_address_never_stop_your_own_signed_in(env):
    browser = _browser(env)  # the defaults: 5 invitations an hour to one address
    victim = _address("named")
    for i in range(5):
        made = _new_game(browser, _address("stranger"), victim, f"10.32.0.{i + 1}")
        assert made.status_code == 303
    assert len(_sent(env, victim, "invitation")) == 5
    spam = _new_game(browser, _address("stranger"), victim, "10.32.0.9")
    assert spam.status_code == 429  # the address is still kept from more strangers' mail
    assert "That address has been sent many invitations lately" in spam.text

    anonymous = _new_game(browser, victim, _address("friend"), "10.32.1.1")
    assert anonymous.status_code == 429  # not signed in: nothing proves the address is theirs
    assert "Sign in with it" in anonymous.text and "not held back" in anonymous.text

    sign_in(browser, env, victim)
    assert f'name="my_email" type="email" required value="{victim}"' in browser.get("/").text
    own = _new_game(browser, victim.upper(), _address("friend"), "10.32.1.1")
    assert own.status_code == 303, own.text
    assert len(_sent(env, victim.upper(), "invitation")) == 1  # as typed
    me = browser.get("/me")
    computer = browser.post(
        "/me/computer",
        data={"csrf_token": csrf_of(me.text), "level": "easy"},
        environ_base={"REMOTE_ADDR": "10.32.1.1"},
    )
    assert computer.status_code == 303 and "/s/" in computer.headers["Location"]


def test_a_signed_in_player_is_limited_by_their_own_account_not_their_network(env):
    browser = _browser(env, games_per_client="2 per hour", invitations_per_address="none")
    for _ in range(2):  # a neighbour behind the same address uses up the network's games
        assert _new_game(browser, _address("n"), _address("o"), "10.33.0.1").status_code == 303
    assert _new_game(browser, _address("n"), _address("o"), "10.33.0.1").status_code == 429
    player = _address("player")
    sign_in(browser, env, player)
    answers = [_new_game(browser, player, _address("o"), "10.33.0.1").status_code for _ in range(3)]
    assert answers == [303, 303, 429]  # their own two


def test_strangers_inviting_your_friend_never_stop_your_signed_in_invitation(env):
    """Five anonymous games inviting ``friend+0..4@`` used to refuse a signed-in player's
    own game with ``friend@`` for a day: a signed-in starter's invitations count against
    their own account (per address), never against what others sent."""
    browser = _browser(env)  # the defaults: 5 invitations an hour to one address
    friend = _address("friend")
    local, domain = friend.split("@")
    for i in range(5):
        made = _new_game(browser, _address("s"), f"{local}+{i}@{domain}", f"10.37.0.{i + 1}")
        assert made.status_code == 303
    spam = _new_game(browser, _address("s"), friend, "10.37.0.9")
    assert spam.status_code == 429  # an anonymous sender still cannot flood the address
    bashir = _address("bashir")
    sign_in(browser, env, bashir)
    own = _new_game(browser, bashir, friend, "10.37.1.1")
    assert own.status_code == 303, own.text
    assert len(_sent(env, friend, "invitation")) == 1


def test_a_signed_in_player_is_limited_per_address_by_their_own_invitations(env):
    browser = _browser(env, games_per_client="none", invitations_per_address="2 per hour")
    friend = _address("friend")
    player = _address("player")
    sign_in(browser, env, player)
    answers = [_new_game(browser, player, friend, "10.38.0.1").status_code for _ in range(3)]
    assert answers == [303, 303, 429]  # their own two to that address
    refused = _new_game(browser, player, friend, "10.38.0.1")
    assert "You have sent that address many invitations lately" in refused.text
    assert _new_game(browser, player, _address("other"), "10.38.0.1").status_code == 303
    stranger = _browser(env, games_per_client="none", invitations_per_address="2 per hour")
    assert _new_game(stranger, _address("s"), friend, "10.38.1.1").status_code == 303


def test_a_refused_game_is_not_counted_and_starts_nothing(env):
    browser = _browser(env, games_per_client="none", invitations_per_address="1 per hour")
    victim = _address("refused")
    assert _new_game(browser, _address("a"), victim, "10.34.0.1").status_code == 303
    other = _address("other")
    assert _new_game(browser, other, victim, "10.34.0.2").status_code == 429
    assert _sent(env, other, "invitation") == []  # nothing made, nothing mailed or counted
    assert _new_game(browser, other, _address("b"), "10.34.0.2").status_code == 303


# ------------------------------------------------------------ "send me my link again"


def _ask_link(browser, game: str, email: str, ip: str):
    page = browser.get(f"/g/{game}")
    return browser.post(
        f"/g/{game}/link",
        data={"csrf_token": csrf_of(page.text), "email": email},
        environ_base={"REMOTE_ADDR": ip},
        follow_redirects=True,
    )


def test_strangers_asking_for_a_seats_link_never_stop_the_owners_request(env):
    browser = _browser(env)  # the defaults: 3 link mails an hour to one seat from one network
    game = new_game(env)
    for i in range(10):  # addresses that are no seat's: nothing mailed, nothing counted
        _ask_link(browser, game, _address("guess"), f"10.35.0.{i % 3 + 1}")
    for i in range(6):
        answer = _ask_link(browser, game, "ada@example.test", f"10.35.1.{i % 2 + 1}")
        assert answer.status_code == 200 and "If that address belongs to a player" in answer.text
    assert len(mails(env, game, seat=0, kind="link")) == 6
    held = _ask_link(browser, game, "Ada@Example.test", "10.35.1.1")  # that network's 4th
    assert held.status_code == 200
    assert "or went to it lately: the newest of those mails holds it" in held.text
    links = mails(env, game, seat=0, kind="link")
    assert len(links) == 6 and browser.get(link_in(links[-1])).status_code == 200
    own = _ask_link(browser, game, "ada@example.test", "10.35.9.9")  # the owner's network
    assert "If that address belongs to a player" in own.text
    links = mails(env, game, seat=0, kind="link")
    assert len(links) == 7 and browser.get(link_in(links[-1])).status_code == 200


# ------------------------------------------------------------ who is one client, one address


@pytest.mark.parametrize(
    ("ip", "counted"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:db8:31:1:aaaa:bbbb:cccc:dddd", "2001:db8:31:1::/64"),
        ("2001:DB8:31:1::1", "2001:db8:31:1::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),  # an IPv4 client of a dual-stack server
        ("unix-socket", "unix-socket"),
        (None, None),
        ("", None),
    ],
)
def test_a_client_is_an_ipv4_address_or_an_ipv6_64(ip, counted):
    assert limits.network(ip) == counted


def test_one_ipv6_64_is_one_client(env):
    browser = _browser(env)  # 5 sign-in requests per 10 minutes from one client
    answers = [
        _ask_sign_in(browser, _address("v6"), f"2001:db8:31:1::{i + 1:x}").status_code
        for i in range(12)
    ]
    assert answers == [200] * 5 + [429] * 7
    assert _ask_sign_in(browser, _address("v6"), "2001:db8:31:2::1").status_code == 200


@pytest.mark.parametrize(
    ("typed", "counted"),
    [
        ("name@example.test", "name@example.test"),
        ("Name+games@Example.TEST", "name@example.test"),
        ("name+a+b@example.test", "name@example.test"),
        ("+tag@example.test", "+tag@example.test"),  # nothing before the tag: kept whole
    ],
)
def test_an_address_is_counted_lower_cased_without_its_tag(typed, counted):
    assert limits.mailbox(typed) == counted


def test_tags_and_case_are_one_address_for_counting_only(env):
    browser = _browser(env, sign_in_per_address="3 per hour")
    base = _address("fold")
    local, domain = base.split("@")
    typed = [f"{local}+a@{domain}", f"{local.upper()}@{domain.upper()}", f"{local}+b@{domain}"]
    assert [_ask_sign_in(browser, t, "10.36.0.1").status_code for t in typed] == [200] * 3
    assert _ask_sign_in(browser, base, "10.36.0.1").status_code == 429
    assert len(_sent(env, f"{local}+a@{domain}", "sign_in")) == 1  # mailed to the tag

    browser = _browser(env, games_per_client="none", invitations_per_address="2 per hour")
    target = _address("Target")
    local, domain = target.split("@")
    first = f"{local}+Games@{domain.upper()}"
    assert _new_game(browser, _address("x"), first, "10.36.1.1").status_code == 303
    assert _new_game(browser, _address("y"), target.lower(), "10.36.1.2").status_code == 303
    third = _new_game(browser, _address("z"), f"{local.lower()}+z@{domain}", "10.36.1.3")
    assert third.status_code == 429
    with env.db.read() as session:  # the seat keeps the address as it was typed
        assert session.scalars(select(Seat.email).where(Seat.email == first)).all() == [first]
    assert len(_sent(env, first, "invitation")) == 1


def test_a_signed_in_players_challenges_and_address_changes_count_as_theirs(env):
    browser = _browser(env, challenges_per_client="2 per hour", sign_in_per_client="2 per hour")
    neighbour, player = browser.application.test_client(), browser
    sign_in(neighbour, env, _address("neighbour"))
    sign_in(player, env, _address("player"))
    same_network = {"REMOTE_ADDR": "10.37.0.1"}
    for who, expected in ((neighbour, [303, 303, 429]), (player, [303, 303, 429])):
        csrf = csrf_of(who.get("/challenges").text)
        answers = [
            who.post(
                "/challenges",
                data={"csrf_token": csrf, "days_per_move": "3"},
                environ_base=same_network,
            ).status_code
            for _ in range(3)
        ]
        assert answers == expected
        for mine in WITHDRAW.findall(who.get("/challenges").text):  # the list is shared
            who.post(f"/challenges/{mine}/withdraw", data={"csrf_token": csrf})
        changes = [
            who.post(
                "/me/email",
                data={"csrf_token": csrf_of(who.get("/me").text), "email": _address("new")},
                environ_base=same_network,
            ).status_code
            for _ in range(3)
        ]
        assert changes == [303, 303, 429]
