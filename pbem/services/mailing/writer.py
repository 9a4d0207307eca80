"""Writes the mails queued as references to the log (``told.TOLD``) as they are sent,
and says which due ones are no longer wanted."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...clock import as_utc
from ...store import access_log
from ...store.models import Game, OutboxMessage
from ..core.env import Env
from ..core.lookup import game_by_id
from ..core.replayed import Entry, replay_log
from .seat_mail import Written, write
from .told import TOLD, Moved, last_move, moved_at, told, untold


class Writer:
    """Writes the mails that were queued as references to the log (``TOLD``).

    A mail is rebuilt from what it refers to: the game's settings, the log up to
    its entry (append-only, so the same words at any later time), and the
    recipient's seat as it is now (language, time zone, current link). The
    moves it tells of are kept per writer, as both mails of a move tell of one.
    """

    def __init__(self, env: Env) -> None:
        self.env = env
        self._moved: dict[tuple[int, int], Moved] = {}

    def written(self, session: Session, row: OutboxMessage) -> Written:
        """The row's words: as stored once written, else written now (nothing is saved)."""
        if row.text_body is not None:
            assert row.subject is not None and row.html_body is not None
            return Written(row.subject, row.text_body, row.html_body, dict(row.headers or {}))
        if row.kind not in TOLD or row.game_id is None or row.seat is None or row.about_n is None:
            raise ValueError(f"outbox row {row.id} has no words and nothing to write them from")
        game = game_by_id(session, row.game_id)
        moved = self._moved_at(session, game, row.about_n)
        earlier: tuple[Entry, ...] = ()
        own_round = None
        if row.kind == "your_turn" and moved.seat != row.seat:
            log = replay_log(self.env, session, game)  # this process's cache: all entries
            earlier, own_round = untold(log.entries, row.about_n, row.seat)
        draft = told(self.env, game, moved, row.seat, earlier, own_round)
        if draft.kind != row.kind:
            raise ValueError(
                f"outbox row {row.id} is a {row.kind} mail, but its move calls for {draft.kind}"
            )
        written = write(self.env, game, row.seat, draft, as_utc(row.created_at))
        headers = {**row.headers, **written.headers}
        if row.kind == "receipt" and moved.seat == row.seat and moved.source == "email":
            headers["Auto-Submitted"] = "auto-replied"  # it answers the player's own mail
        return Written(written.subject, written.text, written.html, headers)

    def unwanted(self, session: Session, row: OutboxMessage) -> str | None:
        """Why a due row is no longer to be sent: a "your turn" whose move the seat's page
        showed, through its link, while the mail was held, or a held "the cards are dealt"
        whose deal it showed (``dealt``); else None."""
        game_id, seat, n = row.game_id, row.seat, row.about_n
        if row.kind == "dealt" and game_id is not None and _held_deal(session, game_id):
            n = 0  # the page showed the deal, before any move
        if row.kind not in ("your_turn", "dealt") or game_id is None or seat is None or n is None:
            return None
        if access_log.shown(session, game_id, seat, n, as_utc(row.created_at)):
            return "not sent: the seat's page showed the move"
        return None

    def write(self, session: Session, row: OutboxMessage) -> None:
        """Store the row's words, as it is about to be sent: the outbox keeps what went out."""
        if row.text_body is None:
            written = self.written(session, row)
            row.subject, row.text_body, row.html_body = written.subject, written.text, written.html
            row.headers = written.headers

    def _moved_at(self, session: Session, game: Game, n: int) -> Moved:
        key = (game.id, n)
        if key not in self._moved:
            log = replay_log(self.env, session, game)  # this process's cache, extended
            self._moved[key] = last_move(log) if log.n == n else moved_at(session, game, n)
        return self._moved[key]


def _held_deal(session: Session, game_id: int) -> bool:
    """Whether a game's "the cards are dealt" was held (``dealt``): one against the computer,
    dealt as the person accepted it on its page."""
    game = session.get(Game, game_id)
    return game is not None and any(s.bot is not None for s in game.seats)
