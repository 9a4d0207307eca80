"""The development inbox shows queued mail with working links, and only in development."""

from __future__ import annotations

from tests.web.test_play import start_game


def test_dev_inbox_lists_mail_with_clickable_links(client, env):
    public_id = start_game(client)
    inbox = client.get("/dev/inbox")
    assert inbox.status_code == 200 and "a new game" in inbox.text
    first = inbox.text.split('href="/dev/inbox/', 1)[1].split('"', 1)[0]
    message = client.get(f"/dev/inbox/{first}")
    assert message.status_code == 200
    assert '<a href="http://pbem.test/s/' in message.text
    html = client.get(f"/dev/inbox/{first}/html")
    assert (
        html.status_code == 200
        and "frame-ancestors 'self'" in html.headers["Content-Security-Policy"]
    )
    assert public_id


def test_no_dev_inbox_in_production(env):
    from pbem.web import create_app

    env.config = env.config.with_(env="production")
    app = create_app(env=env)
    assert app.test_client().get("/dev/inbox").status_code == 404
