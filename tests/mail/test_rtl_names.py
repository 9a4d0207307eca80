"""Names in a Persian mail are isolated: FSI … PDI in the text part, <bdi> in HTML, so a
line that begins with a Latin-script name still runs right to left."""

from __future__ import annotations

import unicodedata

from pbem.services.play import new_games
from tests.helpers import mails
from tests.mail.play import play

FSI, PDI = "\u2068", "\u2069"


def first_strong(line: str) -> str | None:
    """The paragraph direction of UAX #9 (P2): the first strong character, skipping what
    an isolate holds."""
    depth = 0
    for c in line:
        if c in "\u2066\u2067\u2068":
            depth += 1
        elif c == PDI:
            depth = max(0, depth - 1)
        elif depth == 0 and unicodedata.bidirectional(c) in ("L", "R", "AL"):
            return "rtl" if unicodedata.bidirectional(c) in ("R", "AL") else "ltr"
    return None


def test_a_persian_mail_isolates_the_latin_names(env):
    created = new_games.create_game(
        env,
        (
            new_games.PlayerIn("داریوش", "dariush@example.test", "fa", "Asia/Tehran"),
            new_games.PlayerIn("Bo Smith", "bo@example.test", "en"),
        ),
        first_player=1,
    )
    play(env, created.public_id, 3)
    persian = mails(env, created.public_id, seat=0)
    assert {m.kind for m in persian} >= {"invitation", "your_turn"}
    named = 0
    for mail in persian:
        for line in mail.text_body.splitlines():
            if "Bo Smith" not in line:
                continue
            named += 1
            assert f"{FSI}Bo Smith{PDI}" in line, line
            assert first_strong(line) == "rtl", line
        html = mail.html_body.replace("<bdi>Bo Smith</bdi>", "").replace(f"{FSI}Bo Smith{PDI}", "")
        assert "Bo Smith" not in html, mail.kind
    assert named >= 3

    for mail in mails(env, created.public_id, seat=1):  # an English reader's: as they were
        assert FSI not in mail.text_body and "<bdi>" not in mail.html_body
