"""A player's public page: their rating, the results of their finished games, and their
running games with nothing private (no seat link, no last move, no deadline, no turn).

Built from the same list as their own "my games" (``dashboard``), asked without links.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...i18n import lazy_gettext as _l
from ...i18n.words import BotName
from ...store import players as player_rows
from ..core.env import Env
from ..core.errors import Missing
from ..core.status import GameStatus
from .dashboard import MyGame, games_of


@dataclass(frozen=True, slots=True)
class PublicPlayer:
    """What a player's public page shows of them: no address, no settings."""

    public_id: str
    display_name: str
    rated_games: int
    rating_mu: float | None
    rating_sigma: float | None


@dataclass(frozen=True, slots=True)
class PublicGame:
    """A game as anyone may see it: no seat link, no last move, no deadline, no turn."""

    public_id: str
    opponent: str
    status: GameStatus | None  # None: frozen, its stored log does not verify
    moves: int
    result: Any  # lazy text, finished games only
    computer: str | None = None  #: the computer's level, in a game against it (not rated)

    @property
    def waiting(self) -> bool:
        """Not dealt yet: the players' random bytes are awaited."""
        return self.status is GameStatus.WAITING


@dataclass(frozen=True, slots=True)
class PlayerPage:
    player: PublicPlayer
    finished: list[PublicGame]
    running: list[PublicGame]


def _public(g: MyGame) -> PublicGame:
    return PublicGame(g.public_id, g.opponent, g.status, g.moves, g.result, g.computer)


def public_player(env: Env, public_id: str) -> PlayerPage:
    """A player's public page: results of finished games, and running ones with nothing
    private. Built from public fields only: no seat link is made for it."""
    with env.db.read() as session:
        player = player_rows.by_public_id(session, public_id)
        if player is None or player.erased_at is not None:
            raise Missing(_l("There is no such player."))
        shown = PublicPlayer(
            player.public_id,
            # a bot account's name carries its badge (docs/bots.md)
            BotName(player.display_name) if player.bot_owner_id else player.display_name,
            player.rated_games,
            player.rating_mu,
            player.rating_sigma,
        )
        player_id = player.id
    games = games_of(env, player_id, links=False)
    return PlayerPage(
        shown,
        [_public(g) for g in games.finished],
        [_public(g) for g in (*games.my_turn, *games.waiting)],
    )
