"""Bot accounts (docs/bots.md): registration and its token, the bot's seats through the
API, its events (long poll and server-sent events), no mail to it, its badge, ratings
and limits, and the example bot playing a whole game against a live server."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.config import Limits
from pbem.services.accounts import bots
from pbem.services.core import access, errors
from pbem.services.play import game_pages, moves, new_games
from pbem.store.models import Game, OutboxMessage, Player
from tests.helpers import csrf_of
from tests.web.test_players import sign_in

ROOT = Path(__file__).resolve().parents[2]
_n = iter(range(1, 10**6))


def person(env, name="Pat") -> Player:
    """A signed-up person (the owner of bots)."""
    from pbem.services.core.identity import player_for

    email = f"owner{next(_n)}-{os.getpid()}@example.test"
    with env.db.write() as session:
        return player_for(session, email, name, env.clock.now()).id


def registered(env, name="Robo"):
    return bots.register(env, person(env), name)


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def invite(env, bot, first=0, other="ann@example.test"):
    """A game of a person (seat 0) and the bot (seat 1), waiting for both to accept."""
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ann", other, "en", "UTC"),
            new_games.PlayerIn(bot.name, bot.address, "en", "UTC"),
        ),
        first_player=first,
        await_players=True,
    )
    return created


def dealt(client, env, made, first=0):
    """``made``'s bot invited and both accepted: the game is dealt."""
    game = invite(env, made.bot, first)
    answer = client.post(
        f"/api/bot/games/{game.public_id}/accept",
        json={"entropy": "ab" * 16},
        headers=auth(made.token),
    )
    assert answer.status_code == 200, answer.text
    new_games.accept(env, game.tokens[0], b"x" * 16, access.Client())
    return game


def test_a_signed_in_person_registers_a_bot_and_sees_its_token_once(client, env):
    sign_in(client, env, "maker@example.test")
    page = client.get("/me")
    answer = client.post("/me/bots", data={"csrf_token": csrf_of(page.text), "name": "Robo"})
    assert answer.status_code == 200
    token = re.search(r"(pbot_[A-Za-z0-9_\-]+)", answer.text).group(1)
    assert "bot-" in answer.text and "@bots.invalid" in answer.text  # its address, to invite
    again = client.get("/me")
    assert token not in again.text and "Robo" in again.text
    with env.db.read() as session:  # only its hash is kept
        bot = session.scalars(select(Player).where(Player.display_name == "Robo")).one()
        assert bot.bot_owner_id is not None and bot.bot_token_hash != token
        assert token not in json.dumps([str(v) for v in vars(bot).values()])
    assert client.get("/api/bot/account", headers=auth(token)).json["name"] == "Robo"


def test_registering_needs_a_signed_in_person(client):
    page = client.get("/")
    answer = client.post("/me/bots", data={"csrf_token": csrf_of(page.text), "name": "Robo"})
    assert answer.status_code == 403


def test_a_forged_rotated_or_revoked_token_is_refused(client, env):
    made = registered(env)
    assert client.get("/api/bot/account", headers=auth(made.token)).status_code == 200
    assert client.get("/api/bot/account", headers=auth(made.token + "x")).status_code == 403
    assert client.get("/api/bot/account", headers=auth("pbot_" + "A" * 43)).status_code == 403
    assert client.get("/api/bot/account").status_code == 403
    owner = _owner(env, made)
    new = bots.rotate(env, owner, made.bot.public_id)
    assert client.get("/api/bot/account", headers=auth(made.token)).status_code == 403
    assert client.get("/api/bot/account", headers=auth(new)).status_code == 200
    bots.revoke(env, owner, made.bot.public_id)
    assert client.get("/api/bot/account", headers=auth(new)).status_code == 403
    with pytest.raises(errors.Missing):  # nobody else rotates it
        bots.rotate(env, person(env), made.bot.public_id)


def _owner(env, made):
    with env.db.read() as session:
        return session.get(Player, made.bot.id).bot_owner_id


