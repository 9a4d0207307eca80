"""The mails a game sends, queued in the outbox inside the use case's transaction.

Each mail to a seat is built from that seat's view (invariant 7); nothing here
reads the full state except what the game-over mail may reveal.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from .. import engine as jaipur
from ..engine import Match
from ..mail import compose, outbox
from ..store.models import Game
from .env import Env


def _header(game: Game, *, over: bool) -> dict[str, object]:
    """What a mail template may know of the game: never the seed while it runs."""
    return {
        "public_id": game.public_id,
        "commitment": game.commitment,
        "seats": [{"name": s.name} for s in game.seats],
        "seed": game.seed if over else None,
    }


def _queue(
    session: Session, env: Env, game: Game, seat: int, kind: str, subject: str, **context: object
) -> None:
    names = (game.seats[0].name, game.seats[1].name)
    context["game"] = _header(game, over=kind == "game_over")
    context.update(
        seat=seat,
        me=names[seat],
        opponent=names[1 - seat],
        game_url=env.game_url(game.public_id),
        now=env.clock.now(),
    )
    text, html = compose.render(kind, **context)
    outbox.queue(
        session,
        now=env.clock.now(),
        mail_from=env.config.mail_from,
        kind=kind,
        to=f"{names[seat]} <{game.seats[seat].email}>",
        subject=subject,
        text=text,
        html=html,
        game_id=game.id,
        public_id=game.public_id,
        seat=seat,
    )


def invitation(session: Session, env: Env, game: Game, seat: int, token: str, match: Match) -> None:
    opponent = game.seats[1 - seat].name
    view = jaipur.seat_view(match, seat)
    starts = "You move first." if match.to_move == seat else f"{opponent} moves first."
    _queue(
        session,
        env,
        game,
        seat,
        "invitation",
        f"Jaipur vs {opponent} — a new game",
        link=env.seat_url(token),
        view=view,
        starts=starts,
    )


def after_move(
    session: Session,
    env: Env,
    game: Game,
    mover: int,
    n: int,
    move: str,
    chain_hash: str,
    words: str,
    after: Match,
    round_ended: jaipur.RoundResult | None,
) -> None:
    """Game over to both; else "your turn" to the seat to move and a note to the other.

    After a round ends the loser starts the next one, so the seat to move may be
    the one that just moved.
    """
    names = (game.seats[0].name, game.seats[1].name)
    common = dict(
        move=move, words=words, n=n, hash=chain_hash, mover=names[mover], round_ended=round_ended
    )

    def seat_link(seat: int) -> str:
        return env.seat_url(
            env.links.seat_token(game.public_id, seat, game.seats[seat].key_version)
        )

    if after.is_over:
        for seat in (0, 1):
            _queue(
                session,
                env,
                game,
                seat,
                "game_over",
                f"Jaipur vs {names[1 - seat]} — game over",
                match=after,
                won=after.winner == seat,
                record_url=env.record_url(game.public_id),
                link=seat_link(seat),
                **common,
            )
        return
    to_move = after.to_move
    assert to_move is not None
    waiting = 1 - to_move
    _queue(
        session,
        env,
        game,
        to_move,
        "your_turn",
        f"Jaipur vs {names[waiting]} — your turn (move {n + 1})",
        link=seat_link(to_move),
        view=jaipur.seat_view(after, to_move),
        **common,
    )
    _queue(
        session,
        env,
        game,
        waiting,
        "receipt",
        f"Jaipur vs {names[to_move]} — move {n} recorded",
        link=seat_link(waiting),
        mine=waiting == mover,
        **common,
    )


def link(session: Session, env: Env, game: Game, seat: int, token: str, *, reissued: bool) -> None:
    opponent = game.seats[1 - seat].name
    subject = (
        f"Jaipur vs {opponent} — your new link" if reissued else f"Jaipur vs {opponent} — your link"
    )
    _queue(session, env, game, seat, "link", subject, link=env.seat_url(token), reissued=reissued)
