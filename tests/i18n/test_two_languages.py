"""A whole game through HTTP between a Persian and a Chinese reader, each in their own
language and time zone: pages, mails, errors and the move notation they type."""

from __future__ import annotations

import random
import re
import secrets

import pytest

from pbem.engine import Match, load_record, replay
from pbem.i18n.notation import written
from pbem.services.records import game_records
from tests.helpers import choose_reader, csrf_of, link_in, mails, next_n_of

SEATS = (
    {"name": "Dariush", "email": "dariush@example.test", "lang": "fa", "tz": "Asia/Tehran"},
    {"name": "Mei", "email": "mei@example.test", "lang": "zh", "tz": "Asia/Shanghai"},
)
HAN = re.compile(r"[\u4e00-\u9fff]")
ARABIC_SCRIPT = re.compile(r"[\u0600-\u06ff]")


def omniscient(env, public_id) -> Match:
    return replay(load_record(game_records.operator_record(env, public_id)))


def start(client, env) -> str:
    """The Persian player creates the game in Persian; the Chinese player accepts in Chinese."""
    home = client.get("/?lang=fa")
    assert 'dir="rtl"' in home.text and 'lang="fa"' in home.text
    a, b = SEATS
    created = client.post(
        "/",
        data={
            "csrf_token": csrf_of(home.text),
            "my_name": a["name"],
            "my_email": a["email"],
            "my_language": "fa",
            "my_timezone": a["tz"],
            "their_name": b["name"],
            "their_email": b["email"],
            "their_language": "zh",
            "days_per_move": "3",
        },
    )
    assert created.status_code == 303, created.text
    public_id = created.headers["Location"].split("/")[2]
    invitation = mails(env, public_id, seat=1, kind="invitation")[0]
    assert HAN.search(invitation.subject) and "Mei" in invitation.text_body
    assert "你好" in invitation.text_body  # the opponent's invitation speaks Chinese
    for seat, data in enumerate(SEATS):
        link = link_in(mails(env, public_id, seat=seat)[-1])
        page = client.get(link)
        accepted = client.post(
            f"{link}/accept",
            data={
                "csrf_token": csrf_of(page.text),
                "entropy": secrets.token_hex(32),
                "language": data["lang"],
                "timezone": data["tz"],
            },
        )
        assert accepted.status_code == 303, accepted.text
    return public_id


@pytest.mark.slow
def test_a_persian_and_a_chinese_player_each_read_their_own_language(client, env, clock):
    public_id = start(client, env)
    rnd = random.Random(8)
    moves = 0
    while not (state := omniscient(env, public_id)).is_over:
        seat = state.to_move
        lang = SEATS[seat]["lang"]
        link = link_in(mails(env, public_id, seat=seat)[-1])
        page = client.get(link)
        assert page.status_code == 200
        assert f'lang="{lang}"' in page.text
        assert ('dir="rtl"' in page.text) == (lang == "fa")
        if lang == "fa":
            assert "بازار" in page.text and "Market" not in page.text
        else:
            assert "市集" in page.text and "Market" not in page.text
        # The deadline is shown in the seat's own time zone: +03:30 in Tehran (in Persian
        # digits, as every number of a Persian page), +08:00 in Shanghai.
        assert ("+۰۳:۳۰" if lang == "fa" else "GMT+08:00") in page.text
        move = rnd.choice(state.legal_moves())
        typed = written(str(move), lang)  # the player types in their own language
        n = next_n_of(page.text)
        preview = client.post(
            f"{link}/preview", data={"csrf_token": csrf_of(page.text), "n": n, "move": typed}
        )
        assert preview.status_code == 200, preview.text
        assert typed in preview.text  # the Confirm button shows the move in their words
        done = client.post(
            f"{link}/move", data={"csrf_token": csrf_of(preview.text), "n": n, "move": str(move)}
        )
        assert done.status_code == 303, done.text
        moves += 1
        assert moves < 1000

    # The log and the record stay canonical English notation.
    record = client.get(f"/g/{public_id}/record.json").get_json()
    assert len(record["moves"]) == moves
    verbs = {m["move"].split()[0] for m in record["moves"]}
    assert verbs <= {"take", "camels", "exchange", "sell", "resign", "timeout", "claim"}
    # Every mail to each seat is in that seat's language.
    for seat, data in enumerate(SEATS):
        sent = mails(env, public_id, seat=seat)
        assert sent
        script = ARABIC_SCRIPT if data["lang"] == "fa" else HAN
        for mail in sent:
            assert script.search(mail.subject), (data["lang"], mail.kind, mail.subject)
            assert script.search(mail.text_body) and script.search(mail.html_body)
            assert "Hello" not in mail.text_body
            if data["lang"] == "fa":
                assert 'dir="rtl"' in mail.html_body
    over = mails(env, public_id, seat=1, kind="game_over")[0]
    assert "对局" in over.subject


def test_refusals_and_errors_speak_the_seat_language(client, env):
    public_id = start(client, env)
    state = omniscient(env, public_id)
    seat = state.to_move
    lang = SEATS[seat]["lang"]
    link = link_in(mails(env, public_id, seat=seat)[-1])
    page = client.get(link)
    n = next_n_of(page.text)
    bad = "卖出 3 骆驼" if lang == "zh" else "بفروش ۳ شتر"
    refused = client.post(
        f"{link}/preview", data={"csrf_token": csrf_of(page.text), "n": n, "move": bad}
    )
    assert refused.status_code == 422
    assert ("骆驼永远不能卖出" if lang == "zh" else "شترها هرگز فروخته نمی‌شوند") in refused.text
    stale = client.post(
        f"{link}/preview", data={"csrf_token": csrf_of(page.text), "n": n + 5, "move": bad}
    )
    assert stale.status_code == 409
    assert ("对局已有进展" if lang == "zh" else "بازی جلو رفته است") in stale.text
    # The language switcher shows the same seat page in English for this one view.
    english = client.get(f"{link}?lang=en")
    assert 'lang="en"' in english.text and "Market" in english.text


def test_a_seat_changes_its_language_and_time_zone(client, env):
    public_id = start(client, env)
    link = link_in(mails(env, public_id, seat=1)[-1])
    assert choose_reader(client, link, "uk", "Europe/Kyiv").status_code == 303
    page = client.get(link)
    assert 'lang="uk"' in page.text and "Ряд" in page.text
    refused = client.post(
        f"{link}/reader",
        data={"csrf_token": csrf_of(page.text), "language": "uk", "timezone": "Mars/Olympus"},
    )
    assert refused.status_code == 400 and "Mars/Olympus" in refused.text
    assert 'lang="uk"' in client.get(link).text  # nothing changed