def test_a_bot_token_opens_only_the_bots_own_seats(client, env):
    made = registered(env)
    others = new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ann", "ann@example.test", "en", "UTC"),
            new_games.PlayerIn("Bob", "bob@example.test", "en", "UTC"),
        ),
    )
    for path in ("seat", "legal-moves"):
        answer = client.get(f"/api/bot/games/{others.public_id}/{path}", headers=auth(made.token))
        assert answer.status_code == 403
    refused = client.post(
        f"/api/bot/games/{others.public_id}/moves",
        json={"n": 1, "move": "x"},
        headers=auth(made.token),
    )
    assert refused.status_code == 403
    assert client.get("/api/seat", headers=auth(made.token)).status_code == 403  # no seat token
    # a seat token is not a bot token either
    assert client.get("/api/bot/account", headers=auth(others.tokens[0])).status_code == 403


def test_a_bot_is_invited_by_its_address_accepts_and_plays_with_no_mail_to_it(client, env):
    made = registered(env)
    game = invite(env, made.bot, first=1)
    events = client.get("/api/bot/events", headers=auth(made.token)).json
    assert {"type": "invited", "game": game.public_id, "seat": 1} in events["events"]
    answer = client.post(
        f"/api/bot/games/{game.public_id}/accept",
        json={"entropy": "cd" * 16},
        headers=auth(made.token),
    )
    assert answer.json == {"accepted": True, "dealt": False}
    new_games.accept(env, game.tokens[0], b"y" * 16, access.Client())
    events = client.get("/api/bot/events", headers=auth(made.token)).json
    assert events["events"] == [{"type": "turn", "game": game.public_id, "seat": 1, "n": 1}]
    legal = client.get(f"/api/bot/games/{game.public_id}/legal-moves", headers=auth(made.token))
    played = client.post(
        f"/api/bot/games/{game.public_id}/moves",
        json={"n": 1, "move": legal.json["moves"][0]},
        headers=auth(made.token),
    )
    assert played.status_code == 201, played.text
    seat = client.get(f"/api/bot/games/{game.public_id}/seat", headers=auth(made.token)).json
    assert seat["seat"] == 1 and seat["moves"][0]["n"] == 1 and not seat["your_turn"]
    with env.db.read() as session:
        to_bot = session.scalars(
            select(OutboxMessage).where(OutboxMessage.to_addr.contains("bots.invalid"))
        ).all()
        assert to_bot == []
        to_ann = session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.to_addr == "ann@example.test", OutboxMessage.game_id.is_not(None)
            )
        ).all()
        assert to_ann  # the person is mailed as ever


def test_the_long_poll_waits_and_answers_on_the_opponents_move(client, env, live_server):
    made = registered(env)
    game = dealt(client, env, made, first=0)
    first = client.get("/api/bot/events", headers=auth(made.token)).json
    assert first["events"] == []
    done = queue.Queue()

    def poll():
        request = urllib.request.Request(
            f"{live_server}/api/bot/events?wait=10&after={first['last']}", headers=auth(made.token)
        )
        with urllib.request.urlopen(request, timeout=20) as answer:
            done.put((time.monotonic(), json.load(answer)))

    threading.Thread(target=poll, daemon=True).start()
    time.sleep(0.5)
    legal = game_pages.legal_moves(env, game.tokens[0])
    moved = time.monotonic()
    moves.submit_move(env, game.tokens[0], 1, legal[0], access.Client())
    at, answer = done.get(timeout=15)
    assert at - moved < 1.0
    kinds = [e["type"] for e in answer["events"]]
    assert kinds == ["move", "turn"] and answer["events"][1]["n"] == 2
    assert answer["last"] == answer["events"][0]["id"]


