"""The mails a game sends, queued in the outbox inside the use case's transaction.

Each mail to a seat is built from that seat's view (invariant 7); the game
header given to templates holds the seed only once the game is over. Every
mail to a seat threads under that seat's invitation, and a mail that asks for a
move carries a Reply-To address that plays it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from ... import engine as jaipur
from ...clock import as_utc, iso
from ...engine import Match
from ...engine.explain import Account
from ...i18n import Reader, gettext, ngettext, use_reader
from ...i18n import lazy_gettext as _l
from ...mail import compose, outbox
from ...store import access_log
from ...store import outbox as outbox_store
from ...store.models import Game, OutboxMessage
from ..core.env import Env
from ..core.log import game_by_id, log_rows, logged_moves
from ..core.replayed import Entry, Played, chain_start, next_turn, played, seat_names, turn_after


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


def _header(game: Game, *, over: bool) -> dict[str, Any]:
    """What a mail template may know of the game: never a seed while it runs.

    ``mixed``: dealt from both seats' contributions, so the commitment is sha256 of
    the server's seed, and the game's seed follows from it (docs/record-format.md).
    """
    mixed = game.server_seed is not None
    return {
        "public_id": game.public_id,
        "commitment": game.commitment,
        "seats": [{"name": name} for name in seat_names(game)],
        "seed": game.seed if over else None,
        "mixed": mixed,
        "server_seed": game.server_seed if over and mixed else None,
        "contributions": [s.contribution or "" for s in game.seats] if over and mixed else None,
        "days_per_move": game.days_per_move,
        "timeout_action": game.timeout_action,
    }


def seat_link(env: Env, game: Game, seat: int) -> str:
    return env.seat_url(env.links.seat_token(game.public_id, seat, game.seats[seat].key_version))


def _queue(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    kind: str,
    subject: Any,
    *,
    dedupe: str | None = None,
    **context: Any,
) -> bool:
    """Render and queue one mail to a seat, in its language; False if queued before (dedupe)."""
    if dedupe is not None and outbox_store.queued(session, dedupe):
        return False
    outbox_store.queue_all(
        session, [_mail(env, game, seat, kind, subject, dedupe=dedupe, **context)]
    )
    return True


def _mail(
    env: Env,
    game: Game,
    seat: int,
    kind: str,
    subject: Any,
    *,
    reply_n: int | None = None,
    dedupe: str | None = None,
    message_id: str | None = None,
    not_before: datetime | None = None,
    **context: Any,
) -> dict[str, Any]:
    """One mail to a seat, written now in its language, as an outbox row's values."""
    row = _envelope(
        env, game, seat, kind, dedupe=dedupe, message_id=message_id, not_before=not_before
    )
    written = _write(env, game, seat, _Draft(kind, subject, context, reply_n), env.clock.now())
    row.update(
        subject=written.subject,
        text_body=written.text,
        html_body=written.html,
        headers={**row["headers"], **written.headers},
    )
    return row


def _envelope(
    env: Env,
    game: Game,
    seat: int,
    kind: str,
    *,
    dedupe: str | None = None,
    message_id: str | None = None,
    about_n: int | None = None,
    chain_hash: str | None = None,
    not_before: datetime | None = None,
) -> dict[str, Any]:
    """A mail to a seat as an outbox row, without its words: who, which thread, which id."""
    root = outbox.thread_id(game.public_id, seat, env.config.mail_from)
    to_seat = game.seats[seat]
    return outbox.message(
        now=env.clock.now(),
        mail_from=env.config.mail_from,
        kind=kind,
        to=to_seat.email,
        to_name=to_seat.name,
        game_id=game.id,
        seat=seat,
        headers={"In-Reply-To": root, "References": root} if message_id is None else {},
        dedupe_key=dedupe,
        message_id=message_id,
        language=to_seat.language,
        about_n=about_n,
        chain_hash=chain_hash,
        not_before=not_before,
    )


@dataclass(frozen=True, slots=True)
class _Draft:
    """What a mail to a seat says, before it is put in the seat's language."""

    kind: str
    subject: Any  # lazy text
    context: dict[str, Any]
    reply_n: int | None = None


