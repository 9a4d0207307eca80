"""The inbound mail recorder: a reply mail's Message-ID, taken once, and what came of it.

The Message-ID is unique: of two deliveries of one mail (a retrying relay, two
receivers), the second finds it taken, or fails on the key, and handles nothing.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .models import InboundMail


class Taken(Exception):
    """Another delivery of this mail took its Message-ID first."""


def take(session: Session, message_id: str, now: datetime) -> None:
    """Record the Message-ID as received (``Taken`` if it was, or is being, already)."""
    if session.scalar(select(InboundMail.id).where(InboundMail.message_id == message_id)):
        raise Taken()
    session.add(InboundMail(message_id=message_id, received_at=now, outcome="received"))
    try:
        session.flush()  # the unique key answers here, not at a COMMIT outside this recorder
    except IntegrityError as error:
        raise Taken() from error


def by_message_id(session: Session, message_id: str) -> InboundMail:
    """The row of a Message-ID this process took (it exists: ``take`` wrote it)."""
    return session.scalars(select(InboundMail).where(InboundMail.message_id == message_id)).one()
