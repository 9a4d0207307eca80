"""The audit of a disputed turn, and the evidence bundle a third party checks offline.

While the game runs, a player audits through their own link and sees their own
side only: the position before an opponent's move, its alternatives and the
opponent's access log stay hidden until the end. After the end everything is
open, except that the other seat's uses of its link, and everyone's on public pages,
show only the network and the browser family (``privacy.reduce``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from babel.support import LazyProxy

from ... import engine as jaipur
from ... import redact
from ...clock import as_utc, iso
from ...engine import MATCH_ACTIONS
from ...engine.record import RECORD_V1
from ...engine.verify import verify_chain
from ...i18n import LANGUAGES, Reader, shown_duration
from ...i18n import lazy_gettext as _l
from ...i18n.words import logged_refusal
from ...store import access_log
from ...store.models import Game
from ..core import privacy
from ..core.access import Client
from ..core.env import Env
from ..core.errors import Missing, flagged
from ..core.integrity import Flag, flag_json
from ..core.lookup import game_row, use_seat
from ..core.replayed import chain_start
from .replay_frames import Replay, Step, from_game

#: How far around a move the access log is shown.
WINDOW = timedelta(hours=24)


@dataclass(frozen=True, slots=True)
class Access:
    at: datetime
    seat: int | None
    action: str
    seen_n: int | None
    ip: str | None
    user_agent: str | None
    detail: str | None

    @property
    def told(self) -> Told:
        """This line in the reader's words (``told``)."""
        return told(self)


@dataclass(frozen=True, slots=True)
class Told:
    """One line of the access log as a reader reads it. The log keeps its stable English
    keys (``move``, ``take diamond (via web)``: the evidence file and the operator read
    them); a page says them in the reader's words: what was done, the move in the reader's
    notation, how it came in (``words.came_in``), and what only the log can say (a text a
    player typed, a contribution) as logged."""

    words: Any  # lazy text
    move: str | None = None  # canonical notation
    source: str | None = None  # ``moves.SOURCES``
    logged: str | None = None


#: What each action of the access log did, said to a reader (the stable keys stay in the log).
ACTIONS: dict[str, Any] = {
    "view": _l("opened the seat page"),
    "api-view": _l("read the seat through the API"),
    "api-legal": _l("asked the API for the legal moves"),
    "api-analysis": _l("read the analysis through the API"),
    "replay": _l("opened the replay"),
    "export": _l("downloaded the record"),
    "preview": _l("previewed a move"),
    "move": _l("moved"),
    "resign": _l("resigned"),
    "claim": _l("claimed the win"),
    "timeout": _l("ran out of time"),
    "refused": _l("a move was refused"),
    "accept": _l("accepted the game"),
    "back": _l("came back"),
    "language": _l("chose a language and a time zone"),
    "reissue": _l("asked for a new link (the old one stopped working)"),
    "link-request": _l("someone asked for a seat's link by mail"),
}
#: The settings' values as the settings say them.
SETTINGS: dict[str, Any] = {
    "each": _l("a mail on every turn"),
    "digest": _l("one daily digest of the games waiting for me"),
    "replies": _l("only for a move I mail in (a reply to a mail)"),
    "all": _l("for every move, made on the web too"),
    "none": _l("never"),
}
_SETTINGS_CHANGED: dict[tuple[str, bool], Any] = {
    ("mail-mode", False): lambda v: _l("changed how mails come: %(value)s", value=v),
    ("mail-mode", True): lambda v: _l(
        "changed how mails come, in all their games: %(value)s", value=v
    ),
    ("receipts", False): lambda v: _l("changed the receipts: %(value)s", value=v),
    ("receipts", True): lambda v: _l(
        "changed the receipts, in all their games: %(value)s", value=v
    ),
}
_VIA = re.compile(r"(?P<move>.+) \(via (?P<source>[a-z]+)\)")
#: ``services.play.moves``' refusal: what was typed (``repr``), then the English reason.
_REFUSED = re.compile(r"(?P<typed>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"): (?P<reason>.+)", re.S)
_MOVE_N = re.compile(r"move (?P<n>[0-9]+)")
_AWAY = re.compile(r"(?P<days>[0-9.]+) days asked, away until (?P<until>\S+)")
_SETTING = re.compile(r"(?P<value>[a-z]+)(?P<all> \(all games\))?")


