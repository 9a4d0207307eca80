"""What the replay says of a round's total and of each verdict (issue 33, points 7 and 8):
one total per round, verdict names exactly those of docs/analysis.md, and every chance
named with whose it is; the graph follows one player's chance, so it does not flip."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pbem.ai.analysis import MARKS, VERSION, label_of
from pbem.services.core import access, lookup
from pbem.services.play import moves
from pbem.services.records import game_records
from pbem.store import analyses as rows
from tests.mail.play import new_game, play, token
from tests.support import own_database, play_random

database_url, database = own_database("module")

DOC = Path(__file__).resolve().parents[2] / "docs" / "analysis.md"


def _doc_labels() -> dict[str, str]:
    """The table "The labels" of docs/analysis.md: each drop's row, as `drop: name`."""
    part = DOC.read_text().split("## The labels", 1)[1].split("\n\n", 2)[1]
    out = {}
    for line in part.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[0]] = cells[1]
    return out


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def _finished(env, count: int = 8) -> str:
    public_id = new_game(env)
    play(env, public_id, count)
    moves.submit_move(env, token(env, public_id, count % 2), count + 1, "resign", access.Client())
    return public_id


def _judge(env, public_id: str, verdict) -> dict[int, int]:
    """Store a made-up analysis: ``verdict(n, seat)`` gives (before, after, drop) of a move;
    returns each move's seat."""
    record = game_records.operator_record(env, public_id)
    with env.db.write() as session:
        game_id = lookup.game_row(session, public_id).id
        now = env.clock.now()
        rows.start(session, game_id, len(record["moves"]), VERSION, now)
        judged, seats = [], {}
        for m in record["moves"]:
            seats[m["n"]] = m["seat"]
            if m["move"] == "resign":
                empty = dict(before=None, after=None, best=None, drop=None, label=None)
                judged.append(dict(n=m["n"], seat=m["seat"], **empty))
                continue
            before, after, drop = verdict(m["n"], m["seat"])
            best = "take camels" if drop else m["move"]
            label = label_of(drop)
            judged.append(
                dict(
                    n=m["n"],
                    seat=m["seat"],
                    before=before,
                    after=after,
                    best=best,
                    drop=drop,
                    label=label,
                )
            )
        rows.store(session, game_id, judged, 0, now)
    return seats


@pytest.fixture(scope="module")
def drops(module_env) -> tuple[str, dict[int, int]]:
    """A finished game whose moves 1-5 dropped 0, 8, 10, 25 and 35 points."""
    public_id = _finished(module_env)
    by_move = {1: 0.0, 2: 8.0, 3: 10.0, 4: 25.0, 5: 35.0}
    seats = _judge(
        module_env,
        public_id,
        lambda n, seat: (0.6, round(0.6 - by_move.get(n, 0.0) / 100, 2), by_move.get(n, 0.0)),
    )
    return public_id, seats


def test_the_verdict_names_are_those_of_the_docs(client, drops):
    public_id, _seats = drops
    doc = _doc_labels()
    expected = {
        1: doc["0 (the move played does best)"],
        2: doc["above 0, under 10"],
        3: doc["10 to 19.9"],
        4: doc["20 to 29.9"],
        5: doc["30 and more"],
    }
    for n, name in expected.items():
        page = client.get(f"/g/{public_id}/replay?n={n}&lang=en").get_data(as_text=True)
        verdict = _text(page.split('<p class="verdict', 1)[1].split(">", 1)[1].split("</p>", 1)[0])
        assert verdict.split(" · ")[0].split(" ?")[0].lower() == name.lower(), (n, verdict)
    assert "Good move" not in "".join(
        client.get(f"/g/{public_id}/replay?n={n}&lang=en").get_data(as_text=True) for n in expected
    )


def test_every_chance_says_whose_it_is(client, module_env, drops):
    public_id, seats = drops
    names = ("Ada", "Bo")
    for n in (1, 2, 4):
        seat = seats[n]
        public = _text(client.get(f"/g/{public_id}/replay?n={n}&lang=en").get_data(as_text=True))
        assert f"{names[seat]}'s chance to win the match" in public, n
        assert "your chance" not in public
        own = token(module_env, public_id, seat)
        mine = _text(client.get(f"/s/{own}/replay?n={n}&lang=en").get_data(as_text=True))
        assert "your chance to win the match" in mine.split("Analysis", 1)[0], n
        other = token(module_env, public_id, 1 - seat)
        theirs = _text(client.get(f"/s/{other}/replay?n={n}&lang=en").get_data(as_text=True))
        step = theirs.split("Analysis", 1)[0]
        assert f"{names[seat]}'s chance to win the match" in step and "your chance" not in step


def _chance_line(page: str) -> list[tuple[float, float]]:
    chart = page.split('class="chart chance-chart"', 1)[1].split("</svg>", 1)[0]
    lines = re.findall(r'<polyline class="[^"]*" points="([^"]*)"', chart)
    assert len(lines) == 1, "one player's chance, one line"
    return [tuple(map(float, p.split(","))) for p in lines[0].split()]


