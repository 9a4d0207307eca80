"""Players: sign-in links, my games, challenges, rematches, ratings, erasure."""

from __future__ import annotations

import re
import threading

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from pbem.engine import load_record, verify
from pbem.services.core import access, errors, identity
from pbem.services.play import challenges, game_pages, new_games, ratings
from pbem.services.records import game_records
from pbem.store.models import Game, Player, Seat, SignInLink
from tests.helpers import csrf_of
from tests.mail.play import new_game, token
from tests.support import play_random

SIGN_IN = re.compile(r"http://pbem\.test(/signin/[A-Za-z0-9_\-]+)")


def sign_in_mail(env, email):
    from pbem.store.models import OutboxMessage

    with env.db.read() as session:
        rows = session.scalars(
            select(OutboxMessage)
            .where(
                OutboxMessage.to_addr == email, OutboxMessage.kind.in_(("sign_in", "change_email"))
            )
            .order_by(OutboxMessage.id)
        ).all()
    return rows


_ips = iter(f"10.{i // 250}.{i % 250}.1" for i in range(1, 60000))


def fresh_ip() -> dict[str, str]:
    """Each sign-in from its own address: the per-address limit holds across tests."""
    return {"REMOTE_ADDR": next(_ips)}


def sign_in(client, env, email: str) -> None:
    page = client.get("/signin")
    answer = client.post(
        "/signin", data={"csrf_token": csrf_of(page.text), "email": email}, environ_base=fresh_ip()
    )
    assert "a sign-in link is on its way" in answer.text
    link = SIGN_IN.search(sign_in_mail(env, email.casefold())[-1].text_body).group(1)
    confirm = client.get(link)
    assert confirm.status_code == 200 and "Sign in as" in confirm.text
    done = client.post(link, data={"csrf_token": csrf_of(confirm.text)})
    assert done.status_code == 303 and done.headers["Location"].endswith("/me")


def test_a_sign_in_link_works_once_and_expires(client, env):
    email = "once@example.test"
    page = client.get("/signin")
    client.post(
        "/signin", data={"csrf_token": csrf_of(page.text), "email": email}, environ_base=fresh_ip()
    )
    link = SIGN_IN.search(sign_in_mail(env, email)[-1].text_body).group(1)
    assert client.get(link).status_code == 200  # GET shows it, and uses nothing
    assert client.get(link).status_code == 200
    confirm = client.get(link)
    assert client.post(link, data={"csrf_token": csrf_of(confirm.text)}).status_code == 303
    page = client.get("/signin")  # signing in starts a new session, with a new CSRF token
    again = client.post(link, data={"csrf_token": csrf_of(page.text)})
    assert again.status_code == 403 and "not valid any more" in again.text
    assert client.get(link + "x").status_code == 403  # tampered
    client.post(
        "/signin", data={"csrf_token": csrf_of(page.text), "email": email}, environ_base=fresh_ip()
    )
    late = SIGN_IN.search(sign_in_mail(env, email)[-1].text_body).group(1)
    env.clock.advance(minutes=31)
    assert client.get(late).status_code == 403
    with env.db.read() as session:  # only hashes are stored
        stored = session.scalars(select(SignInLink.token_hash)).all()
    assert late.split("/")[-1] not in stored


def test_the_same_answer_whether_or_not_the_address_is_known_and_a_rate_limit(client, env):
    page = client.get("/signin")
    csrf = csrf_of(page.text)
    known = client.post(
        "/signin", data={"csrf_token": csrf, "email": "ada@example.test"}, environ_base=fresh_ip()
    )
    unknown = client.post(
        "/signin",
        data={"csrf_token": csrf, "email": "nobody@example.test"},
        environ_base=fresh_ip(),
    )
    assert known.text.split("<main>")[1] == unknown.text.split("<main>")[1]
    one_ip = fresh_ip()
    statuses = [
        client.post(
            "/signin", data={"csrf_token": csrf, "email": "x@example.test"}, environ_base=one_ip
        ).status_code
        for _ in range(8)
    ]
    assert statuses[-1] == 429