def told(a: Access) -> Told:
    """``a`` in the reader's words; what the display cannot read is shown as logged."""
    detail = a.detail or ""
    if a.action in ("move", "resign", "claim", "timeout"):
        via = _VIA.fullmatch(detail)
        if via is not None:
            move = via["move"] if a.action == "move" else None
            return Told(ACTIONS[a.action], move, via["source"])
    elif a.action == "refused" and (m := _REFUSED.fullmatch(detail)):
        reason = logged_refusal(m["reason"])
        if reason is not None:
            return Told(_l("a move was refused: %(reason)s", reason=reason), logged=m["typed"])
    elif a.action == "preview" and detail:
        return Told(ACTIONS["preview"], move=detail)
    elif a.action in ("audit", "evidence") and (m := _MOVE_N.fullmatch(detail)):
        if a.action == "audit":
            return Told(_l("opened the audit of move %(n)s", n=int(m["n"])))
        return Told(_l("downloaded the evidence of move %(n)s", n=int(m["n"])))
    elif a.action == "away" and (m := _AWAY.fullmatch(detail)):
        length = timedelta(days=float(m["days"]))
        return Told(_l("asked to be away for %(time)s", time=LazyProxy(shown_duration, length)))
    elif a.action in ("mail-mode", "receipts") and (m := _SETTING.fullmatch(detail)):
        value = SETTINGS.get(m["value"])
        if value is not None:
            return Told(_SETTINGS_CHANGED[a.action, bool(m["all"])](value))
    elif a.action == "language" and detail.split(" ")[0] in LANGUAGES:
        language, _, zone = detail.partition(" ")
        return Told(ACTIONS["language"], logged=f"{LANGUAGES[language]} {zone}".strip())
    elif a.action in ACTIONS:
        return Told(ACTIONS[a.action], logged=detail or None)
    return Told(_l("as logged:"), logged=" ".join(x for x in (a.action, detail) if x))


@dataclass(frozen=True, slots=True)
class Audit:
    public_id: str
    names: tuple[str, str]
    n: int
    last: int
    step: Step
    hash: str
    position_hash: str | None
    chain_ok: bool
    chain_detail: Any  # lazy text when the chain holds
    commitment: str
    seed: str | None
    finished: bool
    integrity_error: str | None
    viewer_seat: int | None
    before: jaipur.SeatView | None  # the position as the mover saw it, when it may be shown
    alternatives: list[str] | None
    access: list[Access]
    hidden_reason: Any
    #: The last move shown when the log stops verifying after it (``GameInfo.verified``).
    verified: int | None = None
    #: Dealt from player entropy: the commitment is sha256 of the server's seed.
    mixed: bool = False
    #: After the end, for a game dealt from player entropy: how the seed follows.
    server_seed: str | None = None
    contributions: tuple[str, str] | None = None
    #: Opened through a seat's link: that seat's language and time zone (the page's times).
    reader: Reader | None = None

    @property
    def flag(self) -> Flag | None:
        """What the page says of a game whose log does not verify; None for a sound one."""
        if self.integrity_error is None:
            return None
        return Flag(self.integrity_error, self.verified)


