"""Erasure that is true (issue 31): after ``/me/erase`` the player's name and addresses are
in no table of the database, mails held back by an outage go out without them, and every
record still verifies and the ratings still rebuild.

The search reflects the database itself (every table, every column, whatever a later
migration adds) and looks for the name and each address in every value, on SQLite and
PostgreSQL alike.
"""

from __future__ import annotations

from sqlalchemy import MetaData, select

from pbem.mail.delivery import BACKOFF, SmtpBackend
from pbem.services.accounts import address_change
from pbem.services.core import access
from pbem.services.core.identity import player_for
from pbem.services.events import entries, lifecycle
from pbem.services.play import game_pages, moves, new_games, ratings
from pbem.services.records import game_records
from pbem.services.scheduled import jobs
from pbem.store.models import OutboxMessage, Player
from tests.helpers import csrf_of, past_the_hold
from tests.mail.play import play, to_move, token
from tests.web.test_players import SIGN_IN, fresh_ip, sign_in, sign_in_mail

NAME = "Zenobia Quill"
OLD = "zq.first@example.test"
EMAIL = "Zenobia.Quill@Example.test"
SENDER = f"email from {NAME} <{EMAIL.lower()}>"
#: What must be nowhere after erasure: her name, a part of it, each address and its local
#: part (the name an account gets when it signs up by mail).
TRACES = [NAME, "Zenobia", OLD, EMAIL, "zq.first", "zenobia.quill"]


def deliver_all(env) -> int:
    sent = 0
    while n := jobs.deliver_mail(env, SmtpBackend(env.config), limit=10_000):
        sent += n
    return sent


def found_anywhere(engine, needles: list[str]) -> list[str]:
    """Every ``table.column`` (of the database as it is, reflected) holding one of the
    needles in any case, with the row's value."""
    metadata = MetaData()
    metadata.reflect(engine)
    folded = [n.casefold() for n in needles]
    hits = []
    with engine.connect() as c:
        for table in metadata.sorted_tables:
            for row in c.execute(select(table)):
                for column, value in row._mapping.items():
                    text = str(value).casefold() if value is not None else ""
                    hits += [f"{table.name}.{column}: {value!r}" for n in folded if n in text]
    return hits


def _new_game(env, first: int = 0, email: str = OLD) -> str:
    return new_games.create_game(
        env,
        (new_games.PlayerIn(NAME, email), new_games.PlayerIn("Bo", "bo@example.test")),
        first_player=first,
    ).public_id


def _signed_up(env, client) -> int:
    """Zenobia signs in (from her first address), then moves to her second one."""
    sign_in(client, env, OLD)
    with env.db.read() as session:
        player = session.scalars(select(Player).where(Player.email == OLD)).one()
    address_change.request_email_change(env, player.id, EMAIL, access.Client(ip="198.51.100.7"))
    link = SIGN_IN.search(sign_in_mail(env, EMAIL.lower())[-1].text_body).group(1)
    confirm = client.get(link)
    client.post(link, data={"csrf_token": csrf_of(confirm.text)}, environ_base=fresh_ip())
    with env.db.read() as session:
        assert session.get(Player, player.id).email == EMAIL.lower()
    return player.id


