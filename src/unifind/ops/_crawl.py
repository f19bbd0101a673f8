"""Crawl one site into a KB collection: sitemap first, then links, robots.txt respected.

It lives at the operation layer because it joins two independent legs (DESIGN §2): every
page, robots.txt and sitemap is read through the web leg's SSRF-safe local fetcher (each hop
and redirect checked), and every page becomes a KB document whose id is its URL. Re-crawling
replaces only changed pages: the KB keeps a document whose text is the same (``unchanged``).

Bounds: ``max_pages`` pages fetched (robots and sitemap not counted), one site, each URL
once (fragments dropped), the fetcher's byte cap per page, and a sitemap index followed one
level down.

One site is the start's scheme, host and port, with ``www.`` and the bare name counted as
one (``web.urls.site_of``). Nothing on another site is requested: a sitemap robots.txt names
there, a sitemap-index child or a sitemap entry there, and a redirect there (the fetcher is
asked to stay on the site, so the target is never contacted) are each one ``skipped`` URL
saying why. Links to other sites are dropped without a line each: every page has them.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin
from urllib.robotparser import RobotFileParser

from unifind.errors import InputError
from unifind.web.urls import OFF_SITE, site_of

AGENT = "unifind"
_LOC = re.compile(r"<loc>\s*([^<\s]+)\s*</loc>", re.IGNORECASE)


@dataclass
class CrawlPage:
    """What happened to one URL of a crawl."""

    url: str
    status: str
    """``added``, ``replaced``, ``unchanged``, ``failed``, or ``skipped`` (robots, off-site)."""
    chunks: int = 0
    error: str | None = None
    fetched: bool = False
    """The page was requested (it counts toward ``max_pages``); robots.txt skips are not."""


@dataclass
class CrawlReport:
    """A whole crawl: every URL considered, and the robots/sitemap facts."""

    start: str
    pages: list[CrawlPage] = field(default_factory=list)
    sitemap: int = 0
    """URLs the sitemap listed."""
    notes: list[str] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(p.status == status for p in self.pages)


def start_site(start: str) -> tuple[str, str, int]:
    """The site a crawl from ``start`` stays on; a URL no crawl can start from raises."""
    if not start.startswith(("http://", "https://")):
        raise InputError(f"crawl needs an http(s) URL, got {start!r}")
    site = site_of(start)
    if site is None:
        raise InputError(f"crawl needs a URL with a host and a valid port, got {start!r}")
    return site


class Crawler:
    """One crawl: ``fetch(url) -> FetchResult`` (the web leg, local fetcher, asked to stay
    on the site: an off-site redirect fails with ``web.urls.OFF_SITE`` in its error) and
    ``ingest(url, text, title) -> (status, chunks)`` (the KB) are given by the caller."""

    def __init__(
        self,
        fetch: Callable[[str], Any],
        ingest: Callable[[str, str, str], Any],
        *,
        max_pages: int,
        progress: Callable[[CrawlPage], None] | None = None,
    ) -> None:
        if max_pages < 1:
            raise InputError(f"max_pages must be at least 1, got {max_pages}")
        self.fetch, self.ingest, self.max_pages = fetch, ingest, max_pages
        self.progress = progress or (lambda page: None)
        self.site: tuple[str, str, int] | None = None

    async def run(self, start: str) -> CrawlReport:
        site = self.site = start_site(start)
        report = CrawlReport(start)
        robots = await self._robots(start, report)
        queue: deque[str] = deque([start])
        for url in await self._sitemap(start, robots, report):
            queue.append(url)
        seen: set[str] = set()
        fetched = 0
        while queue and fetched < self.max_pages:
            url = queue.popleft().split("#", 1)[0]
            if url in seen:
                continue
            seen.add(url)
            if site_of(url) != site:
                continue
            if robots is not None and not robots.can_fetch(AGENT, url):
                self._record(report, CrawlPage(url, "skipped", error="disallowed by robots.txt"))
                continue
            fetched += 1
            page = await self._page(url, site, queue)
            page.fetched = True
            self._record(report, page)
        if queue and fetched >= self.max_pages:
            report.notes.append(f"stopped at --max-pages {self.max_pages}; {len(queue)} "
                                "URL(s) left in the queue")  # fmt: skip
        return report

    def _record(self, report: CrawlReport, page: CrawlPage) -> None:
        report.pages.append(page)
        self.progress(page)

    async def _page(self, url: str, site: tuple[str, str, int], queue: deque[str]) -> CrawlPage:
        got = await self.fetch(url)
        if not got.ok:
            error = got.report.error or got.report.status.value
            return CrawlPage(url, "skipped" if OFF_SITE in error else "failed", error=error)
        final = got.final_url or url
        if site_of(final) != site:  # a fetcher that followed anyway: its text is not kept
            return CrawlPage(url, "skipped", error=f"{OFF_SITE} to {final}")
        queue.extend(link for link in got.links if site_of(link) == site)
        status, chunks, error = await self.ingest(final, got.text, got.title or "")
        return CrawlPage(final, status, chunks, error)

    async def _get(self, url: str, what: str, report: CrawlReport) -> Any | None:
        """Fetch a robots.txt or sitemap on the site; one off it, or a redirect off it, is
        recorded as skipped and never requested."""
        if site_of(url) != self.site:
            self._skip(report, url, f"{what} on another site: not fetched")
            return None
        got = await self.fetch(url)
        error = got.report.error or ""
        if not got.ok and OFF_SITE in error:
            self._skip(report, url, f"{what} {error[error.index(OFF_SITE) :]}")
            return None
        return got if got.ok else None

    def _skip(self, report: CrawlReport, url: str, why: str) -> None:
        self._record(report, CrawlPage(url, "skipped", error=why))

    async def _robots(self, start: str, report: CrawlReport) -> RobotFileParser | None:
        url = urljoin(start, "/robots.txt")
        got = await self._get(url, "robots.txt", report)
        if got is None:
            report.notes.append("no robots.txt: every page of the site may be fetched")
            return None
        robots = RobotFileParser(url)
        robots.parse(got.text.splitlines())
        return robots

    async def _sitemap(
        self, start: str, robots: RobotFileParser | None, report: CrawlReport
    ) -> list[str]:
        named = (robots.site_maps() if robots else None) or [urljoin(start, "/sitemap.xml")]
        urls: list[str] = []
        for sitemap in named[:5]:
            got = await self._get(sitemap, "sitemap named by robots.txt", report)
            if got is None:
                continue
            locs = _LOC.findall(got.text)
            if "<sitemapindex" in got.text.lower():  # an index: one level down
                for child in locs[:20]:
                    sub = await self._get(child, "sitemap-index child", report)
                    urls += _LOC.findall(sub.text) if sub is not None else []
            else:
                urls += locs
        for url in [u for u in urls if site_of(u) != self.site]:
            self._skip(report, url, "listed by the sitemap but on another site: not fetched")
        urls = [u for u in urls if site_of(u) == self.site]
        report.sitemap = len(urls)
        if urls:
            report.notes.append(f"sitemap lists {len(urls)} URL(s)")
        return urls
