"""Following every link of served pages, as a visitor clicking through would."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html import unescape
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

LINK = re.compile(r'(?:href|src)="([^"]*)"')


@dataclass
class Visit:
    url: str
    status: int
    mimetype: str
    text: str
    headers: dict[str, str]


@dataclass
class Crawl:
    visits: dict[str, Visit] = field(default_factory=dict)

    def pages(self) -> list[Visit]:
        """The HTML pages that were answered (not redirects)."""
        return [v for v in self.visits.values() if v.mimetype == "text/html" and v.status < 300]


def _local(base: str, href: str) -> str | None:
    """The path and query of a link on this site (None for other sites, anchors, mailto…)."""
    href = unescape(href)
    if not href or href.startswith(("#", "mailto:", "javascript:", "data:")):
        return None
    parts = urlsplit(urljoin(f"http://localhost{base}", href))
    if parts.netloc not in ("localhost", ""):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _without_lang(url: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "lang"]
    return parts.path + (f"?{urlencode(query)}" if query else "")


def crawl(
    client_factory: Callable[[], object],
    starts: Iterable[str],
    within: Callable[[str], bool],
    headers: dict[str, str] | None = None,
    limit: int = 2000,
    languages: Callable[[str], bool] = lambda url: True,
) -> Crawl:
    """GET every page reachable from ``starts`` through links that ``within`` keeps.

    A language switcher's link (``?lang=``) is followed for the pages ``languages`` keeps,
    by a client of its own, so the pages after it are still read in the first language.
    """
    client = client_factory()
    seen = Crawl()
    todo = list(starts)
    while todo:
        url = todo.pop()
        if url in seen.visits:
            continue
        assert len(seen.visits) < limit, "the crawl did not end"
        lang = "lang=" in url
        answer = (client_factory() if lang else client).get(url, headers=headers or {})  # type: ignore[attr-defined]
        visit = Visit(
            url,
            answer.status_code,
            answer.mimetype,
            answer.get_data(as_text=True),
            dict(answer.headers),
        )
        seen.visits[url] = visit
        if answer.status_code in (301, 302, 303, 307, 308):
            target = _local(url, answer.headers["Location"])
            if target and within(target):
                todo.append(target)
            continue
        if answer.mimetype != "text/html" or lang:
            continue
        for href in LINK.findall(visit.text):
            target = _local(url, href)
            if target is None or not within(target):
                continue
            if "lang=" in target and (
                _without_lang(target) != _without_lang(url) or not languages(url)
            ):
                continue  # another page's switcher link: its own page gets visited
            if target not in seen.visits:
                todo.append(target)
    return seen
