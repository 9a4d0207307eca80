"""Running events through the services in tests: players, finishing a round's games."""

from __future__ import annotations

from sqlalchemy import select

from pbem.services.core.access import Client
from pbem.services.core.env import Env
from pbem.services.core.identity import player_for
from pbem.services.core.lookup import log_rows
from pbem.services.events import entries, lifecycle, rounds
from pbem.services.play import moves
from pbem.services.scheduled import jobs
from pbem.store.models import Event, EventPairing, Game, OutboxMessage


def players(env: Env, prefix: str, count: int) -> list[int]:
    """``count`` accounts, ``prefix1@example.test``…; their ids."""
    now = env.clock.now()
    with env.db.write() as session:
        made = [
            player_for(session, f"{prefix}{i}@example.test", f"{prefix.title()} {i}", now)
            for i in range(1, count + 1)
        ]
        session.flush()
        return [p.id for p in made]


def new_event(env: Env, prefix: str, people: int, computer: str | None = None, **spec):
    """An event of ``people`` accounts (the first the organiser) and maybe the computer,
    full (so started): its public id and the players' ids."""
    ids = players(env, prefix, people)
    total = people + (computer is not None)
    created = lifecycle.create(
        env, ids[0], lifecycle.EventSpec(name=f"{prefix} cup", max_players=total, **spec)
    )
    if computer is not None:
        entries.enter_computer(env, created.public_id, ids[0], computer)
    for pid in ids:
        entries.join(env, created.public_id, pid)
    return created.public_id, ids


def running_games(env: Env, public_id: str) -> list[tuple[Game, EventPairing]]:
    """The event's games still running, by round and board."""
    with env.db.read() as session:
        event = session.scalars(select(Event).where(Event.public_id == public_id)).one()
        found = session.execute(
            select(EventPairing, Game)
            .join(Game, Game.id == EventPairing.game_id)
            .where(EventPairing.event_id == event.id, Game.status == "in_progress")
            .order_by(EventPairing.round, EventPairing.board, EventPairing.game)
        )
        return [(g, p) for p, g in found]


def resign(env: Env, game: Game, seat: int) -> None:
    """``seat`` resigns ``game`` (the computer's seat cannot: the person resigns then)."""
    with env.db.read() as session:
        g = session.get(Game, game.id)
        if g.seats[seat].bot is not None:
            seat = 1 - seat
        n = len(log_rows(session, g))
        token = env.links.seat_token(g.public_id, seat, g.seats[seat].key_version)
    moves.resign(env, token, n + 1, Client())


def finish_round(env: Env, public_id: str, loser_seat: int = 1) -> None:
    """Every running game of the event resigned by ``loser_seat``, then the job's run."""
    for game, _ in running_games(env, public_id):
        resign(env, game, loser_seat)
    rounds.advance(env)


def time_out(env: Env, game: Game) -> None:
    """Let the clock run out in ``game``: past its days per move, the clock job's run."""
    env.clock.advance(days=(game.days_per_move or 1) + 1)
    jobs.run_clock(env)


def event_mails(env: Env, to: str, kinds=("invitation", "event_bye", "event_over")):
    with env.db.read() as session:
        return list(
            session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.to_addr == to, OutboxMessage.kind.in_(kinds))
                .order_by(OutboxMessage.id)
            )
        )


def state(env: Env, public_id: str) -> str:
    with env.db.read() as session:
        return session.scalars(select(Event.state).where(Event.public_id == public_id)).one()
