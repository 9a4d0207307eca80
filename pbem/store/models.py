"""The tables (SQLAlchemy 2.0 typed models). Migrations in ``migrations/`` are the truth.

No table stores a hand, a market or a score (docs/architecture.md, invariant 1): a game is
its seed and its move log; ``status`` and ``finished_at`` on ``games`` are an
index for listings, written in the same transaction as the move that ends the
game and checked by ``verify``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    exists,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, column_property, mapped_column, relationship

from ..engine import Status


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: DateTime(timezone=True)}


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(16), unique=True)
    created_at: Mapped[datetime]
    rules: Mapped[str] = mapped_column(String(32))
    engine: Mapped[str] = mapped_column(String(32))
    #: The record format the log is hashed in (a game keeps the one it started with).
    record_format: Mapped[str] = mapped_column(
        String(32), default="jaipur-record/2", server_default="jaipur-record/1"
    )
    commitment: Mapped[str] = mapped_column(String(64))
    #: Secret until the game ends: never shown, exported or mailed while it runs.
    #: '' until both players have accepted and the game is dealt (see ``dealt``).
    seed: Mapped[str] = mapped_column(String(64))
    #: The server's 32 bytes, committed to by ``commitment``; mixed with the seats'
    #: contributions into ``seed``. None for a game dealt without contributions (seed = it).
    server_seed: Mapped[str | None] = mapped_column(String(64))
    dealt_at: Mapped[datetime | None]
    first_player: Mapped[int | None]
    #: The engine's ``Status`` of a dealt match (in_progress, finished), or waiting (for
    #: both players to accept: ``services/core/status.py`` ``GameStatus.WAITING``).
    status: Mapped[str] = mapped_column(String(16), default=Status.IN_PROGRESS.value)
    finished_at: Mapped[datetime | None]
    #: Set when a stored log stops verifying: the game is flagged, never repaired.
    integrity_error: Mapped[str | None] = mapped_column(Text)
    #: Correspondence clock: days per move (None: no deadline), reminders, timeouts.
    days_per_move: Mapped[int | None]
    reminder_after_hours: Mapped[int] = mapped_column(default=24)
    reminder_every_hours: Mapped[int] = mapped_column(default=48)
    #: "claim": the waiting player may claim the win; "wait": the game simply waits.
    timeout_action: Mapped[str] = mapped_column(String(8), default="claim")
    vacation_days: Mapped[int] = mapped_column(default=10)
    #: The finished game this one is a rematch of (at most one rematch each).
    rematch_of: Mapped[int | None] = mapped_column(unique=True)
    #: When the result went into the ratings (so it is counted once).
    rated_at: Mapped[datetime | None]

    seats: Mapped[list[Seat]] = relationship(
        back_populates="game", order_by="Seat.seat", lazy="selectin"
    )

    @property
    def dealt(self) -> bool:
        return bool(self.seed)


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        CheckConstraint("seat IN (0, 1)", name="seat_is_0_or_1"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    seat: Mapped[int]
    name: Mapped[str] = mapped_column(String(80))
    email: Mapped[str] = mapped_column(String(254), index=True)
    #: Bumped to revoke every link issued before (docs/architecture.md, invariant 6).
    key_version: Mapped[int] = mapped_column(default=1)
    #: "each": a mail on every turn; "digest": one daily mail of the games awaiting a move;
    #: "invitations" (set for a whole account): neither.
    mail_mode: Mapped[str] = mapped_column(String(12), default="each")
    #: Receipts of the seat's own moves: "replies" (only of a move made by replying to a
    #: mail), "all" or "none". The other player's move always comes in the "your turn" mail.
    receipts: Mapped[str] = mapped_column(String(8), default="replies", server_default="replies")
    #: What the seat's pages and mails are written in: a code of ``pbem.i18n.LANGUAGES``
    #: and an IANA time zone. Timestamps stay UTC everywhere; only their display is local.
    language: Mapped[str] = mapped_column(String(8), default="en")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    #: The seat's own random bytes (hex), given when it accepted the game.
    contribution: Mapped[str | None] = mapped_column(String(128))
    accepted_at: Mapped[datetime | None]
    #: The computer's level ("easy", "normal", "strong") when the computer plays this
    #: seat (``services/play/computer.py``); None for a person.
    bot: Mapped[str | None] = mapped_column(String(8))

    game: Mapped[Game] = relationship(back_populates="seats")
    #: Loaded when asked for (most requests never look at them).
    vacations: Mapped[list[Vacation]] = relationship(order_by="Vacation.starts_at")


class Vacation(Base):
    """A time a seat is away: its clock stops and it gets no reminders."""

    __tablename__ = "vacations"

    id: Mapped[int] = mapped_column(primary_key=True)
    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"), index=True)
    starts_at: Mapped[datetime]
    ends_at: Mapped[datetime]


class MoveRow(Base):
    """One entry of the append-only log: triggers refuse UPDATE, DELETE and an INSERT over
    an existing row (migrations 0001, 0010); the app's role may only SELECT and INSERT."""

    __tablename__ = "moves"
    __table_args__ = (
        UniqueConstraint("game_id", "n", name="moves_game_n_key"),
        CheckConstraint("seat IN (0, 1)", name="move_seat_is_0_or_1"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    n: Mapped[int]
    seat: Mapped[int]
    move: Mapped[str] = mapped_column(String(120))
    at: Mapped[datetime]
    #: The chain hash and position digest of docs/record-format.md §4.4, §4.5 and §6.
    hash: Mapped[str] = mapped_column(String(64))
    position: Mapped[str] = mapped_column(String(64))
    #: How it came in: web, email, api, timeout, cli.
    source: Mapped[str] = mapped_column(String(16))
    #: A short note to the opponent that came with the move (not part of the chain).
    message: Mapped[str | None] = mapped_column(Text)
    #: The program that chose a computer move (``pbem 0.3.0``: docs/computer.md); None
    #: for a person's move and for a computer move logged before migration 0022.
    program: Mapped[str | None] = mapped_column(String(40))


class AccessLog(Base):
    """Every use of a seat link: the evidence an audit of a disputed turn reads.

    Append-only like the move log, by the same triggers (migration 0010) and grants."""

    __tablename__ = "access_log"
    __table_args__ = (
        Index("access_log_game_at", "game_id", "at"),
        Index("access_log_reduce", "reduced_at", "at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    #: None for account events (sign-in links, settings), which name ``player_id`` instead.
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    player_id: Mapped[int | None]
    seat: Mapped[int | None]
    at: Mapped[datetime]
    #: view, preview, move, refused, resign, export, reissue, api-view, api-move, link-request …
    action: Mapped[str] = mapped_column(String(24))
    #: The move number the player saw (their view's log length).
    seen_n: Mapped[int | None]
    key_version: Mapped[int | None]
    ip: Mapped[str | None] = mapped_column(String(64))
    user_agent: Mapped[str | None] = mapped_column(String(300))
    detail: Mapped[str | None] = mapped_column(Text)
    #: When ``ip``, ``user_agent`` and ``detail`` were reduced (retention, erasure:
    #: ``services/core/privacy.py``); the one UPDATE the triggers let through, once (0015).
    reduced_at: Mapped[datetime | None]


class OutboxMessage(Base):
    """A mail waiting to be sent, written in the transaction that caused it (invariant 5)."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("outbox_due", "status", "next_attempt_at"),
        Index("outbox_prune", "pruned_at", "sent_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    #: Stable across retries, so a mail sent twice after a crash is recognisable.
    message_id: Mapped[str] = mapped_column(String(200), unique=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    seat: Mapped[int | None]
    kind: Mapped[str] = mapped_column(String(32))
    #: The bare address, and the name that goes with it in the ``To`` header.
    to_addr: Mapped[str] = mapped_column(String(320))
    to_name: Mapped[str | None] = mapped_column(String(200))
    #: Empty until written: a mail telling of logged move ``about_n`` is queued without
    #: its words and written from the log as it is sent (``mailing.writer.Writer``).
    subject: Mapped[str | None] = mapped_column(String(300))
    text_body: Mapped[str | None] = mapped_column(Text)
    html_body: Mapped[str | None] = mapped_column(Text)
    about_n: Mapped[int | None]
    headers: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime]
    #: pending, sending (claimed by a sender, committed before it talks to the relay),
    #: sent or failed.
    status: Mapped[str] = mapped_column(String(16), default="pending")
    #: Claims so far: each claim counts one, and names the claim its outcome is recorded for.
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    #: When a pending row is due; when a sending one is given up for lost and sent again.
    next_attempt_at: Mapped[datetime]
    #: The last claim's time and the sender's lease token (None outside ``pbem scheduler``).
    sending_at: Mapped[datetime | None]
    sending_token: Mapped[int | None]
    sent_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    #: Unique per reminder, warning or digest, so a job that runs twice queues it once.
    dedupe_key: Mapped[str | None] = mapped_column(String(200), unique=True)
    #: The chain hash of the move the mail told of (``about_n``): kept when its words go.
    chain_hash: Mapped[str | None] = mapped_column(String(64))
    #: When its subject and bodies were dropped (retention, or an erased recipient).
    pruned_at: Mapped[datetime | None]


class SchedulerLease(Base):
    """Which ``pbem scheduler`` is the active one: the holder of an unexpired lease.

    ``token`` grows by one at every takeover; the active scheduler's writes check it
    (``pbem/leadership.py``), so one that lost the lease writes nothing more.
    """

    __tablename__ = "scheduler_lease"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    holder: Mapped[str] = mapped_column(String(200))
    token: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[datetime]


class Bouncing(Base):
    """An address whose mail bounces (a permanent refusal or a delivery status
    notification): mail to it is held until it is verified again or left
    (``store/bounces.py``; docs/deploy.md, "Bounces")."""

    __tablename__ = "bouncing"

    address: Mapped[str] = mapped_column(String(254), primary_key=True)  # casefolded
    since: Mapped[datetime]
    outbox_id: Mapped[int | None]  #: the mail whose bounce marked it
    reason: Mapped[str | None] = mapped_column(Text)


#: Whether mail to the seat's address bounces: loaded only where asked for (the seat
#: page's one query, ``games.with_tail(..., vacations=True)``), else read on first use.
Seat.bouncing = column_property(
    exists().where(Bouncing.address == func.lower(Seat.email)),
    deferred=True,
)


class InboundMail(Base):
    """A reply already handled, by Message-ID: the same mail delivered twice is applied once."""

    __tablename__ = "inbound_mail"

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[str] = mapped_column(String(300), unique=True)
    received_at: Mapped[datetime]
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    seat: Mapped[int | None]
    outcome: Mapped[str] = mapped_column(String(16))  # accepted, refused
    detail: Mapped[str | None] = mapped_column(Text)


class Player(Base):
    """A person, known by a verified email address; owns every seat with that address."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(16), unique=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)  # casefolded
    display_name: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime]
    verified_at: Mapped[datetime | None]
    #: Bumped by "sign out everywhere": every older session cookie stops working.
    session_version: Mapped[int] = mapped_column(default=1)
    mail_mode: Mapped[str] = mapped_column(String(12), default="each")
    #: The receipts new seats of the player start with (``Seat.receipts``).
    receipts: Mapped[str] = mapped_column(String(8), default="replies", server_default="replies")
    language: Mapped[str] = mapped_column(String(8), default="en")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    #: Derived from finished games (openskill's Plackett-Luce): rebuildable at any time.
    rating_mu: Mapped[float | None]
    rating_sigma: Mapped[float | None]
    rated_games: Mapped[int] = mapped_column(default=0)
    erased_at: Mapped[datetime | None]
    #: A bot account (docs/bots.md): the person who registered it; None for a person.
    bot_owner_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    #: The SHA-256 of the bot's API token (shown once, never stored); None: revoked.
    bot_token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)


class SignInLink(Base):
    """A one-time link (sign in, or confirm a new address); only its hash is stored."""

    __tablename__ = "sign_in_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    purpose: Mapped[str] = mapped_column(String(16))  # sign-in, change-email
    email: Mapped[str] = mapped_column(String(254), index=True)
    new_email: Mapped[str | None] = mapped_column(String(254))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    ip: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    #: A used link is a browser's session; signing out of it ends it here, not only in the cookie.
    signed_out_at: Mapped[datetime | None]


class Challenge(Base):
    """An open challenge anyone signed in may accept (which creates the game once)."""

    __tablename__ = "challenges"

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(16), unique=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    days_per_move: Mapped[int | None]
    starter: Mapped[str] = mapped_column(String(12))  # random, challenger, opponent
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(12))  # open, accepted, withdrawn
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    accepted_by: Mapped[int | None] = mapped_column(ForeignKey("players.id"))

    player: Mapped[Player] = relationship(foreign_keys=[player_id], lazy="selectin")


class RateLimit(Base):
    """One window of one rate limit (``services.core.limits``): every worker counts here.

    ``key`` names the limit, its window and a keyed hash of who is counted (an IP
    or an address), never the address itself; ``expires_at`` is in epoch seconds.
    """

    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    hits: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[float] = mapped_column(Float, index=True)


class Analysis(Base):
    """The analysis of a finished game (``services/records/analysis.py``): how far it has got.

    Kept apart from the log and never part of the record: it is an opinion of the computer
    player, recomputed at will (``pbem analyse``), never a fact of the game.
    """

    __tablename__ = "analyses"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    status: Mapped[str] = mapped_column(String(12))  # running, done
    #: Moves of the log analysed so far, out of ``total`` (the log's length).
    progress: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer)
    #: ``pbem.ai.analysis.VERSION`` of the method that made it.
    version: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]


