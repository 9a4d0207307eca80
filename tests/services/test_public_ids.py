"""A game's and a player's public ids are made by one function (``identity.new_public_id``):
one alphabet (no 0/o, 1/l/i) and one length, written once in the package."""

from __future__ import annotations

from pathlib import Path

from pbem.services.core.identity import PUBLIC_ID_ALPHABET, new_public_id

PACKAGE = Path(__file__).resolve().parents[2] / "pbem"


def test_the_public_id_alphabet_is_written_once() -> None:
    holding = [
        p.relative_to(PACKAGE).as_posix()
        for p in sorted(PACKAGE.rglob("*.py"))
        if PUBLIC_ID_ALPHABET in p.read_text(encoding="utf-8")
    ]
    assert holding == ["services/core/identity.py"]


def test_a_public_id_is_ten_characters_of_the_alphabet() -> None:
    ids = {new_public_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(len(i) == 10 and set(i) <= set(PUBLIC_ID_ALPHABET) for i in ids)