def _access_rows(
    session: Any, game: Game, seats: tuple[int, ...], around: datetime, viewer: int | None
) -> list[Access]:
    """The uses of the links around a move: a seat sees its own whole while the retention
    period lasts; the other seat's, and everyone's on the public page, are reduced to
    the network and the browser family (``privacy.reduce``)."""
    rows = access_log.around(session, game.id, seats, around - WINDOW, around + WINDOW)
    shown = []
    for r in rows:
        whole = r.reduced_at is not None or (viewer is not None and r.seat == viewer)
        kept = (
            privacy.Reduced(r.ip, r.user_agent, r.detail)
            if whole
            else privacy.reduce(r.ip, r.user_agent, r.detail)
        )
        # scrubbed again as shown: a row written before the detail was scrubbed as kept
        detail = None if kept.detail is None else redact.scrubbed(kept.detail)
        shown.append(
            Access(as_utc(r.at), r.seat, r.action, r.seen_n, kept.ip, kept.user_agent, detail)
        )
    return shown


def _build(session: Any, game: Game, replay: Replay, n: int, viewer_seat: int | None) -> Audit:
    shown = replay.last if replay.broken else None
    if not 1 <= n <= replay.last:
        refusal = Missing(_l("This game has moves 1 to %(last)s.", last=replay.last))
        raise flagged(refusal, game.integrity_error, shown)
    step = replay.all_steps[n - 1]
    entry = replay.moves[n - 1]
    chain_broken, chain_detail = verify_chain(chain_start(game), replay.moves[:n])
    open_all = replay.finished
    mover_visible = open_all or viewer_seat == step.seat
    before_state = replay.states[n - 1]
    before = alternatives = None
    hidden = None
    if mover_visible:
        before = jaipur.seat_view(before_state, step.seat)
        if not isinstance(jaipur.parse_move(entry.move), MATCH_ACTIONS):
            alternatives = [str(m) for m in before_state.legal_moves()]
    else:
        hidden = _l(
            "what the other player held, could have played and how they used their "
            "link is shown to both players when the game ends"
        )
    seats = (0, 1) if open_all else ((viewer_seat,) if viewer_seat is not None else ())
    at = as_utc(step.at) if isinstance(step.at, datetime) else as_utc(game.created_at)
    return Audit(
        public_id=game.public_id,
        names=replay.names,
        n=n,
        last=replay.last,
        step=step,
        hash=entry.hash or "",
        # A version-1 digest is a bare hash of hidden cards: shown only once the seed is out.
        position_hash=entry.position if open_all or game.record_format != RECORD_V1 else None,
        chain_ok=chain_broken is None,
        chain_detail=chain_detail or _l("the chain holds from the commitment to move %(n)s", n=n),
        commitment=game.commitment,
        seed=game.seed if open_all else None,
        finished=open_all,
        integrity_error=game.integrity_error,
        verified=shown,
        viewer_seat=viewer_seat,
        before=before,
        alternatives=alternatives,
        access=_access_rows(session, game, seats, at, viewer_seat),
        hidden_reason=hidden,
        mixed=game.server_seed is not None,
        server_seed=game.server_seed if open_all else None,
        contributions=(game.seats[0].contribution or "", game.seats[1].contribution or "")
        if open_all and game.server_seed
        else None,
    )


def public_audit(env: Env, public_id: str, n: int) -> Audit:
    from .replay_access import open_public

    replay = open_public(env, public_id).replay  # refuses a running game
    with env.db.read() as session:
        return _build(session, game_row(session, public_id), replay, n, None)


def seat_audit(env: Env, token: str, n: int, client: Client) -> Audit:
    with env.db.write() as session:
        game, seat, rows = use_seat(env, session, token, "audit", client, detail=f"move {n}")
        replay = from_game(game, rows, notes=True)
        built = _build(session, game, replay, n, seat.seat)
        return replace(built, reader=Reader(seat.language, seat.timezone))


