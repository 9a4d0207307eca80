"""A new gunicorn worker compiles its templates before its first request."""


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