@dataclass(frozen=True, slots=True)
class Written:
    """A mail's words as sent: subject, both bodies, and the headers that go with them."""

    subject: str
    text: str
    html: str
    headers: dict[str, str]


def _write(env: Env, game: Game, seat: int, draft: _Draft, now: datetime) -> Written:
    """Put a draft in the seat's language and time zone.

    The subject and any lazy text in the context are resolved here, for the
    recipient: a mail caused by the other player's request is in the recipient's
    language. The seat's link and Reply-To carry its current key version.
    """
    names = seat_names(game)
    context = dict(draft.context)
    headers: dict[str, str] = {}
    if draft.reply_n is not None:
        token = env.links.reply_token(
            game.public_id, seat, draft.reply_n, game.seats[seat].key_version
        )
        headers["Reply-To"] = env.config.reply_to(token)
    context.update(
        game=_header(game, over=draft.kind == "game_over"),
        seat=seat,
        me=names[seat],
        opponent=names[1 - seat],
        game_url=env.game_url(game.public_id),
        link=context.get("link") or seat_link(env, game, seat),
        reply_to=headers.get("Reply-To"),
        now=now,
    )
    to_seat = game.seats[seat]
    with use_reader(to_seat.language, to_seat.timezone):
        text, html = compose.render(draft.kind, **context)
        subject = str(draft.subject)
    return Written(subject, text, html, {**headers, "Content-Language": to_seat.language})


def invitation(
    session: Session, env: Env, game: Game, seat: int, token: str, match: Match | None
) -> None:
    """The first mail of a game; ``match`` is None while the game waits to be accepted."""
    opponent = seat_names(game)[1 - seat]
    starts = match is not None and match.to_move == seat
    _queue(
        session,
        env,
        game,
        seat,
        "invitation",
        _l("Jaipur vs %(opponent)s — a new game", opponent=opponent),
        link=env.seat_url(token),
        waiting=match is None,
        view=jaipur.seat_view(match, seat) if match is not None else None,
        starts=_l("You move first.") if starts else _l("%(name)s moves first.", name=opponent),
        reply_n=1 if starts else None,
        message_id=outbox.thread_id(game.public_id, seat, env.config.mail_from),
        event=None,
    )


def event_round(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    token: str,
    match: Match,
    *,
    event: str,
    event_url: str,
    round_no: int,
) -> None:
    """The one mail of an event's round to a player (``services/events/rounds.py``): the
    invitation to the round's game, naming the event, the round and the opponent."""
    opponent = seat_names(game)[1 - seat]
    starts = match.to_move == seat
    _queue(
        session,
        env,
        game,
        seat,
        "invitation",
        _l(
            "%(event)s, round %(round)s: Jaipur vs %(opponent)s",
            event=event,
            round=round_no,
            opponent=opponent,
        ),
        link=env.seat_url(token),
        waiting=False,
        view=jaipur.seat_view(match, seat),
        starts=_l("You move first.") if starts else _l("%(name)s moves first.", name=opponent),
        reply_n=1 if starts else None,
        message_id=outbox.thread_id(game.public_id, seat, env.config.mail_from),
        event={"name": event, "url": event_url, "round": round_no},
    )


def dealt(
    session: Session, env: Env, game: Game, seat: int, match: Match, *, held: bool = False
) -> None:
    """Both players accepted: the cards are dealt from the mixed seed.

    ``held``: the seat dealt it from its own page (a game against the computer), which
    shows the deal at once; held and dropped as a "your turn" is (``Writer.unwanted``)."""
    opponent = seat_names(game)[1 - seat]
    starts = match.to_move == seat
    hold = timedelta(seconds=env.config.turn_mail_hold)
    _queue(
        session,
        env,
        game,
        seat,
        "dealt",
        _l("Jaipur vs %(opponent)s — the cards are dealt: your turn (move 1)", opponent=opponent)
        if starts
        else _l("Jaipur vs %(opponent)s — the cards are dealt", opponent=opponent),
        view=jaipur.seat_view(match, seat),
        starts=starts,
        contributions=[s.contribution for s in game.seats],
        reply_n=1 if starts else None,
        not_before=env.clock.now() + hold if held else None,
    )


