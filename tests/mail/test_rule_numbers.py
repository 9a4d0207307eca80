"""The invitation's summary of the rules takes its numbers from the engine, not the template."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.engine.cards import BONUS_SIZES, HAND_LIMIT
from pbem.engine.views import RULE_NUMBERS
from pbem.i18n import use_reader
from pbem.templating import bonus_sales
from tests.helpers import mails
from tests.mail.play import new_game

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "mail"


def test_the_engine_gives_the_numbers_a_summary_names():
    assert (RULE_NUMBERS.hand_limit, RULE_NUMBERS.bonus_sizes) == (HAND_LIMIT, BONUS_SIZES)
    with use_reader("en", "UTC"):
        sales = bonus_sales()
    assert [s.strip() for s in re.split(r",|\band\b", sales) if s.strip()] == [
        *(str(s) for s in BONUS_SIZES[:-1]),
        f"{BONUS_SIZES[-1]}+",
    ]


@pytest.mark.parametrize("suffix", ["txt", "html"])
def test_the_invitation_template_writes_no_rule_number_of_its_own(suffix):
    source = (TEMPLATES / f"invitation.{suffix}").read_text(encoding="utf-8")
    summary = source[source.index("The rules in short") :]
    summary = summary[: summary.index('"')]
    assert f"{BONUS_SIZES[-1]}+" not in summary and f" {HAND_LIMIT} " not in summary
    assert "%(bonus_sales)s" in summary and "%(hand_limit)s" in summary


@pytest.mark.parametrize("waiting", [False, True])
def test_the_invitation_says_the_engines_numbers(env, waiting):
    """Also while the game waits for its players, when the mail has no view of a hand."""
    from pbem.services.play import new_games

    if waiting:
        created = new_games.create_game(
            env,
            (
                new_games.PlayerIn("Ada", "ada@example.test"),
                new_games.PlayerIn("Bo", "bo@example.test"),
            ),
            await_players=True,
        )
        public_id = created.public_id
    else:
        public_id = new_game(env)
    invitation = mails(env, public_id, seat=0, kind="invitation")[0]
    with use_reader("en", "UTC"):
        sales = bonus_sales()
    for body in (invitation.text_body, invitation.html_body):
        flat = " ".join(body.split())
        assert f"{sales} cards earn a bonus token" in flat
        assert f"At most {HAND_LIMIT} cards in hand." in flat