def _stream(url, token, events, last_id=None):
    headers = auth(token)
    if last_id is not None:
        headers["Last-Event-ID"] = str(last_id)
    request = urllib.request.Request(f"{url}/api/bot/stream", headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.headers["Content-Type"].startswith("text/event-stream")
        events.put((time.monotonic(), "open", None))
        kind = None
        for raw in answer:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                events.put((time.monotonic(), kind, json.loads(line[6:])))
            elif line.startswith(": keep-alive"):
                events.put((time.monotonic(), "keep-alive", None))


def test_the_stream_delivers_the_turn_within_a_second_of_the_opponents_move(
    client, env, live_server, monkeypatch
):
    monkeypatch.setattr(bots, "STREAM_SECONDS", 4)
    made = registered(env)
    game = dealt(client, env, made, first=0)
    events = queue.Queue()
    threading.Thread(target=_stream, args=(live_server, made.token, events), daemon=True).start()
    time.sleep(1.0)  # the stream is open, and listening
    legal = game_pages.legal_moves(env, game.tokens[0])
    moved = time.monotonic()
    moves.submit_move(env, game.tokens[0], 1, legal[0], access.Client())
    while True:
        at, kind, data = events.get(timeout=10)
        if kind == "turn":
            break
    assert at - moved < 1.0
    assert data == {"type": "turn", "game": game.public_id, "seat": 1, "n": 2}


def test_the_stream_tells_the_moves_since_last_event_id_and_what_waits(
    client, env, live_server, monkeypatch
):
    from pbem.web import bot_api

    monkeypatch.setattr(bot_api, "KEEPALIVE", 0.3)
    monkeypatch.setattr(bots, "STREAM_SECONDS", 4)
    made = registered(env)
    game = dealt(client, env, made, first=0)
    legal = game_pages.legal_moves(env, game.tokens[0])
    moves.submit_move(env, game.tokens[0], 1, legal[0], access.Client())
    events = queue.Queue()
    threading.Thread(target=_stream, args=(live_server, made.token, events, 0), daemon=True).start()
    assert events.get(timeout=10)[1] == "open"
    told = [events.get(timeout=10)[1:] for _ in range(2)]
    assert [kind for kind, _ in told] == ["move", "turn"]
    assert told[0][1]["n"] == 1 and told[0][1]["mine"] is False
    # on one connection the turn is told once: only keep-alives follow while it waits
    later = [events.get(timeout=10)[1] for _ in range(2)]
    assert later == ["keep-alive", "keep-alive"]


def test_a_stream_ends_after_its_lifetime_with_keep_alives(client, env, live_server, monkeypatch):
    from pbem.web import bot_api

    made = registered(env)
    monkeypatch.setattr(bots, "STREAM_SECONDS", 1.5)
    monkeypatch.setattr(bot_api, "KEEPALIVE", 0.5)
    events = queue.Queue()
    thread = threading.Thread(target=_stream, args=(live_server, made.token, events))
    thread.start()
    thread.join(10)
    assert not thread.is_alive()  # the server closed it
    kinds = []
    while not events.empty():
        kinds.append(events.get()[1])
    assert "keep-alive" in kinds


#: The badge after a bot's name, in each language the site speaks.
BADGES = {"en": "Robo (bot)", "el": "(ρομπότ)", "fa": "(ربات)", "uk": "(бот)", "zh": "（机器人）"}


@pytest.mark.parametrize("language", sorted(BADGES))
def test_the_bot_badge_shows_in_each_language(client, env, language):
    made = registered(env, "Robo")
    game = dealt(client, env, made)
    pages = [
        client.get(f"/g/{game.public_id}?lang={language}"),
        client.get(f"/s/{game.tokens[0]}?lang={language}"),
        client.get(f"/p/{made.bot.public_id}?lang={language}"),
    ]
    for page in pages:
        assert page.status_code == 200
        assert BADGES[language] in page.text, (page.request.path, language)


def test_the_opponents_mail_and_the_replay_mark_the_bot(client, env):
    made = registered(env, "Robo")
    game = dealt(client, env, made)
    with env.db.read() as session:
        mails = session.scalars(
            select(OutboxMessage).where(OutboxMessage.to_addr == "ann@example.test")
        ).all()
        written = [m for m in mails if m.text_body and game.public_id in (m.text_body or "")]
    assert written and all("Robo (bot)" in m.text_body for m in written)
    legal = game_pages.legal_moves(env, game.tokens[0])
    moves.submit_move(env, game.tokens[0], 1, legal[0], access.Client())
    replay = client.get(f"/s/{game.tokens[0]}/replay")
    assert replay.status_code == 200 and "Robo (bot)" in replay.text


def test_a_game_with_a_bot_is_not_rated(client, env):
    from tests.support import play_random

    made = registered(env)
    game = dealt(client, env, made)
    with env.db.read() as session:
        before = session.scalars(
            select(Player.rated_games).where(Player.email == "ann@example.test")
        ).one()
    play_random(env, game.public_id)
    with env.db.read() as session:
        row = session.scalars(select(Game).where(Game.public_id == game.public_id)).one()
        assert row.status == "finished" and row.rated_at is not None  # counted, as unrated
        ann = session.scalars(select(Player).where(Player.email == "ann@example.test")).one()
        bot = session.get(Player, made.bot.id)
        assert ann.rated_games == before and bot.rated_games == 0 and bot.rating_mu is None
    assert made.bot.public_id not in client.get("/ratings").text


def test_a_bot_has_a_persons_challenge_limit(client, env):
    env.config = env.config.with_(limits=Limits(challenges_per_client="2 per hour"))
    made = registered(env)
    posted = []
    for _ in range(2):
        answer = client.post("/api/bot/challenges", json={}, headers=auth(made.token))
        assert answer.status_code == 201, answer.text
        posted.append(answer.json["challenge"])
    refused = client.post("/api/bot/challenges", json={}, headers=auth(made.token))
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert client.get("/api/bot/challenges", headers=auth(made.token)).json["challenges"]
    withdrawn(env, made, posted)


def withdrawn(env, made, posted):
    """The bot's open challenges withdrawn: the shared list other tests read stays theirs."""
    from pbem.services.play import challenges

    for challenge in posted:
        challenges.withdraw(env, challenge, made.bot.id)


def test_a_bot_takes_an_open_challenge_and_is_told_to_accept(client, env):
    from pbem.services.play import challenges

    made = registered(env)
    owner = person(env, "Cleo")
    challenge = challenges.post(env, owner, days_per_move=3, starter="random", note=None)
    taken = client.post(f"/api/bot/challenges/{challenge}/accept", headers=auth(made.token))
    assert taken.status_code == 201
    events = client.get("/api/bot/events", headers=auth(made.token)).json["events"]
    assert {"type": "invited", "game": taken.json["game"], "seat": 1} in events


@pytest.mark.slow
def test_the_example_bot_plays_a_whole_game(client, env, live_server):
    """examples/bot.py, as a subprocess, against the live server, until the game ends."""
    made = registered(env)
    game = invite(env, made.bot, first=None)
    bot = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "bot.py")],
        env={**os.environ, "PBEM_URL": live_server, "PBEM_BOT_TOKEN": made.token},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        new_games.accept(env, game.tokens[0], b"z" * 16, access.Client())
        end = time.monotonic() + 240
        rnd = __import__("random").Random(5)
        while time.monotonic() < end:
            with env.db.read() as session:
                row = session.scalars(select(Game).where(Game.public_id == game.public_id)).one()
                status = row.status
            if status == "finished":
                break
            legal = game_pages.legal_moves(env, game.tokens[0]) if status != "waiting" else []
            if legal:
                n = len(game_pages.public_page(env, game.public_id).entries) + 1
                moves.submit_move(env, game.tokens[0], n, rnd.choice(legal), access.Client())
            else:
                time.sleep(0.05)
        out, err = bot.communicate(timeout=60)
    finally:
        bot.kill()
    assert status == "finished", err
    assert bot.returncode == 0, err
    assert f"game over: {game.public_id}" in out
    page = game_pages.public_page(env, game.public_id)
    assert any(e.seat == 1 for e in page.entries)  # the bot played