def test_my_games_lists_every_game_of_the_address_in_order(client, env):
    mine = "three@example.test"
    ids = [
        new_games.create_game(
            env,
            (new_games.PlayerIn("Me", mine), new_games.PlayerIn(f"Op{i}", f"op{i}@example.test")),
            first_player=first,
        ).public_id
        for i, first in enumerate((0, 1, 0))
    ]
    play_random(env, ids[2])  # finished
    sign_in(client, env, mine.upper())  # the address is the same in any case
    page = client.get("/me")
    assert page.status_code == 200
    body = page.text
    order = [body.index(f"vs Op{i}") for i in (0, 1, 2)]
    assert order[0] < order[1] < order[2]  # my move, then theirs, then finished
    assert "Your move (1)" in body and "Waiting for your opponent (1)" in body
    assert "Finished (1)" in body
    seat_link = re.search(r'href="(http://pbem\.test/s/[^"]+)">vs Op0', body).group(1)
    assert client.get(seat_link.replace("http://pbem.test", "")).status_code == 200


def test_waiting_and_frozen_games_are_listed_as_such(client, env):
    """A game not dealt yet says who must accept; a game whose log does not verify says so
    and is not among the finished ones, on "my games"; the public page says "waiting"."""
    mine = "lists@example.test"
    waiting = new_games.create_game(
        env,
        (new_games.PlayerIn("Me", mine), new_games.PlayerIn("Op0", "wop@example.test")),
        await_players=True,
    ).public_id
    frozen = new_games.create_game(
        env, (new_games.PlayerIn("Me", mine), new_games.PlayerIn("Op1", "fop@example.test"))
    ).public_id
    play_random(env, frozen, 2)
    with env.db.write() as session:
        game = session.scalars(select(Game).where(Game.public_id == frozen)).one()
        game.integrity_error = "chain: move 2 altered"
    sign_in(client, env, mine)
    body = client.get("/me").text
    assert "waiting for you to accept" in body
    assert "frozen: its stored log does not verify" in body
    assert "Finished (0)" in body
    with env.db.read() as session:
        pid = session.scalars(select(Player.public_id).where(Player.email == mine)).one()
    public = client.get(f"/p/{pid}").text
    assert "waiting for the players to accept" in public and "in progress" in public
    assert waiting not in public.split("Running games")[0]  # not among the finished


def test_sign_out_everywhere_ends_every_session(app, env):
    a, b = app.test_client(), app.test_client()
    for c in (a, b):
        sign_in(c, env, "two@example.test")
        assert c.get("/me").status_code == 200
    page = a.get("/me")
    a.post("/signout-everywhere", data={"csrf_token": csrf_of(page.text)})
    assert b.get("/me").status_code == 403


def test_changing_the_address_moves_the_seats(client, env):
    old, new = "old@example.test", "new@example.test"
    public_id = new_games.create_game(
        env, (new_games.PlayerIn("Me", old), new_games.PlayerIn("Op", "op@example.test"))
    ).public_id
    sign_in(client, env, old)
    page = client.get("/me")
    client.post("/me/email", data={"csrf_token": csrf_of(page.text), "email": new})
    link = SIGN_IN.search(sign_in_mail(env, new)[-1].text_body).group(1)
    confirm = client.get(link)
    assert "Confirm your new address" in confirm.text
    client.post(link, data={"csrf_token": csrf_of(confirm.text)})
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == public_id)).one()
        assert game.seats[0].email == new


def _player_id(env, email):
    with env.db.read() as session:
        return session.scalars(select(Player.id).where(Player.email == email)).one()