#: The mails that tell of a logged move. They are queued as a reference to the entry
#: (``about_n``) and written from the log when they are sent: a move's request
#: renders no mail (docs/performance.md).
TOLD = ("your_turn", "receipt", "game_over", "timeout")


def _told_kind(moved: Moved, seat: int) -> str:
    """Which mail tells ``seat`` of a move.

    After a round ends the loser starts the next one, so the seat to move may be
    the one that just moved.
    """
    if moved.after.is_over:
        return "game_over"
    if moved.move == "timeout":
        return "timeout"
    return "your_turn" if seat == moved.after.to_move else "receipt"


def _wants(game: Game, seat: int, kind: str) -> bool:
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
        kind = _told_kind(moved, seat)
        if _wants(game, seat, kind):
            not_before = held if kind == "your_turn" else None
            rows.append(
                _envelope(
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


def _told(
    env: Env,
    game: Game,
    moved: Moved,
    seat: int,
    earlier: tuple[Entry, ...] = (),
    own_round: jaipur.RoundResult | None = None,
) -> _Draft:
    """The mail that tells ``seat`` of ``moved``, from the seat's view (invariant 7); a
    "your turn" tells first what no mail told the seat before (``untold``)."""
    names = seat_names(game)
    after = moved.after
    kind = _told_kind(moved, seat)
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
        return _Draft(
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
        return _Draft(
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
        )
    if kind == "your_turn":
        return _Draft(
            kind,
            _l(
                "Jaipur vs %(opponent)s — your turn (move %(n)s)",
                opponent=opponent,
                n=next_turn(moved.turn, moved.move),
            ),
            dict(common, view=jaipur.seat_view(after, seat), earlier=earlier, own_round=own_round),
            reply_n=moved.n + 1,
        )
    return _Draft(
        kind,
        _l("Jaipur vs %(opponent)s — move %(n)s recorded", opponent=opponent, n=moved.turn),
        dict(common, mine=seat == moved.seat),
    )


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
            log = played(self.env, session, game)  # this process's cache: all entries
            earlier, own_round = untold(log.entries, row.about_n, row.seat)
        draft = _told(self.env, game, moved, row.seat, earlier, own_round)
        if draft.kind != row.kind:
            raise ValueError(
                f"outbox row {row.id} is a {row.kind} mail, but its move calls for {draft.kind}"
            )
        written = _write(self.env, game, row.seat, draft, as_utc(row.created_at))
        return Written(
            written.subject, written.text, written.html, {**row.headers, **written.headers}
        )

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
            log = played(self.env, session, game)  # this process's cache, extended
            self._moved[key] = last_move(log) if log.n == n else moved_at(session, game, n)
        return self._moved[key]


def _held_deal(session: Session, game_id: int) -> bool:
    """Whether a game's "the cards are dealt" was held (``dealt``): one against the computer,
    dealt as the person accepted it on its page."""
    game = session.get(Game, game_id)
    return game is not None and any(s.bot is not None for s in game.seats)


def last_move(log: Played) -> Moved:
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
    played_before = Played(chain_start(game), seat_names(game), before, ())
    moved = last_move(played_before.extended([rows[n - 1]]))
    # replayed without the entries before it: its number as players see it, from them
    return replace(moved, turn=turn_after([row.move for row in rows[: n - 1]]))


def link(session: Session, env: Env, game: Game, seat: int, token: str, *, reissued: bool) -> None:
    opponent = seat_names(game)[1 - seat]
    subject = (
        _l("Jaipur vs %(opponent)s — your new link", opponent=opponent)
        if reissued
        else _l("Jaipur vs %(opponent)s — your link", opponent=opponent)
    )
    _queue(session, env, game, seat, "link", subject, link=env.seat_url(token), reissued=reissued)


@dataclass(frozen=True, slots=True)
class Turn:
    """The turn a reminder or a warning is about."""

    owed: int  #: the record's number handed out for the move (``played.owed_entry``): the
    #: reply address, and the key that queues each mail once, both unchanged by a timeout
    shown: int  #: the number players see for that move (``played.next_turn``)


def reminder(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    turn: Turn,
    k: int,
    match: Match,
    deadline: datetime | None,
    since: datetime,
) -> bool:
    """The k-th reminder of the turn (queued once)."""
    return _queue(
        session,
        env,
        game,
        seat,
        "reminder",
        _l(
            "Jaipur vs %(opponent)s — reminder: your move (%(n)s)",
            opponent=seat_names(game)[1 - seat],
            n=turn.shown,
        ),
        dedupe=f"reminder:{game.id}:{turn.owed}:{k}",
        reply_n=turn.owed,
        deadline=deadline,
        since=since,
        view=jaipur.seat_view(match, seat),
        n=turn.shown - 1,  # the template says "your move n + 1", as its subject
    )


def deadline_warning(
    session: Session,
    env: Env,
    game: Game,
    seat: int,
    turn: Turn,
    deadline: datetime,
) -> bool:
    return _queue(
        session,
        env,
        game,
        seat,
        "deadline_warning",
        _l(
            "Jaipur vs %(opponent)s — your time runs out soon (move %(n)s)",
            opponent=seat_names(game)[1 - seat],
            n=turn.shown,
        ),
        # once per deadline: time away moves the deadline, and the moved one is warned of again
        dedupe=f"warning:{game.id}:{turn.owed}:{iso(deadline)}",
        reply_n=turn.owed,
        deadline=deadline,
    )


def digest(
    session: Session,
    env: Env,
    email: str,
    name: str,
    entries: list[dict[str, Any]],
    day: str,
    reader: Reader,
) -> bool:
    """One mail listing every game that waits for this address's move (no per-turn mail)."""
    key = f"digest:{email.casefold()}:{day}"
    if outbox_store.queued(session, key):  # before rendering it: a job that runs twice
        return False
    context = dict(me=name, entries=entries, day=day, now=env.clock.now())
    count = len(entries)
    with use_reader(reader.language, reader.timezone):
        text, html = compose.render("digest", **context)
        subject = ngettext(
            "Jaipur: %(num)s game waiting for your move",
            "Jaipur: %(num)s games waiting for your move",
            count,
        )
    return outbox_store.queue(
        session,
        outbox.message(
            now=env.clock.now(),
            mail_from=env.config.mail_from,
            kind="digest",
            to=email,
            to_name=name,
            subject=subject,
            text=text,
            html=html,
            dedupe_key=key,
            language=reader.language,
        ),
    )


def refusal(
    session: Session,
    env: Env,
    to: str,
    *,
    to_name: str | None = None,
    read: str,
    reason: Any,
    examples: list[str],
    view: jaipur.SeatView | None = None,
    opponent: str | None = None,
    game: Game | None = None,
    seat: int | None = None,
    in_reply_to: str | None = None,
    reader: Reader | None = None,
) -> None:
    """The answer to a reply that recorded nothing: what was read, why, what would work."""
    context = dict(
        read=read,
        reason=reason,
        examples=examples,
        view=view,
        opponent=opponent,
        now=env.clock.now(),
        link=seat_link(env, game, seat) if game is not None and seat is not None else None,
    )
    reader = reader or Reader()
    with use_reader(reader.language, reader.timezone):
        text, html = compose.render("refusal", **context)
        subject = gettext("Jaipur: your move was not recorded")
    headers = {}
    if in_reply_to:
        headers = {"In-Reply-To": in_reply_to, "References": in_reply_to}
    outbox_store.queue(
        session,
        outbox.message(
            now=env.clock.now(),
            mail_from=env.config.mail_from,
            kind="refusal",
            to=to,
            to_name=to_name,
            subject=subject,
            text=text,
            html=html,
            game_id=game.id if game is not None else None,
            seat=seat,
            headers=headers,
            language=reader.language,
        ),
    )
