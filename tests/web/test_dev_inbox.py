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


def test_dev_inbox_pages_through_older_mail(client, env):
    import re
    from datetime import UTC, datetime

    from pbem.mail import outbox_row
    from pbem.store import outbox as outbox_store

    now = datetime(2026, 12, 5, tzinfo=UTC)
    with env.db.write() as session:
        for k in range(25):
            outbox_store.queue(
                session,
                outbox_row.message(
                    now=now,
                    mail_from="pbem@pbem.test",
                    kind="sign_in",
                    to=f"page{k}@example.test",
                    subject=f"paging test {k:02}",
                    text="t",
                    html="<p>h</p>",
                ),
            )
    with env.db.read() as session:
        total = outbox_store.count(session)
    first = client.get("/dev/inbox?per=20")
    assert first.status_code == 200
    shown = re.findall(r"paging test (\d+)", first.text)
    assert shown == [f"{k:02}" for k in range(24, 4, -1)]  # the newest 20, newest first
    assert f"{total} mails in all; this page shows 1–20" in first.text
    assert 'aria-label="Pages of the dev inbox"' in first.text and 'rel="prev"' not in first.text
    older = re.search(r'<a rel="next" href="([^"]+)">Older mails \((\d+) more\)', first.text)
    assert older and int(older.group(2)) == total - 20
    second = client.get(older.group(1).replace("&amp;", "&"))
    assert re.findall(r"paging test (\d+)", second.text)[:5] == ["04", "03", "02", "01", "00"]
    assert "this page shows 21–" in second.text and 'rel="prev"' in second.text
    assert 'option value="20" selected' in second.text
    # a size not offered is the default one; a page past the end is the last page
    assert "this page shows 1–" in client.get("/dev/inbox?per=7").text
    last = client.get("/dev/inbox?per=200&page=99999")
    assert last.status_code == 200 and 'rel="next"' not in last.text
    assert client.get("/dev/inbox?page=two").status_code == 400


def test_dev_inbox_link_is_in_the_readers_language(client):
    """The header's link to the development inbox is translated like the rest of the page."""
    import re

    english = client.get("/?lang=en").text
    assert re.search(r'class="dev-link"[^>]*>dev inbox</a>', english)
    for language in ("el", "fa", "uk", "zh"):
        text = client.get(f"/?lang={language}").text
        link = re.search(r'class="dev-link"[^>]*>([^<]*)</a>', text)
        assert link and link.group(1).strip() and link.group(1) != "dev inbox", language
