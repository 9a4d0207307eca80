"""Only the computer is called "Computer (strong)": a person or a bot who took its name, in
any language the site speaks, would pass for it on every page and mail (docs/computer.md)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from pbem.services.accounts import account_settings, bots
from pbem.services.core import access
from pbem.services.core.errors import InvalidInput
from pbem.services.core.identity import player_for, reads_as_computer
from pbem.services.play import computer, new_games
from pbem.store.models import Game, Player

TAKEN = [
    "Computer (strong)",
    "computer(normal)",
    "  COMPUTER   ( easy ) ",
    "Ｃｏｍｐｕｔｅｒ（ｓｔｒｏｎｇ）",  # wide forms
    "Υπολογιστής (κανονικό)",
    "Комп'ютер (сильний)",  # a typed apostrophe for the catalog's ’
    "رایانه (قوی)",
    "رايانه (قوی)",  # an Arabic yeh for the Persian one
    "电脑（普通）",
    "電腦（強）",  # traditional characters
    "ΥΠΟΛΟΓΙΣΤΗΣ (ΚΑΝΟΝΙΚΟ)",  # Greek capitals go without accents
    "Компютер (сильний)",  # no apostrophe at all
    "Комп`ютер (сильний)",
    "رایانه (قوى)",  # an Arabic alef maksura for the final yeh
    # what a reader cannot see: a joiner, a grapheme joiner, variation selectors, fillers
    "Computer\u200d (strong)",
    "Comp\u034futer (strong)",
    "Computer\ufe0f (strong)",
    "Computer\U000e0100 (strong)",
    "Computer\u3164(strong)",
    "Computer\u2800(strong)",
    # letters of other scripts shaped alike: Cyrillic о, е, С; Latin o, e in Ukrainian
    "Cоmputеr (strоng)",
    "Сomputer (strong)",
    "Кoмп'ютeр (сильний)",
    # other brackets and a full stop
    "Computer [strong].",
    "Computer ❨strong❩",
]
FREE = ["Computer", "Computer (hard)", "My computer (normal)", "Ada"]


def _games(env) -> int:
    with env.db.read() as session:
        return session.scalar(select(func.count()).select_from(Game))


@pytest.mark.parametrize("name", TAKEN)
def test_a_new_game_refuses_a_person_named_as_the_computer(env, name):
    before = _games(env)
    with pytest.raises(InvalidInput, match="the computer's name"):
        new_games.create_game(
            env,
            (
                new_games.PlayerIn("Ada", "reserved-ada@example.test"),
                new_games.PlayerIn(name, "reserved-bo@example.test"),
            ),
        )
    assert _games(env) == before


@pytest.mark.parametrize("name", FREE)
def test_names_that_only_look_a_little_like_it_are_free(env, name):
    new_games.create_game(
        env,
        (
            # addresses of their own: other tests' pages show Ada's name
            new_games.PlayerIn(name, f"free-{FREE.index(name)}@example.test"),
            new_games.PlayerIn("Bo", "free-bo@example.test"),
        ),
    )


def test_the_computers_own_seat_keeps_its_name_but_its_opponent_may_not_take_it(env):
    with pytest.raises(InvalidInput, match="the computer's name"):
        computer.start(
            env, new_games.PlayerIn("Computer (normal)", "reserved-x@example.test"), "strong"
        )
    created = computer.start(env, new_games.PlayerIn("Ada", "reserved-ada@example.test"), "strong")
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == created.public_id)).one()
        assert [s.name for s in sorted(game.seats, key=lambda s: s.seat)] == [
            "Ada",
            "Computer (strong)",
        ]


def test_a_person_cannot_rename_themselves_the_computer_but_keeps_a_name_they_had(env):
    with env.db.write() as session:
        ada = player_for(session, "rename-ada@example.test", "Ada", env.clock.now())
        old = player_for(session, "old-name@example.test", "Old", env.clock.now())
        old.display_name = "Computer (easy)"  # as an account made before the rule
        session.flush()
        ada_id, old_id = ada.id, old.id
    with pytest.raises(InvalidInput, match="the computer's name"):
        account_settings.update_settings(
            env, ada_id, name="Computer (easy)", client=access.Client()
        )
    # a name stored before the rule is kept when the form sends it back unchanged
    changed = account_settings.update_settings(
        env, old_id, name="Computer (easy)", timezone="Asia/Tehran", client=access.Client()
    )
    assert changed == ["timezone"]
    with env.db.read() as session:
        assert session.get(Player, ada_id).display_name == "Ada"


def test_a_bot_cannot_be_named_as_the_computer(env):
    with env.db.write() as session:
        owner = player_for(session, "bot-owner-named@example.test", "Pat", env.clock.now())
        session.flush()
        owner_id = owner.id
    with pytest.raises(InvalidInput, match="the computer's name"):
        bots.register(env, owner_id, "Computer (strong)")


def test_games_made_from_stored_names_are_not_refused(env):
    """An account that held the name before the rule plays its rematches, challenges and
    event rounds (``stored_player``): only a typed name is refused."""
    created = new_games.create_game(
        env,
        (
            new_games.stored_player("Computer (easy)", "stored-old@example.test", "en", "UTC"),
            new_games.PlayerIn("Bo", "stored-bo@example.test"),
        ),
    )
    with env.db.read() as session:
        game = session.scalars(select(Game).where(Game.public_id == created.public_id)).one()
        assert {s.name for s in game.seats} == {"Computer (easy)", "Bo"}


@pytest.mark.parametrize("address", ["Computer（strong）@example.test", "电脑（强）@example.test"])
def test_an_account_named_after_an_address_that_spells_the_computer_is_player(env, address):
    with env.db.write() as session:
        made = player_for(session, address, address.split("@")[0], env.clock.now())
        assert made.display_name == "Player" and not reads_as_computer(made.display_name)
