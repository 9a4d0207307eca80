"""The mails that tell of a logged move: "your turn", a receipt, game over, a timeout.

They are queued as a reference to the log entry (``about_n``), unwritten, in the move's
own transaction, and drafted from the log when they are sent (``writer.Writer``): a
move's request renders no mail (docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from sqlalchemy.orm import Session

from ... import engine as jaipur
from ...engine import Match
from ...engine.explain import Account
from ...i18n import lazy_gettext as _l
from ...store import outbox as outbox_store
from ...store.models import Game
from ..core.env import Env
from ..core.lookup import log_rows, logged_moves
from ..core.replayed import Entry, ReplayedLog, chain_start, next_turn, seat_names, turn_after
from .seat_mail import Draft, envelope


@dataclass(frozen=True, slots=True)
class Moved:
    """What a logged entry did, for the mails that tell of it."""

    seat: int
    n: int  #: its number in the record
    turn: int  #: the number mails call it by (``played.next_turn``)
    move: str
    hash: str
    words: Account
    message: str | None
    after: Match
    round_ended: jaipur.RoundResult | None
    source: str = "web"  #: how it came in (web, email, api, timeout, cli)


#: The mails that tell of a logged move. They are queued as a reference to the entry
#: (``about_n``) and written from the log when they are sent: a move's request
#: renders no mail (docs/performance.md).
TOLD = ("your_turn", "receipt", "game_over", "timeout")


def told_kind(moved: Moved, seat: int) -> str:
    """Which mail tells ``seat`` of a move.

    After a round ends the loser starts the next one, so the seat to move may be
    the one that just moved.
    """
    if moved.after.is_over:
        return "game_over"
    if moved.move == "timeout":
        return "timeout"
    return "your_turn" if seat == moved.after.to_move else "receipt"


def wants(game: Game, seat: int, kind: str) -> bool:
    """Seats on the daily digest get no per-turn mail; "only invitations" gets neither.

    A receipt is the seat's own choice (``wants_receipt``), whatever its mail mode: one
    who mailed a move in hears that it was read, as one whose mail was refused does.
    """
    if kind == "receipt":
        return True
    mode = game.seats[seat].mail_mode
    return mode == "each" if kind == "your_turn" else mode != "invitations"


def wants_receipt(receipts: str, source: str) -> bool:
    """Whether a seat with this setting (``settings.RECEIPTS``) gets a receipt of its own
    move that came in by ``source``: by default only of a move mailed in (``email``)."""
    return receipts == "all" or (receipts == "replies" and source == "email")


def after_move(session: Session, env: Env, game: Game, moved: Moved) -> None:
    """Game over to both; a timeout to both; else "your turn" to the seat to move, and to
    the mover a receipt only if its setting asks for one (by default: a move mailed in).

    One mail a move is enough: "your turn" tells the other player's move, the position and
    the chain hash, which commits to every move before it (docs/record-format.md §4.4).
    A round's end that no mail told a seat (its mover gets no receipt, or the mover starts
    the next round) is told in that seat's next "your turn" (``untold``). Queued in one
    statement, unwritten: ``Writer`` writes each from the log when it is sent (or shown
    in the dev inbox).

    "Your turn" is held ``Config.turn_mail_hold`` seconds (3 minutes by default) and
    dropped when it is due if the seat's page showed the move meanwhile (``Writer.unwanted``):
    one who plays on the page, against the computer or a person, is not mailed each move.
    """
    to_move = moved.after.to_move
    if to_move is None or moved.move == "timeout":
        seats: tuple[int, ...] = (0, 1) if to_move is None else (to_move, 1 - to_move)
    elif moved.seat == to_move:
        seats = (to_move,)
    elif wants_receipt(game.seats[moved.seat].receipts, moved.source):
        seats = (to_move, moved.seat)
    else:
        seats = (to_move,)
    held = env.clock.now() + timedelta(seconds=env.config.turn_mail_hold)
    rows = []
    for seat in seats:
        kind = told_kind(moved, seat)
        if wants(game, seat, kind):
            not_before = held if kind == "your_turn" else None
            rows.append(
                envelope(
                    env,
                    game,
                    seat,
                    kind,
                    about_n=moved.n,
                    chain_hash=moved.hash,
                    not_before=not_before,
                )
            )
    outbox_store.queue_all(session, rows)


def untold(
    entries: tuple[Entry, ...], n: int, seat: int
) -> tuple[tuple[Entry, ...], jaipur.RoundResult | None]:
    """What no mail to ``seat`` has told before the "your turn" of move ``n`` (usually nothing).

    The other seat's moves logged just before ``n``, back to ``seat``'s own last move or
    the last timeout: round-ending moves after which that player moved again. And the
    round that ``seat``'s own last move ended, when the other seat started the next one
    (the mover gets no mail of its move unless it asked for receipts).
    """
    told: list[Entry] = []
    own: jaipur.RoundResult | None = None
    for entry in reversed(entries[: n - 1]):
        if entry.move == "timeout":
            break
        if entry.seat == seat:
            own = entry.ended
            break
        told.append(entry)
    return tuple(reversed(told)), own


def told(
    env: Env,
    game: Game,
    moved: Moved,
    seat: int,
    earlier: tuple[Entry, ...] = (),
    own_round: jaipur.RoundResult | None = None,
) -> Draft:
    """The mail that tells ``seat`` of ``moved``, from the seat's view (invariant 7); a
    "your turn" tells first what no mail told the seat before (``untold``)."""
    names = seat_names(game)
    after = moved.after
    kind = told_kind(moved, seat)
    opponent = names[1 - seat]
    common = dict(
        move=moved.move,
        words=moved.words,
        n=moved.turn,  # what players call it; ``entry``: its number in the record
        entry=moved.n,
        hash=moved.hash,
        mover=names[moved.seat],
        round_ended=moved.round_ended,
        note=moved.message,
    )
    if kind == "game_over":
        return Draft(
            kind,
            _l("Jaipur vs %(opponent)s — game over", opponent=opponent),
            dict(
                common,
                match=after,
                won=after.winner == seat,
                record_url=env.record_url(game.public_id),
                check=env.check_commands(f"jaipur-{game.public_id}.json"),
                download_url=env.download_url(),
            ),
        )
    if kind == "timeout":
        can_claim = game.timeout_action == "claim"
        late = seat == after.to_move
        # the turn is named by the move it waits for, as the reminder and the warning name
        # it, and as the late move or the claim will be (``played.next_turn``)
        return Draft(
            kind,
            _l(
                "Jaipur vs %(opponent)s — time ran out (move %(n)s)",
                opponent=opponent,
                n=moved.turn,
            ),
            dict(common, late=late, can_claim=can_claim, turn_n=moved.turn),
            # a timeout is not a move: the owed move's address stays the one its reminders
            # and its warning carried, the timeout's own entry number (``played.owed_entry``)
            reply_n=moved.n if late or can_claim else None,
            answer_n=moved.n,  # read and answered: the move is still owed
        )
    if kind == "your_turn":
        return Draft(
            kind,
            _l(
                "Jaipur vs %(opponent)s — your turn (move %(n)s)",
                opponent=opponent,
                n=next_turn(moved.turn, moved.move),
            ),
            dict(common, view=jaipur.seat_view(after, seat), earlier=earlier, own_round=own_round),
            reply_n=moved.n + 1,
        )
    return Draft(
        kind,
        _l("Jaipur vs %(opponent)s — move %(n)s recorded", opponent=opponent, n=moved.turn),
        dict(common, mine=seat == moved.seat),
        answer_n=moved.n + 1,  # the seat's address of the next move: read and answered
    )


def last_move(log: ReplayedLog) -> Moved:
    """What the last entry of a replayed log did."""
    entry = log.entries[-1]
    return Moved(
        entry.seat,
        entry.n,
        entry.turn,
        entry.move,
        entry.hash,
        entry.words,
        entry.message,
        log.match,
        entry.ended,
        entry.source,
    )


def moved_at(session: Session, game: Game, n: int) -> Moved:
    """Logged entry ``n`` and what it did, replayed from the game's seed (the game has moved
    on since: a mail sent late, after an outage)."""
    rows = log_rows(session, game)
    if not game.dealt or not 1 <= n <= len(rows):
        raise ValueError(f"game {game.public_id} has no logged move {n}")
    seed = bytes.fromhex(game.seed)
    before = jaipur.replay_moves(seed, logged_moves(rows[: n - 1]), game.first_player)
    played_before = ReplayedLog(chain_start(game), seat_names(game), before, ())
    moved = last_move(played_before.extended([rows[n - 1]]))
    # replayed without the entries before it: its number as players see it, from them
    return replace(moved, turn=turn_after([row.move for row in rows[: n - 1]]))