def test_accepting_a_challenge_twice_at_once_creates_one_game(env):
    now = env.clock.now()
    with env.db.write() as session:
        for e in ("poster@example.test", "a1@example.test", "a2@example.test"):
            identity.player_for(session, e, e.split("@")[0], now)
    challenge = challenges.post(
        env,
        _player_id(env, "poster@example.test"),
        days_per_move=2,
        starter="challenger",
        note="fun",
    )
    results: list[object] = []
    barrier = threading.Barrier(2)

    def take(email: str) -> None:
        barrier.wait()
        try:
            results.append(challenges.accept(env, challenge, _player_id(env, email), None))
        except errors.WrongState as exc:
            results.append(exc)

    threads = [
        threading.Thread(target=take, args=(e,)) for e in ("a1@example.test", "a2@example.test")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    made = [r for r in results if isinstance(r, str)]
    assert len(made) == 1 and len(results) == 2
    page = game_pages.public_page(env, made[0])
    assert page.game.names[0] == "poster" and page.view is None  # waiting for both to accept
    assert all(c.public_id != challenge for c in challenges.open_list(env, None))


def test_a_rematch_swaps_the_starter_and_is_made_once(client, env):
    public_id = new_game(env, first=0)
    play_random(env, public_id)
    t0, t1 = game_pages.seat_tokens(env, public_id)
    first = load_record(game_records.operator_record(env, public_id)).first_player
    again = challenges.rematch(env, t0, None, access.Client())
    assert challenges.rematch(env, t1, None, access.Client()) == again  # one rematch per game
    for t in game_pages.seat_tokens(env, again):
        new_games.accept(env, t, b"r" * 32, access.Client())
    assert game_pages.public_page(env, again).view.table.to_move == 1 - first
    assert load_record(game_records.operator_record(env, again)).first_player == 1 - first
    link = f"/s/{t0}"
    page = client.get(link)
    assert "Rematch" in page.text
    with pytest.raises(errors.InvalidInput):
        challenges.rematch(env, game_pages.seat_tokens(env, again)[0], None, access.Client())


@pytest.mark.slow  # four whole matches, then a rebuild of every rating of the run
def test_ratings_rebuilt_from_the_finished_games_equal_the_incremental_ones(env):
    emails = ["r1@example.test", "r2@example.test", "r3@example.test"]
    pairs = [(0, 1), (1, 2), (0, 2), (2, 0)]
    for i, (a, b) in enumerate(pairs):
        public_id = new_games.create_game(
            env, (new_games.PlayerIn(f"P{a}", emails[a]), new_games.PlayerIn(f"P{b}", emails[b]))
        ).public_id
        play_random(env, public_id, seed=i)
        env.clock.advance(minutes=5)

    def snapshot():
        with env.db.read() as session:
            rows = session.scalars(select(Player).where(Player.email.in_(emails))).all()
            return {p.email: (p.rating_mu, p.rating_sigma, p.rated_games) for p in rows}

    incremental = snapshot()
    assert all(v[2] >= 2 for v in incremental.values())
    ratings.rebuild(env)
    rebuilt = snapshot()
    for email in emails:
        assert rebuilt[email][:2] == pytest.approx(incremental[email][:2])
        assert rebuilt[email][2] == incremental[email][2]
    table = ratings.table(env)
    assert table and table[0].ordinal >= table[-1].ordinal
    from pbem.cli import main

    result = CliRunner().invoke(
        main,
        ["ratings", "rebuild"],
        env={
            "PBEM_DATABASE_URL": env.config.database_url,
            "PBEM_INSTANCE_PATH": str(env.config.instance_path),
        },
    )
    assert result.exit_code == 0 and "ratings rebuilt" in result.output
    again = snapshot()
    for email in emails:  # the command rebuilds to the same numbers
        assert again[email][:2] == pytest.approx(rebuilt[email][:2])


def test_erasing_an_account_keeps_every_record_verifying(client, env):
    email = "leaving@example.test"
    public_id = new_games.create_game(
        env,
        (new_games.PlayerIn("Leaving", email), new_games.PlayerIn("Staying", "stay@example.test")),
    ).public_id
    play_random(env, public_id)
    running = new_games.create_game(
        env,
        (new_games.PlayerIn("Leaving", email), new_games.PlayerIn("Staying", "stay@example.test")),
    ).public_id
    before = load_record(game_records.operator_record(env, public_id))
    sign_in(client, env, email)
    page = client.get("/me")
    refused = client.post("/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": "no"})
    assert refused.status_code == 400
    done = client.post("/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": "erase"})
    assert "Your account is erased" in done.text
    after = load_record(game_records.operator_record(env, public_id))
    assert [m.hash for m in after.moves] == [m.hash for m in before.moves]
    assert verify(after).ok
    names = [p["name"] for p in after.to_json()["players"]]
    assert "Leaving" not in names and any(n.startswith("Erased player") for n in names)
    dump = str(game_records.operator_record(env, running))
    assert email not in dump and "Leaving" not in dump
    assert client.get("/me").status_code == 403