DOC = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")


def test_the_docs_carry_the_example_bot_as_it_is_and_name_only_real_routes(app):
    example = (ROOT / "examples" / "bot.py").read_text(encoding="utf-8")
    assert f"```python\n{example}```" in DOC
    rules = {r.rule for r in app.url_map.iter_rules()}
    named = set(re.findall(r"`(?:GET|POST) (/api/bot/[^`?]*)", DOC))
    assert named, "the doc names the endpoints"
    for path in named:
        pattern = re.sub(r"<[^>]+>", "<x>", path)
        assert any(re.sub(r"<[^>]+>", "<x>", r) == pattern for r in rules), path
    assert len(example.splitlines()) <= 70  # "about 50 lines"


def test_a_person_holds_at_most_five_bots_and_a_bot_registers_none(env):
    owner = person(env)
    made = [bots.register(env, owner, f"R{i}") for i in range(bots.MAX_BOTS)]
    with pytest.raises(errors.NotAllowed):
        bots.register(env, owner, "One more")
    with pytest.raises(errors.NotAllowed):
        bots.register(env, made[0].bot.id, "Bot's bot")
    assert "at most 5 bots" in DOC and bots.MAX_BOTS == 5


def test_registering_counts_against_the_owners_limit(env):
    env.config = env.config.with_(limits=Limits(challenges_per_client="1 per hour"))
    owner = person(env)
    bots.register(env, owner, "First", access.Client(ip="10.9.9.9"))
    with pytest.raises(errors.RateLimited):
        bots.register(env, owner, "Second", access.Client(ip="10.9.9.9"))


