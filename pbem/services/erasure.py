"""Erasing an account: the player's name and address replaced in every game.

The games stay, and their records still verify: the move log stores seats, never
people. The player's seat links and sessions end with the account, and so do the mails
not sent yet to it; none is queued to its seats after (their address is in ``.invalid``).
"""

from __future__ import annotations

from ..store import outbox
from ..store.models import Player
from .env import Env
from .errors import Forbidden
from .identity import seats_of
from .log import Client
from .players import note_access


def erase(env: Env, player_id: int, client: Client) -> int:
    """Replace the player's name and address by a neutral label in every game.

    The move log stores seats, never people, so every record still verifies.
    """
    now = env.clock.now()
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise Forbidden()
        label = f"Erased player {player.public_id[:4]}"
        seats = seats_of(session, player)
        # the mails not sent yet hold the old name and address: none goes out now
        outbox.drop_unsent(session, player.email, [(s.game_id, s.seat) for s in seats])
        for seat in seats:
            seat.name, seat.email = label, f"erased-{player.public_id}@invalid"
            seat.key_version += 1  # old links die with the account
        player.display_name, player.email = label, f"erased-{player.public_id}@invalid"
        player.erased_at, player.session_version = now, player.session_version + 1
        note_access(session, env, player, "erased", client)
        return len(seats)
