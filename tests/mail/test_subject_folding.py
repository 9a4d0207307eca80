"""Every subject a mail can have, in every language, reads back as it was written.

A long subject is folded into several RFC 2047 encoded words. Whitespace between two
encoded words is not part of the text (RFC 2047 §6.2), so a space the folder puts there
is lost: clients showed the Greek sign-in mail as "ο σύνδεσμοςσύνδεσής σας". Each
language's subjects are built as the outbox builds them, parsed back and compared.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import pbem
from pbem.i18n import LANGUAGES, translations
from pbem.mail.delivery import build_message
from pbem.store.models import OutboxMessage

NAMES = ("Ελένη Παπαδοπούλου", "Bo", "محمد رضا کریمی", "Олександра Коваленко", "王小明")


def _subjects(language: str) -> list[str]:
    """Each subject msgid ("Jaipur…") translated, with names of every script in it."""
    with open(Path(pbem.__file__).parent / "translations" / "messages.pot", "rb") as pot:
        catalog = read_po(pot)
    words = translations(language)
    out = []
    for message in catalog:
        msgid = message.id
        if not msgid or not (msgid[0] if isinstance(msgid, tuple) else msgid).startswith("Jaipur"):
            continue
        for name in NAMES:
            params = {"opponent": name, "me": name, "them": NAMES[0], "n": 12, "num": 3}
            if isinstance(msgid, tuple):
                text = words.ngettext(msgid[0], msgid[1], 3)
            else:
                text = words.gettext(msgid)
            out.append(text % params)
    return out


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_each_subject_reads_back_as_written(language):
    subjects = _subjects(language)
    assert len(subjects) >= 19 * len(NAMES)
    for subject in subjects:
        row = OutboxMessage(
            message_id="<1@pbem.test>",
            to_addr="ada@example.test",
            to_name=NAMES[0],
            subject=subject,
            text_body="x",
            html_body="<p>x</p>",
            created_at=datetime(2026, 12, 6, tzinfo=UTC),
            headers={},
        )
        sent = build_message(row, "Jaipur <jaipur@pbem.test>").as_bytes()
        assert all(len(line) <= 78 for line in sent.split(b"\r\n")), subject
        back = message_from_bytes(sent, policy=policy.default)
        assert str(back["Subject"]) == subject
        assert str(back["To"].addresses[0].display_name) == NAMES[0]
