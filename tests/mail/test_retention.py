"""Retention (issue 31): the scheduler's ``retention`` job prunes sent mails' words after
``PBEM_RETENTION_MAIL_DAYS`` and reduces clients after ``PBEM_RETENTION_CLIENT_DAYS``, in
small batches, idempotently; and what the other seat and the public see of a player's
uses of their link is that same reduction, whatever the row's age."""

from __future__ import annotations

from sqlalchemy import select

from pbem.services.core import access
from pbem.services.core.privacy import browser_family, mask_ip
from pbem.services.play import game_pages, moves
from pbem.services.records import audit
from pbem.services.scheduled import jobs, retention
from pbem.store.models import AccessLog, OutboxMessage, SignInLink
from tests.helpers import past_the_hold
from tests.mail.play import new_game, play, to_move, token
from tests.web.test_players import sign_in

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
SAFARI = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
)
CLIENTS = (access.Client("203.0.113.7", FIREFOX), access.Client("2001:db8:1:2::7", SAFARI))


def _sent(env, public_id: str) -> list[OutboxMessage]:
    while jobs.deliver_mail(env, _Null(), limit=10_000):
        pass
    game_id = _game_id(env, public_id)
    with env.db.read() as session:
        return list(
            session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.game_id == game_id)
                .order_by(OutboxMessage.id)
            )
        )


def _game_id(env, public_id: str) -> int:
    from pbem.store.models import Game

    with env.db.read() as session:
        return session.scalars(select(Game.id).where(Game.public_id == public_id)).one()


class _Null:
    def send(self, message, sender=None) -> None:
        pass

    def close(self) -> None:
        pass


def test_sent_mails_keep_their_words_for_the_period_then_only_what_audit_needs(env):
    public_id = new_game(env)
    play(env, public_id, 3)
    past_the_hold(env)
    before = _sent(env, public_id)
    told = [r for r in before if r.about_n is not None]
    assert told and all(r.chain_hash and r.text_body for r in told)
    env.clock.advance(days=env.config.retention.mail_days - 1)
    assert retention.run(env).mails == 0  # not yet
    env.clock.advance(days=2)
    report = retention.run(env, batch=2)  # several batches of two
    assert report.mails >= len(before)
    after = {r.id: r for r in _sent(env, public_id)}
    for row in before:
        kept = after[row.id]
        assert (kept.message_id, kept.to_addr, kept.kind, kept.sent_at, kept.about_n) == (
            row.message_id,
            row.to_addr,
            row.kind,
            row.sent_at,
            row.about_n,
        )
        assert kept.chain_hash == row.chain_hash
        assert kept.subject is kept.text_body is kept.html_body is None
        assert kept.pruned_at is not None
    told_hashes = {r.about_n: r.chain_hash for r in told}
    record = {m["n"]: m["hash"] for m in games_record(env, public_id)}
    assert all(record[n] == h for n, h in told_hashes.items())
    assert not retention.run(env)  # a second run finds nothing: idempotent


def games_record(env, public_id: str) -> list[dict]:
    from pbem.services.records import game_records

    return [
        {"n": i + 1, "hash": m["hash"]}
        for i, m in enumerate(game_records.operator_record(env, public_id)["moves"])
    ]


def test_clients_are_reduced_after_the_period_and_moves_go_on(env, client):
    public_id = new_game(env)
    for _ in range(4):
        seat = to_move(env, public_id)
        t = token(env, public_id, seat)
        n = len(games_record(env, public_id)) + 1
        moves.submit_move(env, t, n, game_pages.legal_moves(env, t)[0], CLIENTS[seat])
    sign_in(client, env, "kept@example.test")
    game_id = _game_id(env, public_id)
    env.clock.advance(days=env.config.retention.client_days + 1)
    fresh = to_move(env, public_id)
    t = token(env, public_id, fresh)
    n = len(games_record(env, public_id)) + 1
    moves.submit_move(env, t, n, game_pages.legal_moves(env, t)[0], CLIENTS[fresh])  # today's
    report = retention.run(env, batch=3)
    assert report.access >= 4 and report.links >= 1
    with env.db.read() as session:
        rows = session.scalars(
            select(AccessLog).where(AccessLog.game_id == game_id).order_by(AccessLog.id)
        ).all()
        links = session.scalars(
            select(SignInLink).where(SignInLink.email == "kept@example.test")
        ).all()
        account = session.scalars(
            select(AccessLog).where(AccessLog.detail == "kept@example.test")
        ).all()
    old, new = rows[:-1], rows[-1]
    for row in old:
        assert row.reduced_at is not None
        assert row.ip in ("203.0.x.x", "2001:db8:1:…")
        assert row.user_agent in ("Firefox", "Mobile Safari")
    assert new.reduced_at is None and new.ip == CLIENTS[fresh].ip
    assert links and all(link.ip is None for link in links)
    assert not account  # the sign-in request's detail held the address: reduced to [address]
    assert not retention.run(env)  # idempotent


