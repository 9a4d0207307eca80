"""Who an email address is: the player row behind it (made unverified the first time the
address plays), and the seats it owns. Shared by games, players and ratings."""

from __future__ import annotations

import re
import secrets
import unicodedata
from datetime import datetime
from functools import cache

from sqlalchemy.orm import Session

from ... import ai
from ...engine import names
from ...i18n import LANGUAGES, known_language, known_timezone, translations
from ...i18n import lazy_gettext as _l
from ...store import players as player_rows
from ...store import seats as seat_rows
from ...store.models import Player, Seat
from .errors import InvalidInput

#: What a public id (a game's, a player's) is written in: no 0/o, 1/l/i to misread.
PUBLIC_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def new_public_id() -> str:
    """A new public id for a game or a player: ten random characters of the alphabet."""
    return "".join(secrets.choice(PUBLIC_ID_ALPHABET) for _ in range(10))


def N_(text: str) -> str:
    """Marks a text for the catalogs; it is translated where it is used."""
    return text


_NAME_PROBLEMS = {
    names.EMPTY: N_("%(who)s: a name of 1 to 80 characters, please"),
    names.TOO_LONG: N_("%(who)s: a name of 1 to 80 characters, please"),
    names.CONTROL: N_(
        "%(who)s: a name cannot hold line breaks, tabs or invisible formatting characters"
    ),
    names.ENCODED_WORD: N_("%(who)s: a name cannot hold '=?…?=': mail programs read it as code"),
    names.ANGLE_BRACKETS: N_("%(who)s: a name cannot hold < or >"),
    names.ADDRESS: N_(
        "%(who)s: a name cannot look like an email address: no @ at all, and "
        "none of the wide or small look-alikes of < > @ , ; :"
    ),
    names.INVISIBLE: N_(
        "%(who)s: a name needs at least one visible letter, digit or sign; this one shows as blank"
    ),
    names.MARKS: N_("%(who)s: a name can carry at most %(n)s accents or marks on one letter"),
}


def checked_name(raw: str, who: object) -> str:
    """A player's name as it will be kept (``engine.names``), or an InvalidInput that says why,
    with ``who`` (whose name it is) in front, in the reader's language."""
    try:
        return names.clean_name(raw)
    except names.BadName as exc:
        raise InvalidInput(_l(_NAME_PROBLEMS[exc.code], who=who, n=names.MAX_MARKS)) from None


def checked_person_name(raw: str, who: object) -> str:
    """``checked_name`` for a person's or a bot's name, which also may not be the computer's
    ("Computer (strong)") in any language the site speaks, in any case or spacing: the
    pages and mails show the computer's seat by that name, so a person using it would pass
    for the computer (docs/computer.md)."""
    name = checked_name(raw, who)
    if reads_as_computer(name):
        raise InvalidInput(
            _l("%(who)s: '%(name)s' is the computer's name; choose another", who=who, name=name)
        )
    return name


def reads_as_computer(name: str) -> bool:
    """Whether a reader would take ``name`` for the computer's (``checked_person_name``)."""
    return _folded(name) in _computer_names()


#: Letters a reader takes for others (after case folding): Cyrillic and Greek letters
#: shaped as Latin ones, Arabic forms of Persian letters, traditional Chinese characters of
#: the computer's Chinese name. Only for comparing a name with the computer's.
_LOOK_ALIKES = str.maketrans(
    {
        **dict.fromkeys("аα", "a"), "в": "b", **dict.fromkeys("сϲ", "c"), "ԁ": "d",
        **dict.fromkeys("еε", "e"), "һ": "h", "н": "h", **dict.fromkeys("іι", "i"),
        "ј": "j", **dict.fromkeys("кκ", "k"), **dict.fromkeys("мμ", "m"), "ν": "n",
        **dict.fromkeys("оο", "o"), **dict.fromkeys("рρ", "p"), "ԛ": "q", "ѕ": "s",
        **dict.fromkeys("тτ", "t"), **dict.fromkeys("υ", "u"), **dict.fromkeys("уү", "y"),
        **dict.fromkeys("хχ", "x"), "ԝ": "w", "ζ": "z",
        **dict.fromkeys("\u064a\u0649", "\u06cc"), "\u0643": "\u06a9",
        "電": "电", "腦": "脑", "強": "强", "簡": "简", "單": "单",
    }
)  # fmt: skip


