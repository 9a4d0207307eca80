"""Bounces: a mail that came back marks its address bouncing and tells the other player.

Every mail goes out with a return path of its own (VERP, ``bounce+<token>@…``: the token
signs the outbox row's id), so a bounce names the mail it is of. A permanent refusal at
delivery (``mail.delivery.permanent``) or a delivery status notification to that address
(``pbem inbound``; ``mail.dsn``) marks the row bounced and its address bouncing: mail
queued to it is held, not sent and not lost, until the address is verified again (a
sign-in link used) or its player moves to another (``clear``). The opponent in every
unfinished game of that address is told, by mail and on their page; the seat's own page
says so too (docs/deploy.md, "Bounces").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from email.utils import getaddresses

from sqlalchemy.orm import Session

from ...clock import iso
from ...i18n import lazy_gettext as _l
from ...mail import dsn
from ...store import bounces as bounce_rows
from ...store import outbox as outbox_rows
from ...store.models import OutboxMessage, Seat
from ..core.env import Env
from . import seat_mail


def return_path(env: Env) -> Callable[[int], str]:
    """The return path of an outbox row's mail: the bounce address plus its signed id."""
    return lambda row_id: env.config.bounce_to(env.links.bounce_token(row_id))


def bounce_token(env: Env, address: str) -> str | None:
    """The token of an address of the bounce form, or None for any other address."""
    local, _, domain = env.config.bounce_address.lower().partition("@")
    a_local, _, a_domain = address.lower().strip("<> ").partition("@")
    if a_domain != domain or not a_local.startswith(local + "+"):
        return None
    return a_local[len(local) + 1 :]


def accepts(env: Env, address: str) -> bool | None:
    """The receiver's RCPT check for bounces: None for an address not of the bounce form;
    else whether its token is genuine (a forged one is refused: no backscatter)."""
    token = bounce_token(env, address)
    if token is None:
        return None
    return env.links.open_bounce(token) is not None


def bounced(env: Env) -> Callable[[Session, int], None]:
    """What follows a bounce at delivery, in the transaction that marks the row bounced."""

    def follow(session: Session, row_id: int) -> None:
        row = session.get(OutboxMessage, row_id)
        if row is not None:
            _follow(session, env, row, row.last_error or "bounced")

    return follow


@dataclass(frozen=True, slots=True)
class BounceOutcome:
    outcome: str  # bounced, ignored
    detail: str


def handle_bounce(env: Env, raw: bytes, rcpts: Iterable[str]) -> BounceOutcome:
    """A mail to bounce addresses: a permanent failure (or a plain bounce) bounces the
    rows they name; a delay, a success report or an out-of-office answer changes nothing."""
    verdict = dsn.verdict(raw)
    if verdict not in ("failed", "plain"):
        return BounceOutcome("ignored", f"a {verdict} report: nothing to do")
    reason = f"bounced: {'a delivery status notification' if verdict == 'failed' else 'a bounce'}"
    detail = dsn.diagnostic(raw)
    if detail:
        reason += f" ({detail})"
    done = []
    for address in rcpts:
        token = bounce_token(env, address)
        row_id = env.links.open_bounce(token) if token is not None else None
        if row_id is None:
            continue
        with env.db.write() as session:
            row = session.get(OutboxMessage, row_id)
            if row is None or row.status == "bounced":
                continue
            outbox_rows.mark_bounced(session, row_id, reason)
            _follow(session, env, row, reason)
            done.append(str(row_id))
    if not done:
        return BounceOutcome("ignored", "no mail to bounce (gone, or bounced before)")
    return BounceOutcome("bounced", f"outbox rows {', '.join(done)}: {verdict}")


def addressed(env: Env, raw: bytes) -> list[str]:
    """The genuine bounce addresses a mail's headers name (a mailbox polled over IMAP has
    no envelope): ``Delivered-To``, ``X-Original-To`` and ``To``."""
    try:
        msg = BytesParser(policy=policy.compat32).parsebytes(raw, headersonly=True)
        values = [
            str(v) for h in ("Delivered-To", "X-Original-To", "To") for v in msg.get_all(h, [])
        ]
        found = [a for _, a in getaddresses(values)]
    except Exception:  # unreadable headers name no bounce address
        return []
    return list(dict.fromkeys(a for a in found if accepts(env, a)))


def _follow(session: Session, env: Env, row: OutboxMessage, reason: str) -> None:
    """Mark the row's address bouncing and tell the opponents of its unfinished games."""
    if outbox_rows.undeliverable(row.to_addr):
        return
    mark = bounce_rows.mark(session, row.to_addr, env.clock.now(), row.id, reason)
    for seat in bounce_rows.running_seats(session, row.to_addr):
        game = seat.game
        other = game.seats[1 - seat.seat]
        if other.bot is not None or outbox_rows.undeliverable(other.email):
            continue
        if bounce_rows.key(other.email) == mark.address:
            continue  # one address plays both seats: there is no one else to tell
        seat_mail.queue_written(
            session,
            env,
            game,
            other.seat,
            "bounced",
            _l("Jaipur vs %(opponent)s — mail to them bounces", opponent=seat.name),
            dedupe=f"bounced:{game.id}:{seat.seat}:{iso(mark.since)}",
            dealt=game.dealt,
        )


def clear(session: Session, addresses: Iterable[str]) -> None:
    """The address was verified again (a sign-in link used) or left: mail to it flows."""
    bounce_rows.clear(session, addresses)


def moved(session: Session, old: str, new: str) -> None:
    """A player moved from ``old`` to ``new``: the mails held for the old address go to
    the new one, and neither is marked any more."""
    outbox_rows.readdress(session, old, new)
    bounce_rows.clear(session, [old, new])


def bouncing_seats(seats: Iterable[Seat]) -> tuple[bool, ...]:
    """For each seat, whether mail to its address bounces (``Seat.bouncing``: loaded with
    the seat page's one query)."""
    return tuple(bool(s.bouncing) for s in seats)  # type: ignore[attr-defined]
