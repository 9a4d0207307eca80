"""A new gunicorn worker compiles its templates before its first request."""

import gc

import pytest


@pytest.fixture(autouse=True)
def _unfrozen():
    """warm_up freezes the test process's objects too: give them back to the collector."""
    yield
    gc.unfreeze()


def test_warm_up_compiles_every_page_and_mail_template(app):
    from pbem.mail.compose import environment
    from pbem.web import warm_up

    warm_up(app)
    web = {key[1] for key in app.jinja_env.cache}
    assert "web/seat.html" in web and "web/replay.html" in web
    mail = {key[1] for key in environment().cache}
    assert "mail/your_turn.txt" in mail and "mail/your_turn.html" in mail


def test_warm_up_loads_every_catalog(app):
    from pbem.i18n import LANGUAGES, translations
    from pbem.web import warm_up

    translations.cache_clear()
    warm_up(app)
    assert translations.cache_info().currsize == len(LANGUAGES)


def test_warm_up_freezes_what_it_loaded_out_of_the_collectors_full_passes(app):
    """A full pass over the ~125,000 objects of a warm worker took 90 ms, a stall."""
    from pbem.web import warm_up

    warm_up(app)
    assert gc.get_freeze_count() > 10_000
    assert len(gc.get_objects()) < gc.get_freeze_count()  # what a full pass still walks