@pytest.mark.parametrize(("language", "word"), [("fa", "پاک"), ("zh", "删除")])
def test_erasing_is_confirmed_with_the_readers_own_word(client, env, language, word):
    """The page asks for the word in the reader's language, and takes it (or "erase")."""
    email = f"leaving-{language}@example.test"
    new_games.create_game(
        env,
        (
            new_games.PlayerIn("Leaving", email, language),
            new_games.PlayerIn("Bo", "bo@example.test"),
        ),
    )
    sign_in(client, env, email)
    page = client.get(f"/me?lang={language}")
    assert f"<b>{word}</b>" in page.text and "<b>erase</b>" not in page.text
    refused = client.post("/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": "no"})
    assert refused.status_code == 400 and word in refused.text
    assert "erase" not in re.sub(r"<[^>]+>", " ", refused.text.split("<main", 1)[1])
    done = client.post("/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": f" {word} "})
    assert done.status_code == 200 and "/me/erase" not in done.text


def test_erasing_takes_the_english_word_on_any_page(client, env):
    email = "leaving-en@example.test"
    new_games.create_game(
        env,
        (new_games.PlayerIn("Leaving", email, "uk"), new_games.PlayerIn("Bo", "bo@example.test")),
    )
    sign_in(client, env, email)
    page = client.get("/me?lang=uk")
    done = client.post("/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": "Erase"})
    assert done.status_code == 200 and "/me/erase" not in done.text


def test_a_players_public_page_shows_nothing_a_seat_may_not_see(client, env):
    email = "public@example.test"
    running = new_game(env)
    with env.db.write() as session:
        seat = session.scalars(
            select(Seat).join(Game).where(Game.public_id == running, Seat.seat == 0)
        ).one()
        seat.email = email
    play_random(env, running, 6)
    with env.db.read() as session:
        pid = session.scalars(select(Player.public_id).where(Player.email == email)).first()
    if pid is None:
        with env.db.write() as session:
            pid = identity.player_for(session, email, "Public", env.clock.now()).public_id
    page = client.get(f"/p/{pid}")
    assert page.status_code == 200
    record = load_record(game_records.operator_record(env, running))
    assert "/s/" not in page.text  # no seat link
    assert record.seed not in page.text
    assert record.moves[-1].move not in page.text  # not even the last move of a running game
    assert client.get("/p/nobody").status_code == 404
    assert client.get("/ratings").status_code == 200


def test_challenges_page_and_posting(client, env):
    assert "Sign in</a> to post" in client.get("/challenges").text
    sign_in(client, env, "poster2@example.test")
    page = client.get("/challenges")
    posted = client.post(
        "/challenges",
        data={
            "csrf_token": csrf_of(page.text),
            "days_per_move": "2",
            "starter": "random",
            "note": "friendly",
        },
    )
    assert posted.status_code == 303
    listing = client.get("/challenges").text
    assert "friendly" in listing and "Withdraw" in listing
    # this poster's own challenge: other tests may have left theirs in the list
    challenge_id = re.search(r"/challenges/(\w+)/withdraw", listing).group(1)
    other = client.application.test_client()
    sign_in(other, env, "taker@example.test")
    listing = other.get("/challenges").text
    assert f"/challenges/{challenge_id}/accept" in listing
    taken = other.post(
        f"/challenges/{challenge_id}/accept",
        data={"csrf_token": csrf_of(listing), "entropy": "ab" * 32},
    )
    assert taken.status_code == 303
    game_id = taken.headers["Location"].split("/")[2]
    assert game_pages.public_page(env, game_id).game.names == ("poster2", "taker")
    assert token(env, game_id, 0)


def test_my_games_speak_the_accounts_language_unless_the_url_asks_another(client, env):
    """A player whose only seat is Greek reads "my games" in Greek from a browser that
    sends no Accept-Language; ``?lang=`` still switches that one view."""
    email = "only-greek@example.test"
    new_games.create_game(
        env,
        (
            new_games.PlayerIn("Ελένη", email, "el", "Europe/Athens"),
            new_games.PlayerIn("Bo", "bo-of-greek@example.test", "en", "UTC"),
        ),
        first_player=0,
    )
    sign_in(client, env, email)
    assert '<html lang="el"' in client.get("/me").text
    assert '<html lang="el"' in client.get("/me", headers={"Accept-Language": "en"}).text
    assert '<html lang="en"' in client.get("/me?lang=en").text
