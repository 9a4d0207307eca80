"""One language per seat page (issue 33): the switcher's ``?lang=`` on a seat's page holds
for everything that seat's pages show and read (the preview of a move typed in it, the
refusals, the replay, the next visit), in this browser and for this seat only, until the
seat's own language is saved; cards clicked are read the same in every language."""

from __future__ import annotations

import re

from pbem.services.core import access
from pbem.services.play import game_pages, new_games
from tests.helpers import csrf_of
from tests.mail.play import new_game, token

LANG = re.compile(r'<html lang="([a-z]+)"')
CAMELS = "market:camel,camel,camel;hand:;herd:"


def _lang(response) -> str:
    found = LANG.search(response.text)
    assert found, response.text[:300]
    return found.group(1)


def _preview(client, link: str, **data: str):
    page = client.get(link)
    return client.post(f"{link}/preview", data={"csrf_token": csrf_of(page.text), "n": "1", **data})


def test_the_switch_on_a_seat_page_holds_for_that_seats_pages_and_moves(client, env):
    public_id = new_game(env, first=0)
    link, other = f"/s/{token(env, public_id, 0)}", f"/s/{token(env, public_id, 1)}"
    switched = client.get(f"{link}?lang=fa")
    assert _lang(switched) == "fa"
    cookie = next(c for c in switched.headers.getlist("Set-Cookie") if "pbem_seat_lang" in c)
    assert "pbem_seat_lang=fa" in cookie and f"Path={link}" in cookie and "HttpOnly" in cookie
    assert _lang(client.get(link)) == "fa"  # remembered: the next page of the seat
    assert _lang(client.get(f"{link}/replay?n=0")) == "fa"  # and its replay
    assert _lang(client.get(other)) == "en"  # not another seat's
    # a move typed in the page's language is read in it, and told in it
    typed = _preview(client, link, move="شترها")
    assert typed.status_code == 200, typed.text
    assert _lang(typed) == "fa" and "شترها" in typed.text
    refused = _preview(client, link, move="مبادله")
    assert refused.status_code == 422 and _lang(refused) == "fa"
    assert "is not a move" not in refused.text  # said in Persian
    # the seat's own language, saved, speaks again (for its pages and its mails)
    page = client.get(link)
    saved = client.post(
        f"{link}/reader",
        data={"csrf_token": csrf_of(page.text), "language": "en", "timezone": "UTC"},
    )
    assert saved.status_code == 303
    assert any(
        "pbem_seat_lang=;" in c or 'pbem_seat_lang=""' in c
        for c in saved.headers.getlist("Set-Cookie")
    )
    assert _lang(client.get(link)) == "en"


def test_choosing_the_seats_own_language_forgets_the_choice(client, env):
    public_id = new_game(env, first=0)
    link = f"/s/{token(env, public_id, 0)}"
    client.get(f"{link}?lang=zh")
    back = client.get(f"{link}?lang=en")
    assert any("pbem_seat_lang=;" in c for c in back.headers.getlist("Set-Cookie"))
    assert _lang(client.get(link)) == "en"


def test_cards_clicked_are_read_whatever_the_pages_language(client, env):
    for language in ("en", "el", "fa", "uk", "zh"):
        public_id = new_game(env, first=0)
        link = f"/s/{token(env, public_id, 0)}"
        client.get(f"{link}?lang={language}")
        shown = _preview(client, link, cards=CAMELS)
        assert shown.status_code == 200, (language, shown.text)
        assert _lang(shown) == language
        assert 'name="move" value="camels"' in shown.text
        assert game_pages.public_page(env, public_id).entries == ()  # a preview records nothing


def test_cards_that_make_no_move_get_the_rules_reason_in_the_readers_language(client, env):
    public_id = new_game(env, first=0)
    link = f"/s/{token(env, public_id, 0)}"
    hand = game_pages.seat_page(env, token(env, public_id, 0), access.Client()).view.me.hand
    card = hand[0].word
    clicked = _preview(client, link, cards=f"market:;hand:{card};herd:")
    typed = _preview(client, link, move=f"sell 1 {card}")
    assert clicked.status_code == typed.status_code
    reason = re.compile(r'<p class="alert" role="alert">(.*?)</p>', re.S)
    if clicked.status_code == 422:  # a lone card that may not be sold alone
        assert reason.search(clicked.text).group(1) == reason.search(typed.text).group(1)
    client.get(f"{link}?lang=zh")
    both = _preview(client, link, cards="market:camel,camel,camel;hand:;herd:camel")
    assert both.status_code == 422 and _lang(both) == "zh"
    assert "camels cannot be taken" not in both.text
    two = _preview(client, link, cards="market:gold,silver;hand:;herd:")
    said = reason.search(two.text).group(1)
    assert two.status_code == 422 and "黄金 纯银" in said  # the cards in the reader's words
    assert not re.search("[A-Za-z]", said), said


def test_a_selection_that_cannot_be_read_is_refused_and_changes_nothing(client, env):
    public_id = new_game(env, first=0)
    link = f"/s/{token(env, public_id, 0)}"
    for bad in (
        "market:ruby;hand:;herd:",
        "hand:gold;market:;herd:",
        "market:;hand:;herd:",
        "market:" + ",".join(["gold"] * 40) + ";hand:;herd:",
        "x" * 500,
    ):
        refused = _preview(client, link, cards=bad)
        assert refused.status_code == 400, bad
        assert "could not be read" in refused.text or "too long" in refused.text
    assert game_pages.public_page(env, public_id).entries == ()


def test_the_language_chosen_when_accepting_speaks(client, env):
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ada", "accept-lang-a@example.test", "en", "UTC"),
            new_games.PlayerIn("Bo", "accept-lang-b@example.test", "en", "UTC"),
        ),
        await_players=True,
    )
    link = f"/s/{game_pages.seat_tokens(env, created.public_id)[1]}"
    page = client.get(f"{link}?lang=zh")  # the invitation's page, switched to Chinese
    assert _lang(page) == "zh"
    accepted = client.post(
        f"{link}/accept",
        data={
            "csrf_token": csrf_of(page.text),
            "entropy": "ab" * 32,
            "language": "el",
            "timezone": "UTC",
        },
    )
    assert accepted.status_code == 303, accepted.text
    assert _lang(client.get(link)) == "el"
