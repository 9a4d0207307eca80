"""The one-time links mailed to a person: made, rate limited, mailed, opened.

A sign-in link and the link that confirms a new address are the same kind of row
(``SignInLink``). Links are single use and short-lived, and only their SHA-256 is
stored. Both the sign-in and the address change mail them, and count the mails
against the same limits, so the two share this module.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from ...clock import as_utc
from ...i18n import Reader, reader, use_reader
from ...i18n import lazy_gettext as _l
from ...mail import compose, outbox_row
from ...store import outbox as outbox_store
from ...store import players as player_rows
from ...store.models import Player, SignInLink
from ..core import limits
from ..core.access import Client
from ..core.env import Env
from ..core.errors import NotAllowed

LINK_LIFETIME = timedelta(minutes=30)


def issue(
    session: Session,
    env: Env,
    purpose: str,
    email: str,
    client: Client,
    player: Player | None = None,
    new_email: str | None = None,
) -> str:
    """A new link for ``purpose`` ("sign-in" or "change-email"); only its hash is stored."""
    token = secrets.token_urlsafe(32)
    now = env.clock.now()
    session.add(
        SignInLink(
            token_hash=hashlib.sha256(token.encode()).hexdigest(),
            purpose=purpose,
            email=email,
            new_email=new_email,
            player_id=player.id if player else None,
            ip=client.ip,
            created_at=now,
            expires_at=now + LINK_LIFETIME,
        )
    )
    return token


def admit(env: Env, email: str, who: str | None) -> None:
    """Count a request by ``who`` (a client's network, or ``player:<id>``) to mail ``email``.

    Too many requests from one requester, or for one address from one requester, are
    refused (429) and say so; neither depends on whether the address is known. The
    address is counted per requester, so others asking for it never stop its owner's
    own requests. Counted by ``limits`` in its own short transaction, before the
    use case's own.
    """
    limits.count(
        env,
        limits.check(
            env,
            "sign_in_per_client",
            who,
            _l("Too many sign-in requests from here; try again in a few minutes."),
        ),
        limits.check(
            env,
            "sign_in_per_address",
            who and f"{limits.mailbox(email)}\n{who}",
            _l("Too many sign-in mails to that address from here; try again later."),
        ),
    )


def mail(
    session: Session,
    env: Env,
    kind: str,
    to: str,
    subject: Any,
    player: Player | None,
    **context: Any,
) -> None:
    """A mail to a person: in their saved language, or the language they are browsing in."""
    chosen = reader() if player is None else Reader(player.language, player.timezone)
    with use_reader(chosen.language, chosen.timezone):
        text, html = compose.render(kind, now=env.clock.now(), **context)
        subject = str(subject)
    outbox_store.queue(
        session,
        outbox_row.message(
            now=env.clock.now(),
            mail_from=env.config.mail_from,
            kind=kind,
            to=to,
            subject=subject,
            text=text,
            html=html,
            language=chosen.language,
        ),
    )


def open_link(session: Session, token: str, now: datetime, *, lock: bool = False) -> SignInLink:
    """The unused, unexpired link of ``token`` (``lock``: locked until the transaction ends)."""
    token_hash = hashlib.sha256(token.encode()).hexdigest()
    link = player_rows.link_by_hash(session, token_hash, lock=lock)
    if link is None or link.used_at is not None or as_utc(link.expires_at) <= now:
        raise NotAllowed(
            _l(
                "This link is not valid any more: sign-in links work once, for 30 "
                "minutes. Ask for a new one."
            )
        )
    return link
