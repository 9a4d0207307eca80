"""Driving games through the use cases, for the mail tests."""

from __future__ import annotations

from pbem.services.core import access
from pbem.services.core.env import Env
from pbem.services.play import game_clock, game_pages, moves, new_games, seat_settings
from pbem.services.records import game_records


def new_game(
    env: Env,
    clock: game_clock.GameClock | None = None,
    first: int | None = 0,
    emails: tuple[str, str] = ("ada@example.test", "bo@example.test"),
) -> str:
    """A game of Ada and Bo. A test that chooses a seat's language through its link changes
    that address's account too (and its later games): it passes ``emails`` of its own."""
    created = new_games.create_game(
        env,
        # in English and UTC whatever an earlier test chose for these addresses' accounts
        (
            new_games.PlayerIn("Ada", emails[0], "en", "UTC"),
            new_games.PlayerIn("Bo", emails[1], "en", "UTC"),
        ),
        first_player=first,
        clock=clock,
    )
    return created.public_id


def token(env: Env, public_id: str, seat: int) -> str:
    return game_pages.seat_tokens(env, public_id)[seat]


def to_move(env: Env, public_id: str) -> int | None:
    return game_pages.public_page(env, public_id).view.table.to_move


def play(env: Env, public_id: str, count: int) -> None:
    for _ in range(count):
        seat = to_move(env, public_id)
        if seat is None:
            return
        t = token(env, public_id, seat)
        n = len(game_records.operator_record(env, public_id)["moves"]) + 1
        moves.submit_move(env, t, n, game_pages.legal_moves(env, t)[0], access.Client())


def ask_receipts(env: Env, public_id: str, receipts: str = "all") -> None:
    """Both seats ask for receipts of their own moves (by default only a mailed move gets one)."""
    for seat in (0, 1):
        seat_settings.set_receipts(env, token(env, public_id, seat), receipts, access.Client())
