"""Erasing an account: the player's name and addresses gone from every table.

The games stay, and their records still verify: the move log stores seats, never
people. The player's seat links and sessions end with the account. Of the outbox, the
mails not sent yet to the player are dropped, and the sent ones keep no words and a
placeholder for the recipient; the mails to others that name the player lose their words
once sent, and are written again in the new name when not sent yet; the mark of an
address whose mail bounced goes with the address. Their sign-in links
keep a placeholder for each address and no IP address; their rows of the access log are
reduced as every row is after the retention period (``privacy.reduce``). What the log
itself holds (the moves, and the notes that came with them) is never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from markupsafe import escape
from sqlalchemy.orm import Session

from ...store import access_log, outbox
from ...store import bounces as bounce_rows
from ...store import challenges as challenge_rows
from ...store import events as event_rows
from ...store import players as player_rows
from ...store.models import OutboxMessage, Player
from ..core import privacy
from ..core.access import Client, log_account_use
from ..core.env import Env
from ..core.errors import NotAllowed
from ..core.identity import seats_of
from ..mailing.told import TOLD

#: Mails a job queues again when they are missing (by their key), in the names of now.
REQUEUED = ("reminder", "deadline_warning", "digest")


def erase(env: Env, player_id: int, client: Client) -> int:
    """Replace the player's name and addresses by a neutral label and a placeholder in
    every table; returns how many seats they had.

    The move log stores seats, never people, so every record still verifies.
    """
    now = env.clock.now()
    with env.db.write() as session:
        player = session.get(Player, player_id)
        if player is None:
            raise NotAllowed()
        label = f"Erased player {player.public_id[:4]}"
        placeholder = f"erased-{player.public_id}@invalid"
        seats = seats_of(session, player)
        names = sorted({player.display_name, *(s.name for s in seats)} - {label})
        held, asked = player_rows.link_addresses(session, player.id)
        held |= {player.email.casefold(), *(s.email.casefold() for s in seats)}
        # an address they once held and someone else's account holds now is that one's
        addresses = sorted(held - player_rows.owned_by_others(session, player.id, held))
        keys = [(s.game_id, s.seat) for s in seats]
        games = sorted({s.game_id for s in seats})
        # the mails not sent yet to the player: none goes out now; the sent ones keep no words
        outbox.drop_unsent(session, addresses, keys)
        bounce_rows.clear(session, addresses)  # whether its mail bounced: the address goes
        outbox.forget_recipient(session, addresses, keys, placeholder, label, now)
        outbox.forget_asked(session, sorted(asked), label, now)
        for name in names:
            outbox.prune_sent_about(session, games, name, now)
        _rename_unsent(session, games, names, addresses, label, placeholder)
        for seat in seats:
            seat.name, seat.email = label, placeholder
            seat.key_version += 1  # old links die with the account
        player.display_name, player.email = label, placeholder
        player.erased_at, player.session_version = now, player.session_version + 1
        player_rows.forget_links(session, player.id, addresses, placeholder)
        for bot in player_rows.bots_of(session, player.id):  # their bots stop (docs/bots.md)
            bot.bot_token_hash = None
        challenge_rows.forget_player(session, player.id)
        # an event's page and record name the label; the player leaves the event at its
        # next run (``events.rounds``: their links are dead, so they could never play)
        event_rows.forget_player(session, player.id, label)
        log_account_use(session, env, player, "erased", client)
        _reduce_access(session, player.id, keys, addresses, now)
        return len(seats)


def _rename_unsent(
    session: Session,
    games: list[int],
    names: list[str],
    addresses: list[str],
    label: str,
    placeholder: str,
) -> None:
    """The mails to others not sent yet (held back by an outage) that name the player: a
    mail of a logged move is written again from the log when sent, a reminder, a warning
    or a digest is queued again by its job, and any other has the name replaced."""
    for row in outbox.unsent_about(session, games):
        if not _names(row, [*names, *addresses]):
            continue
        if row.kind in TOLD and row.about_n is not None:
            outbox.unwrite(row)
        elif row.kind in REQUEUED:
            session.delete(row)
        else:
            _replace_in(row, names, addresses, label, placeholder)


def _names(row: OutboxMessage, words: list[str]) -> bool:
    fields = (row.subject or "", row.text_body or "", row.html_body or "")
    folded = [f.casefold() for f in fields]
    return any(w.casefold() in f or str(escape(w)).casefold() in f for w in words for f in folded)


def _replace_in(
    row: OutboxMessage, names: list[str], addresses: list[str], label: str, placeholder: str
) -> None:
    """Every whole-word occurrence of a name (escaped in the HTML part) becomes the label,
    every address the placeholder."""
    plain = [(n, label) for n in names] + [(a, placeholder) for a in addresses]
    row.subject = _sub(row.subject, plain)
    row.text_body = _sub(row.text_body, plain)
    row.html_body = _sub(row.html_body, [(str(escape(a)), str(escape(b))) for a, b in plain])


def _as_is(new: str) -> Callable[[re.Match[str]], str]:
    return lambda _match: new


def _sub(text: str | None, pairs: list[tuple[str, str]]) -> str | None:
    if text is None:
        return None
    for old, new in sorted(pairs, key=lambda p: -len(p[0])):  # "Ada Lovelace" before "Ada"
        # a function, not a template: the new text's backslashes are not escapes
        text = re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", _as_is(new), text, flags=re.IGNORECASE)
    return text


def _reduce_access(
    session: Session,
    player_id: int,
    keys: list[tuple[int, int]],
    addresses: list[str],
    now: datetime,
) -> None:
    """The player's rows of the access log keep what every row keeps after the retention
    period: a masked network, a browser family, no address."""
    privacy.reduce_rows(session, access_log.unreduced_of(session, player_id, keys, addresses), now)
