"""No English left on a page or in a mail in another language (issue 33, point 6).

The seat page, the replay with its analysis, the audit of a turn and every mail of a game
(invitation, your turn, receipts, reminder, deadline warning, timeout, game over, link) and
of a game against the computer are rendered in el, fa, uk and zh, and checked:

- no text of the English catalog (``messages.pot``) of three words or more appears as it
  is, unless that language's translation keeps it too (a command, a format's name);
- no word in Latin letters at all, beyond the players' names, what sits in ``<code>``, an
  address, a hash and the few names of things every language writes so (``ALLOWED``);
- on a Persian page or mail, no digit 0-9 outside those.

It reads the catalog and the templates as they are, so a template string added without a
translation fails here.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from pbem.engine.errors import MoveError
from pbem.i18n import use_reader
from pbem.i18n.words import error_text
from pbem.services.core import access
from pbem.services.play import (
    computer,
    game_clock,
    game_pages,
    link_recovery,
    moves,
    new_games,
    seat_settings,
)
from pbem.services.records import game_records
from pbem.services.scheduled import jobs
from tests.helpers import mails
from tests.mail.play import play, to_move, token
from tests.web.test_replay_verdicts import _judge

CATALOGS = Path(__file__).resolve().parents[2] / "pbem" / "translations"
LANGUAGES = ("el", "fa", "uk", "zh")
NAMES = ("Ada", "Bo")
CLOCK = game_clock.GameClock(days_per_move=3, reminder_after_hours=24, reminder_every_hours=48)

#: Latin-script words a page may hold whatever its language: the language switcher's
#: "English", and "GMT", which CLDR's own time formats of el, uk and zh write.
ALLOWED = frozenset({"English", "GMT"})
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\{.*?\}\}|\{\w*\}|<[^>]+>")
WORD = re.compile(r"[A-Za-z]+")


@cache
def _english() -> tuple[str, ...]:
    """The catalog's texts cut at their params and tags, each piece of three words or more."""
    with (CATALOGS / "messages.pot").open("rb") as fp:
        catalog = read_po(fp)
    pieces = set()
    for message in catalog:
        for msgid in message.id if isinstance(message.id, tuple) else (message.id,):
            for piece in PLACEHOLDER.split(msgid or ""):
                piece = " ".join(html.unescape(piece).split()).strip(" .,:;·()")
                if len(WORD.findall(piece)) >= 3:
                    pieces.add(piece)
    return tuple(sorted(pieces))


@cache
def _latin_words(language: str) -> frozenset[str]:
    """The words in Latin letters that the language's own translations use outside code
    and quotes (Greek "email", "bonus"; everyone's "JSON", "Windows"): meant, not left."""
    with (CATALOGS / language / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp)
    words: set[str] = set()
    for message in catalog:
        if not message.id:
            continue  # the header
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for s in strings:
            s = re.sub(r"<code\b[^>]*>.*?</code>|%\(\w+\)s|<[^>]+>|\{\w*\}", " ", s or "")
            s = re.sub(r"«[^»]*»|“[^”]*”|「[^」]*」|\"[^\"]*\"", " ", s)
            words |= set(WORD.findall(s))
    return frozenset(words)


@cache
def _kept(language: str) -> str:
    """Everything the language's translations say: a piece they keep in English is meant."""
    with (CATALOGS / language / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp)
    said = []
    for message in catalog:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        said.extend(s for s in strings if s)
    return " ".join(" ".join(said).split())


def visible(page: str) -> str:
    """What a reader sees of a page or an HTML mail, with its titles and labels: without
    scripts, styles, ``<code>`` (notation, commands, hashes) and the tags."""
    page = re.sub(r"<(script|style|code|pre|kbd|samp)\b[^>]*>.*?</\1>", " ", page, flags=re.S)
    labels = " ".join(re.findall(r'(?:title|aria-label|alt|placeholder)="([^"]*)"', page))
    text = re.sub(r"<[^>]+>", " ", page) + " " + labels
    return " ".join(html.unescape(text).split())