class AnalysisMove(Base):
    """One logged move judged: the mover's chances to win the match (0–1) with the best
    move found and with the move played, the best move's notation, the drop in points and
    the label; all null for an entry that is not a turn of the card game (a resignation)."""

    __tablename__ = "analysis_moves"
    __table_args__ = (UniqueConstraint("game_id", "n", name="uq_analysis_moves_game_n"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    n: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    before: Mapped[float | None] = mapped_column(Float)
    after: Mapped[float | None] = mapped_column(Float)
    best: Mapped[str | None] = mapped_column(String(120))
    drop: Mapped[float | None] = mapped_column(Float)
    label: Mapped[str | None] = mapped_column(String(12))


class Event(Base):
    """A tournament (``services/events/``): its rules, its seed's commitment, its state.

    ``seed`` is secret until the event ends (like a game's): every choice the organiser
    does not make by hand is drawn from it (``pbem.events``), so it is shown only once
    nothing more can be drawn; ``commitment`` (its SHA-256) is shown from the start.
    """

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    #: ``pbem.events`` format: round_robin, double_round_robin, swiss, elimination.
    format: Mapped[str] = mapped_column(String(24))
    #: Swiss rounds (None: the format decides).
    rounds: Mapped[int | None]
    days_per_move: Mapped[int | None]
    max_players: Mapped[int]
    #: "full": starts when ``max_players`` have joined; "date": at ``starts_at``.
    start_mode: Mapped[str] = mapped_column(String(8))
    starts_at: Mapped[datetime | None]
    rated: Mapped[bool]
    #: "open": anyone with the link joins; "invitation": only with the invitation key.
    access: Mapped[str] = mapped_column(String(12))
    #: SHA-256 of the invitation key (hex); None for an open event.
    invitation_hash: Mapped[str | None] = mapped_column(String(64))
    creator_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    commitment: Mapped[str] = mapped_column(String(64))
    seed: Mapped[str] = mapped_column(String(64))
    #: open (taking entrants), running, finished, cancelled.
    state: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    #: Why it was cancelled: "too_few" (fewer than two players at its start) or
    #: "organiser" (before it started); None while not cancelled (and for one cancelled
    #: before migration 0023, which was always for too few players).
    cancelled_by: Mapped[str | None] = mapped_column(String(12))

    entrants: Mapped[list[EventEntrant]] = relationship(order_by="EventEntrant.id", lazy="selectin")


class EventEntrant(Base):
    """One player of an event: an account, or the computer at a level."""

    __tablename__ = "event_entrants"
    __table_args__ = (UniqueConstraint("event_id", "player_id", name="uq_event_entrant"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"), index=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    computer_level: Mapped[str | None] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(80))
    #: The rating when the event started (elimination seeds by it); None unrated.
    rating: Mapped[float | None]
    joined_at: Mapped[datetime]
    withdrawn_at: Mapped[datetime | None]
    #: The last round the entrant was paired in before withdrawing (0: before round 1).
    withdrew_after: Mapped[int | None]


class EventRound(Base):
    """A round of an event: paired and its games made at ``started_at``; over at ``ended_at``."""

    __tablename__ = "event_rounds"
    __table_args__ = (UniqueConstraint("event_id", "number", name="uq_event_round"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"))
    number: Mapped[int]
    started_at: Mapped[datetime]
    ended_at: Mapped[datetime | None]


class EventPairing(Base):
    """One game of a round: two entrants and their game, or one entrant's bye (no game).
    ``first_id`` moves first; a board with no game and two entrants is a forfeit.

    ``game_id`` is the link from an ordinary game to its event, round and board.
    """

    __tablename__ = "event_pairings"
    __table_args__ = (
        UniqueConstraint("event_id", "round", "board", "game", name="uq_event_board"),
        UniqueConstraint("game_id", name="uq_event_game"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id"), index=True)
    round: Mapped[int]
    board: Mapped[int]
    #: The board's game number: 1, then 2, 3 … for an elimination's tie-break games.
    game: Mapped[int] = mapped_column(default=1)
    first_id: Mapped[int] = mapped_column(ForeignKey("event_entrants.id"))
    second_id: Mapped[int | None] = mapped_column(ForeignKey("event_entrants.id"))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))


class RecordAnalysis(Base):
    """The analysis of an uploaded record file, asked for on its replay
    (``services/records/record_analysis.py``), keyed by the file's SHA-256. It keeps the
    file's bytes (the scheduler that judges it may not see the web tier's uploads) and its
    verdicts as JSON: one row, never part of a game."""

    __tablename__ = "record_analyses"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    record: Mapped[bytes] = mapped_column(LargeBinary)
    status: Mapped[str] = mapped_column(String(12))  # running, done
    progress: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)
    #: The judged moves, a JSON list of ``analyses.MOVE_COLUMNS`` objects.
    verdicts: Mapped[str] = mapped_column(Text, default="[]")
    asked_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
