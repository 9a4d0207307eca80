"""Opening a stored game's replay and audit: through the public page once it is over,
or through a seat's own link while it runs."""

from __future__ import annotations

from dataclasses import dataclass

from ...i18n import Reader
from ...i18n import lazy_gettext as _l
from ..core.access import Client
from ..core.env import Env
from ..core.errors import NotAllowed, flagged
from ..core.lookup import game_row, log_rows, use_seat
from ..play.game_pages import GameInfo, game_info
from . import analysis
from .analysis import Shown
from .replay_frames import Replay, from_game


@dataclass(frozen=True, slots=True)
class Opened:
    replay: Replay
    game: GameInfo
    viewer_seat: int | None  # the seat whose link opened it, if any
    #: That seat's language and time zone, which its pages' times are shown in.
    reader: Reader | None = None
    #: The analysis of a finished game (``services/records/analysis.py``); ``None`` while it runs.
    analysis: Shown | None = None


def open_public(env: Env, public_id: str) -> Opened:
    """A finished game's replay; a game whose log does not verify is shown only as far as it
    does (and flagged), and counts as finished only if that much of it is."""
    with env.db.read() as session:  # committed before any refusal: a flag found here is kept
        game = game_row(session, public_id)
        replay = from_game(game, log_rows(session, game))
        info = game_info(game, True, replay.last if replay.broken else None)
        judged = analysis.shown(session, game) if replay.finished and not replay.broken else None
    if not replay.finished:
        refusal = NotAllowed(
            _l(
                "The replay of a running game is open only to its players: "
                "use the link in your mail. Everyone can replay it once it ends."
            )
        )
        raise flagged(refusal, info.integrity_error, info.verified)
    return Opened(replay, info, None, analysis=judged)


def open_seat(env: Env, token: str, client: Client, action: str = "replay") -> Opened:
    with env.db.write() as session:
        game, seat, rows = use_seat(env, session, token, action, client)
        replay = from_game(game, rows, notes=True)  # the players' notes: for their eyes only
        shown = replay.last if replay.broken else None
        return Opened(
            replay,
            game_info(game, replay.finished, shown),
            seat.seat,
            Reader(seat.language, seat.timezone),
            analysis.shown(session, game) if replay.finished and not replay.broken else None,
        )