def prose(text: str) -> str:
    """A text mail without its indented lines: the links, commands, hashes and positions'
    codes a text mail sets apart as ``<code>`` does in HTML."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("  "))


def _strip(text: str) -> str:
    """A text without the players' names, addresses, links, hashes and the like."""
    text = re.sub(r"https?://\S+|\S+@\S+|/[sgr]/\S+|\b[0-9a-f]{12,}\b", " ", text)
    text = re.sub(r"\bjaipur-[\w./-]+|\bpbem[\w./-]*|[\w-]+\.(?:json|whl)\b", " ", text)
    text = re.sub(r"\S*[\\/]\S+", " ", text)  # a path, a time zone's IANA name
    text = re.sub(r"\b[0-9]{1,3}\.[0-9]{1,3}\.x\.x\b", " ", text)  # an address's network
    text = re.sub(r"\b(?:HMAC-)?SHA-?256\b|\bpython3\b", " ", text, flags=re.I)
    for name in NAMES:
        text = re.sub(rf"\b{name}\b", " ", text)
    return text


def check(language: str, where: str, text: str) -> list[str]:
    """What is left in English (or in Latin digits, in Persian) in ``text``."""
    found = []
    flat = " ".join(text.split())
    kept = _kept(language)
    found += [f"{where}: {p!r}" for p in _english() if p in flat and p not in kept]
    rest = _strip(flat)
    allowed = ALLOWED | _latin_words(language)
    words = {w for w in WORD.findall(rest) if w not in allowed and len(w) > 1}
    found += [f"{where}: Latin word {w!r}" for w in sorted(words)]
    if language == "fa":
        latin = sorted(set(re.findall(r"\S*[0-9]\S*", rest)))
        found += [f"{where}: Latin digits {d!r}" for d in latin]
    return found


def _game(env, language: str) -> str:
    """A game in ``language`` with every mail a game sends, then over, with an analysis."""
    seats = tuple(
        new_games.PlayerIn(name, f"{name.lower()}@example.test", language, "Asia/Tehran")
        for name in NAMES
    )
    public_id = new_games.create_game(env, seats, first_player=0, clock=CLOCK).public_id
    for seat in (0, 1):
        seat_settings.set_receipts(env, token(env, public_id, seat), "all", access.Client())
    play(env, public_id, 5)
    env.clock.advance(hours=25)  # a reminder
    jobs.run_clock(env)
    env.clock.advance(hours=23)  # the warning a day before the deadline
    jobs.run_clock(env)
    env.clock.advance(hours=25)  # the timeout
    jobs.run_clock(env)
    link_recovery.request_link(env, public_id, "bo@example.test", access.Client(ip="192.0.2.9"))
    late = to_move(env, public_id)
    n = len(game_pages.public_page(env, public_id).entries) + 1
    waiting = 1 - late if late is not None else 0
    moves.submit_move(env, token(env, public_id, waiting), n, "claim", access.Client())
    _judge(env, public_id, lambda n, seat: (0.6, 0.6 - (n % 4) * 0.08, (n % 4) * 8.0))
    return public_id


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_english_left_on_pages_and_mails(client, env, language):
    public_id = _game(env, language)
    left: list[str] = []
    kinds = set()
    for mail in mails(env, public_id):
        kinds.add(mail.kind)
        left += check(language, f"{mail.kind} subject", mail.subject)
        left += check(language, f"{mail.kind} text", prose(mail.text_body))
        left += check(language, f"{mail.kind} html", visible(mail.html_body))
    assert kinds >= {
        "invitation",
        "your_turn",
        "receipt",
        "reminder",
        "deadline_warning",
        "timeout",
        "game_over",
        "link",
    }, kinds
    mine = token(env, public_id, 0)
    last = len(game_pages.public_page(env, public_id).entries)
    pages = {
        "seat": f"/s/{mine}",
        "replay": f"/s/{mine}/replay?n=3",
        "replay, deal": f"/s/{mine}/replay?n=0",
        "replay, the end": f"/s/{mine}/replay?n={last}",
        "public replay": f"/g/{public_id}/replay?n=4&as=all&lang={language}",
        "audit": f"/s/{mine}/audit/3",
        "public audit": f"/g/{public_id}/audit/{last}?lang={language}",
    }
    for where, url in pages.items():
        page = client.get(url)
        assert page.status_code == 200, where
        main = page.text.split("<main", 1)[1].split("</main>", 1)[0]
        left += check(language, where, visible("<main" + main))
    if language == "fa":  # the move's number beside its notation, in the notation's digits
        step = client.get(pages["replay"]).text
        assert re.search(r'<code dir="auto">۳\. [^<0-9]+</code>', step)
    assert not left, "\n".join(left)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_computer_is_named_in_the_readers_words(client, env, language):
    person = new_games.PlayerIn("Ada", "ada@example.test", language, "Asia/Tehran")
    created = computer.start(env, person, "normal", contribution=b"\x01" * 32)
    seat_token = created.tokens[0]
    left: list[str] = []
    for mail in mails(env, created.public_id):
        left += check(language, f"{mail.kind} text", prose(mail.text_body))
        left += check(language, f"{mail.kind} html", visible(mail.html_body))
    page = client.get(f"/s/{seat_token}")
    assert page.status_code == 200
    main = page.text.split("<main", 1)[1].split("</main>", 1)[0]
    left += check(language, "seat", visible("<main" + main))
    assert "Computer (normal)" not in page.text
    assert not left, "\n".join(left)
    # the record is the same for every reader: the name as stored
    record = game_records.operator_record(env, created.public_id)
    assert [p["name"] for p in record["players"]] == ["Ada", "Computer (normal)"]


