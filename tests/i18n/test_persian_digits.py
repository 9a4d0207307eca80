"""A Persian page writes every number in Persian digits (۰-۹), as its translations and
its move notation do: one helper (``i18n.shown_number``, the ``num`` filter, gettext's
numeric params, the times) writes them, so no page mixes two kinds. Other languages keep
0-9."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.i18n import shown_number, use_reader
from pbem.services.core import access
from pbem.services.play import moves, new_games
from tests.mail.play import play, to_move, token
from tests.web.test_record_uploads import short  # noqa: F401 - a fixture

PERSIAN = re.compile("[\u06f0-\u06f9]")


def _visible(page: str) -> str:
    main = page.split("<main", 1)[1]
    main = re.sub(r"<(script|code)\b[^>]*>.*?</\1>", " ", main, flags=re.S)
    return re.sub(r"<[^>]+>", " ", main)


def test_one_helper_writes_numbers_in_the_readers_digits():
    with use_reader("fa"):
        assert shown_number(12) == "۱۲"
        assert shown_number(2.5) == "۲٫۵"
    with use_reader("en"):
        assert shown_number(12) == "12" and shown_number(2.5) == "2.5"


def test_a_persian_page_has_no_latin_digits(client, env):
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
            new_games.PlayerIn("Bo", "bo@example.test", "en"),
        ),
        first_player=0,
    )
    play(env, created.public_id, 12)
    pages = {
        "seat": f"/s/{created.tokens[0]}",
        "public": f"/g/{created.public_id}?lang=fa",
        "replay": f"/s/{created.tokens[0]}/replay?n=5",
    }
    for name, url in pages.items():
        text = _visible(client.get(url).text)
        text = text.replace("sha256", "")  # a name, not a number
        latin = re.findall(r"\S*[0-9]\S*", text)
        assert not latin, (name, latin)
        assert PERSIAN.search(text), name
    english = _visible(client.get(f"/s/{created.tokens[1]}").text)
    assert not PERSIAN.search(english) and re.search(r"[0-9]", english)


def _latin_digits(page: str) -> list[str]:
    """Every run of text with a digit 0-9 that a reader sees between ``<main>`` and its end,
    with the titles and labels a pointer or a screen reader shows."""
    main = page.split("<main", 1)[1].split("</main>", 1)[0]
    labels = " ".join(re.findall(r'(?:title|aria-label|alt|placeholder)="([^"]*)"', main))
    main = re.sub(r"<(script|code|pre|style)\b[^>]*>.*?</\1>", " ", main, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", main) + " " + labels
    text = re.sub(r"\bsha-?256\b|\b[0-9a-f]{12,}\b|\S+@\S+|https?://\S+", " ", text, flags=re.I)
    return re.findall(r"\S*[0-9]\S*", text)


def test_every_persian_page_writes_its_numbers_in_persian_digits(client, env):
    """The seat page with moves played, home, /me, the audit of a turn and the replay with
    its analysis: no number in Latin digits, and every numbered list counts in Persian."""
    from tests.web.test_players import sign_in
    from tests.web.test_replay_verdicts import _judge

    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
            new_games.PlayerIn("Bo", "bo@example.test", "fa", "Asia/Tehran"),
        ),
        first_player=0,
    )
    play(env, created.public_id, 14)
    mine = created.tokens[0]
    pages = {
        "seat": f"/s/{mine}",
        "home": "/?lang=fa",
        "audit": f"/s/{mine}/audit/5",
    }
    for name, url in pages.items():
        page = client.get(url)
        assert page.status_code == 200, name
        assert not _latin_digits(page.text), (name, _latin_digits(page.text))
    moves.resign(
        env, token(env, created.public_id, to_move(env, created.public_id)), 15, access.Client()
    )
    _judge(env, created.public_id, lambda n, seat: (0.6, 0.6 - (n % 4) * 0.08, (n % 4) * 8.0))
    for name, url in {
        "replay, analysis": f"/s/{mine}/replay?n=7",
        "replay, the end": f"/s/{mine}/replay?n=15",
        "public audit": f"/g/{created.public_id}/audit/6?lang=fa",
    }.items():
        page = client.get(url)
        assert page.status_code == 200, name
        assert "audit" in name or 'class="analysis' in page.text, name
        assert not _latin_digits(page.text), (name, _latin_digits(page.text))
    signed_in = client.application.test_client()
    sign_in(signed_in, env, "dariush@example.test")
    page = signed_in.get("/me?lang=fa")
    assert "داریوش" in page.text
    assert not _latin_digits(page.text), ("me", _latin_digits(page.text))


def test_every_numbered_list_of_a_persian_page_counts_in_persian_digits():
    """A list's numbers are the browser's (``<ol>``'s markers): the stylesheet gives every
    ``<ol>`` of a Persian page Persian markers, not only the replay's step list."""
    css = (Path(__file__).resolve().parents[2] / "static" / "style.css").read_text()
    rules = re.findall(r"([^{}]+)\{([^}]*)\}", css)
    persian = [s.strip() for s, body in rules if "list-style-type: persian" in body]
    assert any(
        re.fullmatch(r"html\[lang=\"?fa\"?\] ol", part.strip())
        for s in persian
        for part in s.split(",")
    ), persian
    # and no rule for an ``ol`` sets another list style that would win over it
    for selector, body in rules:
        if re.search(r"\bol\b", selector) and "list-style" in body and "persian" not in body:
            assert "none" in body, (selector, body)


def test_a_record_files_replay_writes_its_times_in_persian_digits(client, short):  # noqa: F811
    """An uploaded record's moves carry their times as ISO text: shown as the reader reads a
    time, in Persian digits on a Persian page."""
    import json

    from tests.web.test_players import csrf_of
    from tests.web.test_record_uploads import _upload

    answer = _upload(client, json.dumps(short).encode(), csrf_of(client.get("/").text))
    page = client.get(answer.headers["Location"] + "?n=3&lang=fa")
    assert page.status_code == 200
    assert "<time datetime=" in page.text
    assert not _latin_digits(page.text), _latin_digits(page.text)


def _field_values(page: str) -> dict[str, str]:
    """The value of each text or number field of a page's ``<main>``, by name."""
    main = page.split("<main", 1)[1]
    out = {}
    for tag in re.findall(r"<input\b[^>]*>", main):
        name = re.search(r'\bname="([^"]*)"', tag)
        value = re.search(r'\bvalue="([^"]*)"', tag)
        kind = re.search(r'\btype="([^"]*)"', tag)
        if name and value and kind and kind.group(1) in ("text", "number"):
            out[name.group(1)] = value.group(1)
    return out


def test_a_persian_pages_number_fields_show_persian_digits_and_the_server_reads_them(client, env):
    """Home's vacation days, /me's and the seat's days away, an event's rounds and players:
    on a Persian page their values are Persian digits, in a field a number pad types
    into that takes either digit set; the server reads Persian and Arabic-Indic digits."""
    from tests.helpers import csrf_of
    from tests.web.test_players import sign_in

    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
            new_games.PlayerIn("Bo", "bo@example.test", "en"),
        ),
        first_player=0,
    )
    seat = f"/s/{created.tokens[0]}"
    signed_in = client.application.test_client()
    sign_in(signed_in, env, "dariush@example.test")
    fields = {
        "home": (client.get("/?lang=fa").text, "vacation_days", "۱۰"),
        "me": (signed_in.get("/me?lang=fa").text, "days", "۳"),
        "seat": (client.get(seat).text, "days", "۱"),
        "event, rounds": (signed_in.get("/events/new?lang=fa").text, "rounds", "۳"),
        "event, players": (signed_in.get("/events/new?lang=fa").text, "max_players", "۸"),
    }
    for where, (page, name, shown) in fields.items():
        assert _field_values(page).get(name) == shown, (where, _field_values(page))
        tag = re.search(rf'<input\b[^>]*name="{name}"[^>]*>', page).group(0)
        assert 'inputmode="' in tag and "۰-۹" in tag and "٠-٩" in tag, (where, tag)
    english = _field_values(client.get(f"/s/{created.tokens[1]}").text)
    assert english["days"] == "1"
    page = client.get(seat)
    answer = client.post(f"{seat}/away", data={"csrf_token": csrf_of(page.text), "days": "۱٫۵"})
    assert answer.status_code == 303, answer.text
    page = signed_in.get("/me?lang=fa")
    answer = signed_in.post("/me/away", data={"csrf_token": csrf_of(page.text), "days": "٢"})
    assert answer.status_code == 303, answer.text


def test_the_server_reads_persian_and_arabic_indic_digits_within_the_same_bounds():
    from werkzeug.datastructures import MultiDict

    from pbem.services.core.errors import InvalidInput
    from pbem.web import inputs

    assert inputs.bounded_int("۱۲", low=1, high=20, label="x") == 12
    assert inputs.bounded_int("١٢", low=1, high=20, label="x") == 12
    assert inputs.decimal(MultiDict({"d": "۲٫۵"}), "d", low=0.1, high=3, label="x") == 2.5
    for raw in ("۲۱", "٠"):
        try:
            inputs.bounded_int(raw, low=1, high=20, label="x")
        except InvalidInput:
            continue
        raise AssertionError(raw)
