"""The catalogs: complete, not fuzzy, placeholders intact, in step with the code.

A new or changed text in a template or in Python fails here until it is
extracted (``scripts/i18n.sh extract``) and translated in every catalog.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from pbem.i18n import CATALOGS, LANGUAGES, compile_po

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"%\(\w+\)s|\{\w+\}")
TRANSLATED = sorted(set(LANGUAGES) - {"en"})


def catalog(language: str):
    with (CATALOGS / language / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        return read_po(fp, locale=language)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> set:
    """The message ids the code and templates use today, extracted afresh."""
    out = tmp_path_factory.mktemp("pot") / "messages.pot"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "extract",
            "-F",
            "babel.cfg",
            "-k",
            "_l",
            "-k",
            "_ln:1,2",
            "-k",
            "N_",
            "--no-location",
            "-o",
            str(out),
            ".",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with out.open("rb") as fp:
        return {m.id for m in read_po(fp) if m.id}


def test_the_template_in_the_repository_is_up_to_date(extracted):
    with (CATALOGS / "messages.pot").open("rb") as fp:
        committed = {m.id for m in read_po(fp) if m.id}
    assert extracted - committed == set(), "run scripts/i18n.sh extract"
    assert committed - extracted == set(), "run scripts/i18n.sh extract"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_text_is_translated_and_none_is_fuzzy(language, extracted):
    cat = catalog(language)
    by_id = {m.id: m for m in cat if m.id}
    missing = sorted(str(i) for i in extracted if i not in by_id)
    assert not missing, (
        f"{language}: not in the catalog (run scripts/i18n.sh update): {missing[:5]}"
    )
    for mid in extracted:
        message = by_id[mid]
        assert not message.fuzzy, f"{language}: fuzzy: {mid!r}"
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        assert len(forms) == (cat.num_plurals if message.pluralizable else 1), mid
        assert all(form.strip() for form in forms), f"{language}: untranslated: {mid!r}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_placeholders_of_each_translation_match_the_original(language):
    for message in catalog(language):
        if not message.id:
            continue
        if message.pluralizable:
            want = set(PLACEHOLDER.findall(message.id[1]))
            for form in message.string:
                got = set(PLACEHOLDER.findall(form))
                # a form for exactly one may spell the number out instead of %(num)s
                assert got <= want and want - {"%(num)s"} <= got, (language, message.id)
        else:
            assert set(PLACEHOLDER.findall(message.string)) == set(
                PLACEHOLDER.findall(message.id)
            ), (language, message.id)


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_catalog_compiles(language):
    assert compile_po(CATALOGS / language / "LC_MESSAGES" / "messages.po")