def test_text_mails_have_no_runs_of_blank_lines(env):
    """One blank line between paragraphs, never two: what a template leaves out (a line
    for a condition that does not hold) leaves no gap."""
    public_id = _game(env, "en")
    for mail in mails(env, public_id):
        assert "\n\n\n" not in mail.text_body.replace(" ", ""), (mail.kind, mail.text_body)
        assert not mail.text_body.startswith("\n"), mail.kind


def test_my_games_names_the_computer_in_the_readers_words(client, env):
    from tests.web.test_players import sign_in

    person = new_games.PlayerIn("Ada", "ada@example.test", "zh", "Asia/Shanghai")
    computer.start(env, person, "normal", contribution=b"\x02" * 32)
    sign_in(client, env, "ada@example.test")
    page = client.get("/me?lang=zh").text
    assert "电脑（普通）" in page and "Computer (normal)" not in page


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_audit_tells_each_use_of_a_link_in_the_readers_words(client, env, language):
    """The access log keeps its stable English keys (``move``, ``take diamond (via web)``);
    the audit page says each line in the reader's words, the move in its notation and how
    it came in, a refusal's reason too. Only what a player typed is shown as logged."""
    from pbem.services.play.moves import MoveRefused
    from pbem.services.records import replay_access

    seats = tuple(
        new_games.PlayerIn(name, f"{name.lower()}-audit@example.test", language, "Asia/Tehran")
        for name in NAMES
    )
    public_id = new_games.create_game(env, seats, first_player=0, clock=CLOCK).public_id
    play(env, public_id, 2)  # Ada's move 1, Bo's move 2: Ada to move
    mine, who = token(env, public_id, 0), access.Client(ip="192.0.2.1")
    game_pages.seat_page(env, mine, who)
    game_pages.seat_page(env, mine, who, action="api-view")
    replay_access.open_seat(env, mine, who)
    game_records.export_record(env, token=mine, client=who)
    seat_settings.set_mail_mode(env, mine, "digest", who, all_games=True)
    seat_settings.set_receipts(env, mine, "none", who)
    seat_settings.set_reader(env, mine, language, "Asia/Tehran", who)
    seat_settings.set_away(env, mine, 2, who)
    seat_settings.come_back(env, mine, who)
    legal = game_pages.legal_moves(env, mine, who)
    with pytest.raises(MoveRefused):
        moves.submit_move(env, mine, 3, "sell camel", who)
    move = next(m for m in legal if not m.startswith(("resign", "claim")))  # any deal's
    moves.preview_move(env, mine, 3, move, who, language="en")
    moves.submit_move(env, mine, 3, move, who, language="en")
    client.get(f"/s/{mine}/audit/3")
    page = client.get(f"/s/{mine}/audit/3")
    assert page.status_code == 200
    cells = dict.fromkeys(
        re.findall(r'<td data-action="([^"]+)">(.*?)</td>', page.text, flags=re.S)
    )
    actions = {action for action, _ in cells}
    assert actions >= {
        "view",
        "api-view",
        "replay",
        "export",
        "mail-mode",
        "receipts",
        "language",
        "away",
        "back",
        "api-legal",
        "refused",
        "preview",
        "move",
        "audit",
    }, actions
    left: list[str] = []
    for action, cell in cells:
        words = visible(cell)  # what the player typed is <code>, as typed
        if action == "refused":  # the reason in the reader's words, as the seat page says it
            with use_reader(language):
                reason = error_text(MoveError("sell_camel"))
            assert reason in html.unescape(cell) and "'sell camel'" in html.unescape(cell)
        assert words.strip(), action
        left += check(language, f"audit, {action}", words)
        if action == "move":
            assert "<code" in cell and "via" not in visible(cell.replace("<code", "<x"))
    assert not left, "\n".join(left)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_english_left_on_the_other_pages(client, env, language):
    """Home, privacy, the public game page while it runs and once over, signing in, my
    games, challenges, a player's public page, the ratings, "what if" and the download
    page: the same checks as the seat page's."""
    from tests.web.test_players import sign_in

    running = new_games.create_game(
        env,
        tuple(
            new_games.PlayerIn(name, f"{name.lower()}@example.test", language, "Asia/Tehran")
            for name in NAMES
        ),
        first_player=0,
        clock=CLOCK,
    ).public_id
    play(env, running, 6)
    waiting = new_games.create_game(
        env,
        tuple(
            new_games.PlayerIn(name, f"{name.lower()}@example.test", language, "Asia/Tehran")
            for name in NAMES
        ),
        await_players=True,
    )
    over = _game(env, language)
    signed_in = client.application.test_client()
    sign_in(signed_in, env, "ada@example.test")
    me = signed_in.get(f"/me?lang={language}")
    player = re.search(r'href="(/p/[^"]+)"', me.text).group(1)
    pages = {
        "home": "/",
        "privacy": "/privacy",
        "public page, running": f"/g/{running}",
        "created": f"/g/{waiting.public_id}/created",
        "accept": f"/s/{waiting.tokens[0]}",
        "public page, over": f"/g/{over}",
        "sign in": "/signin",
        "challenges": "/challenges",
        "player": player,
        "ratings": "/ratings",
        "what if": f"/g/{over}/whatif?n=3",
        "download": "/download",
    }
    left: list[str] = []
    for where, url in {"my games": "/me", **pages}.items():
        browser = signed_in if where == "my games" else client
        page = browser.get(url + ("&" if "?" in url else "?") + f"lang={language}")
        assert page.status_code == 200, (where, page.status_code)
        main = page.text.split("<main", 1)[1].split("</main>", 1)[0]
        # a player's name links to their page: a name, whatever earlier tests called them
        main = re.sub(r'<a href="/p/[^"]*"[^>]*>.*?</a>', "", main, flags=re.S)
        left += check(language, where, visible("<main" + main))
    assert not left, "\n".join(left)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_rule_refusal_reads_back_from_the_log_in_the_readers_words(language):
    """The access log keeps a refusal's reason in English; the audit reads it back as the
    rule's refusal and says it as the seat page would (``words.logged_refusal``)."""
    from pbem.engine.errors import MESSAGES
    from pbem.i18n.words import logged_refusal

    numbers = {"count", "have", "n", "size", "num", "limit", "hand", "market"}
    for code, message in MESSAGES.items():
        params: dict[str, object] = {}
        for name in re.findall(r"\{(\w+)\}", message):
            params[name] = 2 if name in numbers else "gold" if name == "card" else "zq"
        refused = MoveError(code, **params)
        with use_reader(language):
            assert logged_refusal(str(refused)) == error_text(refused), code
    with use_reader(language):
        assert logged_refusal("the game has moved on") is None  # no rule's: shown as logged


#: English words a translation once kept and must write in its own letters: Greek's
#: "bonus" (μπόνους) and everyone's "user agent" of the privacy page.
LOANWORDS = {"bonus", "user", "agent"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_english_loanword_is_kept(client, env, language):
    """Not in the catalog (whose Latin words the checks above allow), and not on the seat,
    public and replay pages of a finished game (the pile titles, "bonus tokens: 0") nor
    on the privacy page."""
    assert not {w.lower() for w in _latin_words(language)} & LOANWORDS
    over = _game(env, language)
    t = token(env, over, 0)
    for url in (
        f"/s/{t}",
        f"/s/{t}/replay?n=5",
        f"/g/{over}?lang={language}",
        f"/privacy?lang={language}",
    ):
        page = client.get(url)
        assert page.status_code == 200, url
        text = visible(page.text.split("<main", 1)[1]).lower()
        assert not set(WORD.findall(text)) & LOANWORDS, (url, set(WORD.findall(text)) & LOANWORDS)