def test_the_other_seat_and_the_public_see_a_network_and_a_browser_family(env):
    public_id = new_game(env)
    for _ in range(3):
        seat = to_move(env, public_id)
        t = token(env, public_id, seat)
        n = len(games_record(env, public_id)) + 1
        moves.submit_move(env, t, n, game_pages.legal_moves(env, t)[0], CLIENTS[seat])
    loser = to_move(env, public_id)
    moves.submit_move(env, token(env, public_id, loser), 4, "resign", CLIENTS[loser])
    for viewer in (0, 1):
        seen = audit.seat_audit(env, token(env, public_id, viewer), 2, CLIENTS[viewer]).access
        own = [a for a in seen if a.seat == viewer]
        other = [a for a in seen if a.seat == 1 - viewer]
        assert own and other
        assert {(a.ip, a.user_agent) for a in own} == {
            (CLIENTS[viewer].ip, CLIENTS[viewer].user_agent)
        }
        assert {(a.ip, a.user_agent) for a in other} == {
            (mask_ip(CLIENTS[1 - viewer].ip), browser_family(CLIENTS[1 - viewer].user_agent))
        }
    public = audit.public_audit(env, public_id, 2).access
    assert public and {(a.ip, a.user_agent) for a in public} == {
        ("203.0.x.x", "Firefox"),
        ("2001:db8:1:…", "Mobile Safari"),
    }


def test_the_job_works_in_short_transactions_and_a_move_goes_in_between(env):
    """Each batch commits on its own: a move made while the job runs (here, between two of
    its batches) is logged, and the job goes on; a second run finds nothing left."""
    from sqlalchemy import event
    from sqlalchemy.orm import Session

    public_id = new_game(env)
    play(env, public_id, 6)  # access rows and sent mails enough for several batches
    _sent(env, public_id)
    env.clock.advance(days=max(env.config.retention.mail_days, env.config.retention.client_days))
    env.clock.advance(days=1)
    commits: list[int] = []
    moved: list[int] = []

    def after_commit(_session) -> None:
        commits.append(1)
        if len(commits) == 2 and not moved:  # between the job's first two batches
            moved.append(1)
            seat = to_move(env, public_id)
            t = token(env, public_id, seat)
            n = len(games_record(env, public_id)) + 1
            moves.submit_move(env, t, n, game_pages.legal_moves(env, t)[0], access.Client())

    event.listen(Session, "after_commit", after_commit)
    try:
        report = retention.run(env, batch=2)
    finally:
        event.remove(Session, "after_commit", after_commit)
    assert moved and len(games_record(env, public_id)) == 7
    assert report.mails >= 6 and report.access >= 6
    assert len(commits) >= (report.mails + report.access) // 2  # one transaction a batch
    assert not retention.run(env, batch=2).mails


def test_the_dev_inbox_and_pbem_outbox_say_a_pruned_mail_kept_no_words(env, client):
    public_id = new_game(env)
    row = _sent(env, public_id)[0]
    env.clock.advance(days=env.config.retention.mail_days + 1)
    retention.run(env)
    page = client.get(f"/dev/inbox/{row.id}")
    assert page.status_code == 200 and "its words were pruned" in page.text
    from pbem.admin.outbox import _no_words

    assert _no_words(None, env.clock.now()).startswith("(words pruned ")
