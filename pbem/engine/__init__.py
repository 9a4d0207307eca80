"""The rules of Jaipur, pure: no I/O, no clock, no web or database.

Everything else in pbem trusts this package and re-implements no rule.
"""

from .cards import CARDS, GOODS, Card
from .errors import IllegalMoveError, InvalidMoveError, MoveError
from .match import Match, Outcome, Status
from .moves import MATCH_ACTIONS, Claim, Exchange, Move, Resign, Sell, TakeCamels, TakeGood, Timeout
from .notation import format_move, move_line, parse_move
from .position import position_digest, position_hash, position_json
from .record import (
    ENGINE,
    RECORD_FORMAT,
    RECORD_V1,
    RECORD_V2,
    LoggedMove,
    Record,
    RecordError,
    ReplayError,
    build_record,
    chain_hash,
    chain_start,
    load_record,
    log_move,
    position_digester,
    read_record,
    replay,
    replay_moves,
    replay_states,
    result_json,
    strict_json,
)
from .round import Round, RoundResult
from .verify import Check, Verification, verify, verify_chain
from .views import OpenPlayer, OwnPlayer, PublicView, SeatView, public_view, seat_view

__all__ = [
    "CARDS",
    "ENGINE",
    "GOODS",
    "MATCH_ACTIONS",
    "RECORD_FORMAT",
    "RECORD_V1",
    "RECORD_V2",
    "Card",
    "Check",
    "Claim",
    "Exchange",
    "IllegalMoveError",
    "InvalidMoveError",
    "LoggedMove",
    "Match",
    "Move",
    "MoveError",
    "OpenPlayer",
    "Outcome",
    "OwnPlayer",
    "PublicView",
    "Record",
    "RecordError",
    "ReplayError",
    "Resign",
    "Round",
    "RoundResult",
    "SeatView",
    "Sell",
    "Status",
    "TakeCamels",
    "TakeGood",
    "Timeout",
    "Verification",
    "build_record",
    "chain_hash",
    "chain_start",
    "format_move",
    "load_record",
    "log_move",
    "move_line",
    "parse_move",
    "position_digest",
    "position_digester",
    "position_hash",
    "position_json",
    "public_view",
    "read_record",
    "replay",
    "replay_moves",
    "replay_states",
    "result_json",
    "seat_view",
    "strict_json",
    "verify",
    "verify_chain",
]