def _folded(name: str) -> str:
    """A name's skeleton, as compared with the computer's: its letters and digits only
    (no spaces, brackets, apostrophes, accents, joiners or blank fillers), compatibility
    forms made plain, case folded, look-alike letters made one."""
    kept = (
        ch
        for ch in unicodedata.normalize("NFKD", name)
        if unicodedata.category(ch)[0] in "LN" and names.visible(ch)
    )
    return "".join(kept).casefold().translate(_LOOK_ALIKES)


@cache
def _computer_names() -> frozenset[str]:
    """The computer's names as stored and as every language shows them (``i18n.words``)."""
    stored = [ai.player_name(level) for level in ai.LEVELS]
    return frozenset(
        _folded(shown)
        for language in LANGUAGES
        for name in stored
        for shown in (name, translations(language).gettext(name))
    )


def checked_language(language: str) -> str:
    """One of the languages the site speaks, as its code, or an InvalidInput: the one check of
    every language a form sends (the home page, accepting a game, settings)."""
    if language not in LANGUAGES:
        raise InvalidInput(_l("Choose one of the languages offered."))
    return language


def checked_timezone(timezone: str) -> str:
    """An IANA time zone this server knows, or an InvalidInput that quotes what was sent."""
    if known_timezone(timezone) != timezone:
        raise InvalidInput(_l("'%(zone)s' is not a time zone.", zone=timezone[:64]))
    return timezone


#: What the server accepts as a player's address: a plain ``local@domain.tld`` with no
#: quoting, comments, spaces or controls, so it goes into a ``To`` header as it is.
_ADDR_CHAR = r"[^@\s<>,;:\"()\[\]\\\x00-\x1f\x7f]"
EMAIL = re.compile(rf"^{_ADDR_CHAR}{{1,64}}@{_ADDR_CHAR}+\.{_ADDR_CHAR}+\Z")


def checked_email(raw: str, who: object) -> str:
    """An address as given (trimmed), or an InvalidInput in the reader's language."""
    email = raw.strip()
    if len(email) > 254 or not EMAIL.match(email) or ".." in email or email.startswith("."):
        raise InvalidInput(
            _l(
                "%(who)s: '%(email)s' does not look like an email address",
                who=who,
                email=names.sanitized(email[:100], "?"),
            )
        )
    return email


def normal_email(email: str) -> str:
    return email.strip().casefold()


def player_for(
    session: Session,
    email: str,
    name: str,
    now: datetime,
    *,
    language: str | None = None,
    timezone: str | None = None,
) -> Player:
    """The account of ``email``, made the first time the address plays, in the language and
    zone of that first seat (``language``, ``timezone``: English and UTC when none is known).

    An existing account keeps its own: anyone may type any address into a new game, so only
    a choice made through the seat's own link changes it (``follow_seat``)."""
    key = normal_email(email)
    player = player_rows.by_email(session, key)
    if player is None:
        shown = names.sanitized(name)
        player = Player(
            public_id=new_public_id(),
            email=key,
            # a sign-in names the account after its address, which may spell the computer's
            display_name="Player" if reads_as_computer(shown) else shown,
            created_at=now,
            session_version=1,
            mail_mode="each",
            language=known_language(language),
            timezone=known_timezone(timezone),
            rated_games=0,
        )
        session.add(player)
        session.flush()
    return player


def follow_seat(session: Session, seat: Seat) -> None:
    """The account of the seat's address takes the language and zone just chosen for the
    seat through its link: the sign-in mails and "my games" then speak as the seats do."""
    player = player_rows.by_email(session, normal_email(seat.email))
    if player is not None and player.erased_at is None:
        player.language, player.timezone = seat.language, seat.timezone


def seats_of(session: Session, player: Player) -> list[Seat]:
    return seat_rows.of_player(session, player.email)