def test_the_graph_follows_one_players_chance(client, module_env):
    """Every move judged at 70% for its mover: the graph of seat 0's chance reads 70% after
    seat 0's moves and 30% after seat 1's, and seat 1's own replay the other way round."""
    public_id = _finished(module_env, 6)
    seats = _judge(module_env, public_id, lambda n, seat: (0.7, 0.7, 0.0))
    judged = [n for n in sorted(seats) if n <= 6]

    def heights(page: str) -> list[float]:
        return [round((100 - y) / 95, 2) for _x, y in _chance_line(page)]

    public = client.get(f"/g/{public_id}/replay?n=2&lang=en").get_data(as_text=True)
    assert heights(public) == [0.7 if seats[n] == 0 else 0.3 for n in judged]
    assert "Round 1: Ada's chance to win the match" in _text(public)
    seen_as_bo = client.get(f"/g/{public_id}/replay?n=2&as=1&lang=en").get_data(as_text=True)
    assert heights(seen_as_bo) == [0.7 if seats[n] == 1 else 0.3 for n in judged]
    assert "Round 1: Bo's chance to win the match" in _text(seen_as_bo)
    bo = token(module_env, public_id, 1)
    own = client.get(f"/s/{bo}/replay?n=2&lang=en").get_data(as_text=True)
    assert heights(own) == [0.7 if seats[n] == 1 else 0.3 for n in judged]
    assert "Round 1: your chance to win the match" in _text(own)


@pytest.fixture(scope="module")
def whole(module_env) -> str:
    """A whole random game in which the camel token went to someone in some round (random
    deals rarely leave both herds equal in every round: then another game is played)."""
    for _ in range(20):
        public_id = new_game(module_env)
        play_random(module_env, public_id)
        rounds = game_records.operator_record(module_env, public_id)["result"]["rounds"]
        if any(r["camel_token"] is not None for r in rounds):
            return public_id
    raise AssertionError("20 random games without a camel token")


def test_one_total_per_round(client, module_env, whole):
    """The round's end and its chart say the same total, the camel token counted."""
    record = game_records.operator_record(module_env, whole)
    ends = {r["round"]: r for r in record["result"]["rounds"]}
    assert any(r["camel_token"] is not None for r in ends.values())  # the token matters here
    last = len(record["moves"])
    for perspective in ("all", "0", "1"):
        page = _text(
            client.get(f"/g/{whole}/replay?n={last}&as={perspective}&lang=en").get_data(
                as_text=True
            )
        )
        for number, r in ends.items():
            a, b = r["scores"]
            caption = re.search(
                rf"Round {number} \(moves \d+–\d+\): Ada (\d+).*? and Bo (\d+)", page
            )
            assert caption and (int(caption[1]), int(caption[2])) == (a, b), (perspective, number)
    for move in record["moves"]:
        page = client.get(f"/g/{whole}/replay?n={move['n']}&lang=en").get_data(as_text=True)
        if "is over" in page and "round-end" in page:
            told = re.search(
                r"Round (\d+) is over.*?Ada <b>(\d+)</b> · Bo <b>(\d+)</b>", page, re.S
            )
            assert told
            r = ends[int(told[1])]
            assert (int(told[2]), int(told[3])) == tuple(r["scores"])


class _Marks(HTMLParser):
    """Each verdict symbol of a page (?!, ?, ?? as a text of its own, or ?! and ?? inside
    any text) with the element it sits in and that element's attributes; the "?" of the
    keyboard help (a key, on a button or in <kbd>) is no verdict."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.found: list[tuple[str, str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        if tag not in ("br", "img", "input", "meta", "link", "hr", "wbr"):
            self.stack.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        text = data.strip()
        if text in MARKS.values() or "?!" in text or "??" in text:
            tag, attrs = self.stack[-1] if self.stack else ("", {})
            if tag in ("button", "kbd"):
                return
            self.found.append((text, tag, attrs))


@pytest.mark.parametrize("language", ["fa", "en", "el", "uk", "zh"])
def test_every_verdict_symbol_is_isolated_left_to_right(client, module_env, drops, language):
    """In Persian "?!" read as "!?" when the symbol took the direction of the words around
    it: every verdict symbol, in the step's verdict, the move list and the analysis
    section, sits alone in a left-to-right isolate (<bdi dir="ltr">)."""
    public_id, seats = drops
    own = token(module_env, public_id, seats[3])
    pages = [f"/g/{public_id}/replay?n={n}&lang={language}" for n in (2, 3, 4, 5)]
    pages.append(f"/s/{own}/replay?n=3&lang={language}")
    seen = set()
    for url in pages:
        parser = _Marks()
        parser.feed(client.get(url).get_data(as_text=True))
        for text, tag, attrs in parser.found:
            assert text in MARKS.values() and tag == "bdi" and attrs.get("dir") == "ltr", (
                url,
                text,
                tag,
                attrs,
            )
            seen.add(text)
    assert seen == set(MARKS.values())
