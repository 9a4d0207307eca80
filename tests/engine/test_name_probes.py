"""What an outside tester got through the name rule (issue 31): an ``@`` anywhere (also
behind a combining mark or a selector), a name of blank spaces, a letter under dozens of
combining marks. A display name holds no ``@`` at all, shows something, and carries at
most ``MAX_MARKS`` marks on one letter."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine import names
from pbem.engine.names import BadName, clean_name, sanitized


@pytest.mark.parametrize(
    "name",
    [
        "x@\u0301evil.example",  # a combining accent between @ and the domain
        "x@\ufe0eevil.example",  # a variation selector there
        "x@localhost",
        "x@[127.0.0.1]",
        "me@home",
        "@",
        "evil.example@",
        "Bob @ home",
        "x\ufe6b\u0301y",  # small @
        "x\uff20y",  # full-width @
    ],
)
def test_no_at_sign_of_any_form_is_a_name(name):
    with pytest.raises(BadName) as refused:
        clean_name(name)
    assert refused.value.code == names.ADDRESS


@pytest.mark.parametrize("name", ["\u00a0", "\u2003", "\u00a0\u2003\u3000", "\u2002 \u2009"])
def test_a_name_of_blank_spaces_is_refused_as_blank(name):
    with pytest.raises(BadName) as refused:
        clean_name(name)
    assert refused.value.code == names.INVISIBLE


def test_an_empty_name_is_still_asked_for():
    with pytest.raises(BadName) as refused:
        clean_name("")
    assert refused.value.code == names.EMPTY


@pytest.mark.parametrize(
    "name", ["Zal" + "\u0301\u0308\u0316\u0317\u0330" + "go", "a" + "\u0300" * 40]
)
def test_a_letter_under_too_many_marks_is_refused(name):
    with pytest.raises(BadName) as refused:
        clean_name(name)
    assert refused.value.code == names.MARKS


@pytest.mark.parametrize(
    "name",
    ["Nguyễn Thị Ánh", "Zoe\u0308\u0301\u0323", "हिन्दी", "ภาษาไทย", "שָׁלוֹם", "Ελένη"],
)
def test_ordinary_accents_and_scripts_are_kept(name):
    assert clean_name(name)


@given(st.text(max_size=60))
@settings(max_examples=300, deadline=None)
def test_a_kept_name_holds_no_at_and_no_pile_of_marks(raw):
    try:
        kept = clean_name(raw)
    except BadName:
        return
    assert "@" not in names.folded(kept)
    assert names.most_marks(kept) <= names.MAX_MARKS


@given(st.text(max_size=120))
@settings(max_examples=300, deadline=None)
def test_a_sanitized_name_passes_the_new_rule(raw):
    assert clean_name(sanitized(raw)) == sanitized(raw)
