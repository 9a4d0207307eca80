"""Ratings from finished matches, with openskill's Plackett-Luce model.

A rating is derived: it is updated in the transaction that records a finished
match, and ``rebuild`` recomputes every rating from the finished games in the
order they finished, giving the same numbers. Ranked by the conservative ordinal
(mu - 3 sigma); the rating shown is that ordinal, never below 0 (``shown``): a new
player's mu 25, sigma 8.33 make an ordinal of 0, and a first loss a negative one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy.orm import Session

from ...i18n.words import BotName
from ...store import events as event_rows
from ...store import ratings as rating_rows
from ...store.models import Game, Player
from ...store.players import is_bot_address
from ..core.env import Env
from ..core.identity import player_for

MODEL = PlackettLuce()


def _rating(player: Player) -> PlackettLuceRating:
    if player.rating_mu is None or player.rating_sigma is None:
        return MODEL.rating()
    return MODEL.rating(mu=player.rating_mu, sigma=player.rating_sigma)


def rate(session: Session, game: Game, winner: int, now: datetime) -> None:
    """Count a finished match once (``games.rated_at``), in the caller's transaction."""
    if game.rated_at is not None:
        return
    seats = game.seats
    if any(s.bot is not None for s in seats):  # a game against the computer is not rated
        game.rated_at = now
        return
    if any(is_bot_address(s.email) for s in seats):  # nor one with a bot (docs/bots.md)
        game.rated_at = now
        return
    players = [
        player_for(session, s.email, s.name, now, language=s.language, timezone=s.timezone)
        for s in seats
    ]
    if players[0].id == players[1].id:  # someone playing themselves is not rated
        game.rated_at = now
        return
    ranks = [0.0 if seat == winner else 1.0 for seat in (0, 1)]
    [[a], [b]] = MODEL.rate([[_rating(players[0])], [_rating(players[1])]], ranks=ranks)
    for player, new in zip(players, (a, b), strict=True):
        player.rating_mu, player.rating_sigma = new.mu, new.sigma
        player.rated_games += 1
    game.rated_at = now


def rebuild(env: Env) -> int:
    """Recompute every rating from the finished games, in the order they finished."""
    from ..core.errors import Frozen
    from ..core.lookup import log_rows, state_of

    with env.db.write() as session:
        rating_rows.forget_all(session)
        finished = rating_rows.finished_in_order(session)  # a game that does not verify: unrated
        unrated = event_rows.unrated_game_ids(session)  # an unrated event's games
        rated = 0
        for game in finished:
            if game.id in unrated:
                game.rated_at = game.created_at  # as when it was made: never counted
                continue
            try:
                match = state_of(env, game, log_rows(session, game))
            except Frozen:
                continue  # its log stopped verifying: flagged, and left out
            assert match.winner is not None
            rate(session, game, match.winner, game.finished_at or game.created_at)
            rated += 1
        return rated


#: How many sigmas the shown rating stands below mu, and the ± a page shows after mu.
SIGMAS = 3


def spread(sigma: float) -> float:
    """The ± a page shows after mu: ``SIGMAS`` sigma, rounded to one decimal."""
    return round(SIGMAS * sigma, 1)


def shown(mu: float | None, sigma: float | None) -> float:
    """The rating a page shows: the conservative ordinal mu - 3 sigma, rounded to one
    decimal and never below 0 (the ratings page says so). Ranking uses the ordinal itself."""
    if mu is None or sigma is None:
        return 0.0
    return max(0.0, round(mu - SIGMAS * sigma, 1))


@dataclass(frozen=True, slots=True)
class Rated:
    public_id: str
    name: str
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return self.mu - SIGMAS * self.sigma

    @property
    def shown(self) -> float:
        return shown(self.mu, self.sigma)


def table(env: Env, limit: int = 100) -> list[Rated]:
    with env.db.read() as session:
        rows = rating_rows.rated_players(session)
        rated = [
            Rated(
                p.public_id,
                BotName(p.display_name) if is_bot_address(p.email) else p.display_name,
                p.rating_mu or 0.0,
                p.rating_sigma or 0.0,
                p.rated_games,
            )
            for p in rows
        ]
    return sorted(rated, key=lambda r: r.ordinal, reverse=True)[:limit]