def test_the_open_challenges_mark_a_bots_challenge(client, env):
    made = registered(env, "Chally")
    posted = client.post("/api/bot/challenges", json={}, headers=auth(made.token))
    assert posted.status_code == 201
    page = client.get("/challenges?lang=uk")
    withdrawn(env, made, [posted.json["challenge"]])
    assert "Chally (бот)" in page.text


def test_my_games_marks_the_bot_opponent(client, env):
    made = registered(env, "Robo")
    owner_mail = f"me{next(_n)}@example.test"
    sign_in(client, env, owner_mail)
    new_games.create_game(
        env,
        (
            new_games.PlayerIn("Me", owner_mail, "en", "UTC"),
            new_games.PlayerIn("Robo", made.bot.address, "en", "UTC"),
        ),
        await_players=True,
    )
    assert "vs Robo (bot)" in client.get("/me").text


def test_the_docs_state_the_streams_own_numbers():
    from pbem.web import bot_api

    assert bot_api.KEEPALIVE == 15 and "every 15 seconds" in DOC
    assert bots.STREAM_SECONDS == 5 * 60 and "A stream lasts 5\nminutes" in DOC
    assert bots.MAX_WAIT == 30 and "wait=<0..30>" in DOC


def test_erasing_the_owner_revokes_the_bots_tokens(client, env):
    from pbem.services.accounts import erasure

    owner = person(env)
    made = bots.register(env, owner, "Orphan")
    erasure.erase(env, owner, access.Client())
    assert client.get("/api/bot/account", headers=auth(made.token)).status_code == 403
    assert "Erasing your account revokes your bots' tokens" in DOC


def test_revoking_the_token_ends_an_open_stream(client, env, live_server, monkeypatch):
    from pbem.web import bot_api

    monkeypatch.setattr(bot_api, "KEEPALIVE", 0.3)
    made = registered(env)
    events = queue.Queue()
    thread = threading.Thread(target=_stream, args=(live_server, made.token, events))
    thread.start()
    time.sleep(0.5)
    bots.revoke(env, _owner(env, made), made.bot.public_id)
    thread.join(5)
    assert not thread.is_alive()


def test_waiting_requests_beyond_the_process_slots_are_told_to_retry(client, env, live_server):
    env.config = env.config.with_(bot_waits=1)
    made = registered(env)
    events = queue.Queue()
    thread = threading.Thread(target=_stream, args=(live_server, made.token, events), daemon=True)
    thread.start()
    assert events.get(timeout=10)[1] == "open"  # the stream holds the process's one slot
    busy = client.get("/api/bot/events?wait=1", headers=auth(made.token))
    assert busy.status_code == 429 and busy.headers["Retry-After"] == "5"
    assert client.get("/api/bot/stream", headers=auth(made.token)).status_code == 429
    at_once = client.get("/api/bot/events?wait=0", headers=auth(made.token))
    assert at_once.status_code == 200  # holds no slot
    assert "`PBEM_BOT_WAITS`" in DOC and "429 with `Retry-After: 5`" in DOC


def test_a_bot_token_is_masked_in_every_log_line():
    from pbem.redact import MASK, redact

    for _ in range(50):
        token = bots.new_token()
        assert token not in redact(f"refused {token} and {token[5:]}")
        assert redact(f"got {token}").endswith(MASK)


def test_the_home_page_invites_a_bot_by_its_address(client, env):
    made = registered(env, "Robo")
    page = client.get("/")
    answer = client.post(
        "/",
        data={
            "csrf_token": csrf_of(page.text),
            "my_name": "Dee",
            "my_email": "dee@example.test",
            "their_name": "Robo",
            "their_email": made.bot.address,
        },
    )
    assert answer.status_code == 303, answer.text
    events = client.get("/api/bot/events", headers=auth(made.token)).json["events"]
    assert [e["type"] for e in events] == ["invited"]
    assert "anyone starts a game on the home page with the bot's address" in DOC