def evidence(
    audit: Audit,
    replay_moves: list[jaipur.LoggedMove],
    players: list[dict[str, Any]],
    created_at: str,
    first_player: int | None,
    record_format: str,
) -> dict[str, Any]:
    """A record up to the disputed move (chain and position hashes) plus the access log:
    itself a ``jaipur-record/1`` file, so ``pbem verify`` checks it as it is."""
    contributions = audit.contributions
    record = jaipur.build_record(
        seed=bytes.fromhex(audit.seed) if audit.seed else None,
        commitment=audit.commitment,
        server_seed=bytes.fromhex(audit.server_seed) if audit.server_seed else None,
        contributions=(bytes.fromhex(contributions[0]), bytes.fromhex(contributions[1]))
        if contributions
        else None,
        moves=replay_moves[: audit.n],
        final=None,
        game_id=audit.public_id,
        players=players,
        created_at=created_at,
        first_player=first_player,
        record_format=record_format,
    ).to_json()
    name = f"jaipur-{audit.public_id}-move-{audit.n}.json"
    record["evidence"] = {
        "format": "pbem-evidence/1",
        "disputed_move": audit.n,
        "move": audit.step.move,
        "seat": audit.step.seat,
        "at": iso(audit.step.at) if isinstance(audit.step.at, datetime) else audit.step.at,
        "via": audit.step.source,
        "chain_hash": audit.hash,
        "position_hash": audit.position_hash,
        "access_log": [
            {
                "at": iso(a.at),
                "seat": a.seat,
                "action": a.action,
                "seen_move": a.seen_n,
                "ip": a.ip,
                "user_agent": a.user_agent,
                "detail": a.detail,
            }
            for a in audit.access
        ],
        "verify": f"pbem verify {name}",
        "note": _evidence_note(audit),
    }
    return record


def _evidence_note(audit: Audit) -> str:
    """What ``pbem verify`` checks in the file, said for this game's kind of deal."""
    if audit.seed is None:
        return (
            "The seed is published when the game ends. Until then `pbem verify` checks the "
            "hash chain, the times and this evidence block against the moves, and says that "
            "the deal, the replay and the positions cannot be checked yet."
        )
    if audit.mixed:
        return (
            "Checks: sha256(server_seed) = commitment (the server drew its seed and mailed "
            "the commitment before either player added a contribution); seed = "
            'HMAC-SHA256(key = server_seed bytes, "jaipur/1/mix:" + contributions[0] + ":" '
            "+ contributions[1], in lowercase hex); the deals from the seed, every move up "
            "to the disputed one, the hash chain and the position hashes."
        )
    return (
        "Checks: sha256(seed) = commitment, the deals from the seed, every move "
        "up to the disputed one, the hash chain and the position hashes."
    )


def _meta(game: Game) -> tuple[list[dict[str, Any]], str, int | None, str]:
    return (
        [{"seat": s.seat, "name": s.name} for s in game.seats],
        iso(game.created_at),
        game.first_player,
        game.record_format,
    )


def public_evidence(env: Env, public_id: str, n: int) -> dict[str, Any]:
    from .replay_access import open_public

    replay = open_public(env, public_id).replay
    with env.db.read() as session:
        game = game_row(session, public_id)
        audit = _build(session, game, replay, n, None)
        return _flagged(evidence(audit, replay.moves, *_meta(game)), audit)


def seat_evidence(env: Env, token: str, n: int, client: Client) -> dict[str, Any]:
    with env.db.write() as session:
        game, seat, rows = use_seat(env, session, token, "evidence", client, detail=f"move {n}")
        replay = from_game(game, rows)
        audit = _build(session, game, replay, n, seat.seat)
        moves = (
            replay.moves
            if replay.finished or game.record_format != RECORD_V1
            else [jaipur.LoggedMove(m.n, m.move, m.seat, m.at, m.hash) for m in replay.moves]
        )
        return _flagged(evidence(audit, moves, *_meta(game)), audit)


def _flagged(data: dict[str, Any], audit: Audit) -> dict[str, Any]:
    """Evidence from a game whose log does not verify says so (it holds only moves that do)."""
    if audit.flag is not None:
        data["flagged"] = flag_json(audit.flag)
    return data