def test_after_erasure_no_table_holds_the_name_or_an_address(smtp_env, smtp_server, client):
    env = smtp_env
    finished, running = _new_game(env), _new_game(env)
    zenobia = _signed_up(env, client)
    # an event she joined, which has not started: its list of players names her
    with env.db.write() as session:
        organiser = player_for(session, "organiser@example.test", "Org", env.clock.now()).id
    spec = lifecycle.EventSpec(name="Spring cup", max_players=4)
    event = lifecycle.create(env, organiser, spec).public_id
    entries.join(env, event, zenobia)
    # her uses of her link, one of them a move mailed in (its user agent is her address)
    mine = token(env, running, 0)
    moves.submit_move(
        env, mine, 1, game_pages.legal_moves(env, mine)[0], access.Client("203.0.113.7", SENDER)
    )
    play(env, running, 1)
    play(env, finished, 6)
    last = to_move(env, finished)
    moves.submit_move(env, token(env, finished, last), 7, "resign", access.Client())
    assert game_pages.public_page(env, finished).game.status == "finished"
    assert deliver_all(env) > 0
    # the relay goes down: her next move's mail to Bo is written, fails and waits
    smtp_server.stop()
    mine = token(env, running, 0)
    moves.submit_move(
        env, mine, 3, game_pages.legal_moves(env, mine)[0], access.Client("203.0.113.7")
    )
    third = _new_game(env, email=EMAIL)  # its invitations wait too: Bo's names her
    env.clock.advance(hours=25)
    assert jobs.run_clock(env).reminders  # Bo's reminder in the running game names her
    assert deliver_all(env) == 0
    with env.db.read() as session:
        held = session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.status == "pending", OutboxMessage.to_addr == "bo@example.test"
            )
        ).all()
    assert {r.kind for r in held} >= {"invitation", "your_turn", "reminder"}
    assert all(NAME in (r.subject or "") for r in held)
    assert found_anywhere(env.db.engine, [NAME, OLD, EMAIL])  # the search finds what is there
    before = {p: load(env, p) for p in (finished, running)}

    page = client.get("/me")
    done = client.post("/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": "erase"})
    assert "Your account is erased" in done.text

    smtp_server.start()
    env.clock.advance(seconds=BACKOFF[-1].total_seconds() + 1)
    start = len(smtp_server.received)
    jobs.run_clock(env)  # the reminder dropped with her name is queued again
    assert deliver_all(env) >= len(held)
    after_outage = smtp_server.received[start:]
    assert after_outage and all(
        m["To"].addresses[0].addr_spec == "bo@example.test" for m in after_outage
    )
    for message in after_outage:
        whole = message.as_string()
        assert NAME not in whole and "Erased player" in whole
    kinds = {m["Subject"].split(" — ")[-1].split(" (")[0] for m in after_outage}
    assert {"a new game", "your turn", "reminder: your move"} <= kinds, kinds
    assert third in " ".join(m.as_string() for m in after_outage)
    assert found_anywhere(env.db.engine, TRACES) == []
    for public_id in (finished, running):
        assert game_records.verify_game(env, public_id).ok
        assert [m["hash"] for m in load(env, public_id)["moves"]] == [
            m["hash"] for m in before[public_id]["moves"]
        ]
    ratings.rebuild(env)
    # Bo plays on: his mails name the label, and none goes to her placeholder address
    play(env, running, 2)
    past_the_hold(env)
    assert deliver_all(env) >= 1
    assert found_anywhere(env.db.engine, TRACES) == []
    assert to_move(env, running) is not None


def load(env, public_id: str) -> dict:
    return game_records.operator_record(env, public_id)


def test_the_sent_mails_to_an_erased_player_keep_their_id_kind_and_time(smtp_env, client):
    env = smtp_env
    public_id = _new_game(env)
    play(env, public_id, 2)
    player_id = _signed_up(env, client)
    past_the_hold(env)
    deliver_all(env)
    with env.db.read() as session:
        sent = {
            r.message_id: (r.kind, r.sent_at, r.chain_hash)
            for r in session.scalars(
                select(OutboxMessage).where(OutboxMessage.game_id.is_not(None))
            )
            if r.status == "sent" and r.to_addr in (OLD, EMAIL.lower())
        }
    assert sent and any(h for _, _, h in sent.values())
    page = client.get("/me")
    client.post("/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": "erase"})
    with env.db.read() as session:
        public = session.get(Player, player_id).public_id
        rows = session.scalars(
            select(OutboxMessage).where(OutboxMessage.message_id.in_(list(sent)))
        ).all()
    assert {r.message_id: (r.kind, r.sent_at, r.chain_hash) for r in rows} == sent
    for r in rows:
        assert r.to_addr == f"erased-{public}@invalid" and r.to_name.startswith("Erased player")
        assert r.text_body is r.html_body is r.subject is None and r.pruned_at is not None


def test_an_address_asked_for_and_never_confirmed_stays_its_owners(smtp_env, client, app):
    """Zenobia asked to move to an address she never confirmed, which Olga then signed up
    with: the confirmation mail that named Zenobia keeps no words, and Olga keeps her
    address, her links and her mails."""
    env = smtp_env
    olga = "olga@example.test"
    player_id = _signed_up(env, client)
    address_change.request_email_change(env, player_id, olga, access.Client(ip="198.51.100.8"))
    other = app.test_client()
    sign_in(other, env, olga)
    deliver_all(env)
    page = client.get("/me")
    client.post("/me/erase", data={"csrf_token": csrf_of(page.text), "confirm": "erase"})
    assert found_anywhere(env.db.engine, TRACES) == []
    with env.db.read() as session:
        assert session.scalars(select(Player).where(Player.email == olga)).one()
        to_olga = session.scalars(select(OutboxMessage).where(OutboxMessage.to_addr == olga)).all()
    kinds = {r.kind: r for r in to_olga}
    assert kinds["sign_in"].text_body and kinds["sign_in"].pruned_at is None
    assert kinds["change_email"].text_body is None
    assert kinds["change_email"].to_name.startswith("Erased player")
    assert other.get("/me").status_code == 200  # Olga is still signed in
