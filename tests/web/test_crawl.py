"""`kb crawl` and `kb ingest URL` over a loopback site: sitemap, robots.txt, redirects, a
PDF, a link loop, a 10 MB page, off-site hops; a re-crawl updates only changed pages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from unifind.config import Settings, load_settings
from unifind.kb.service import KnowledgeBase
from unifind.ops import Operations, TextDocumentIn
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.web.leg import WebLeg

from ._documents import make_pdf

HTML = "text/html; charset=utf-8"


def page(title: str, body: str, links: list[str]) -> Respond:
    anchors = "".join(f'<a href="{href}">{href}</a> ' for href in links)
    markup = (f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
              f"<p>{body}</p><nav>{anchors}</nav></body></html>")  # fmt: skip
    return Respond(body=markup, content_type=HTML)


@pytest.fixture
def site() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        u = s.url
        s.route("GET", "/robots.txt", Respond(body=f"User-agent: *\nDisallow: /private/\n"
                                                   f"Sitemap: {u}/sitemap.xml\n"))  # fmt: skip
        s.route("GET", "/sitemap.xml", Respond(
            body=f"<urlset><url><loc>{u}/</loc></url><url><loc>{u}/doc.pdf</loc></url>"
                 f"<url><loc>{u}/private/secret</loc></url></urlset>",
            content_type="application/xml"))  # fmt: skip
        home = ["/a", "/old", "/away", "/big", "/private/x", "#top", "/"]
        s.route("GET", "/", page("Home", "Welcome to the loopback site.", home))
        s.route("GET", "/a", page("Page A", "Alpha page text.", ["/", "/a#again", "/a"]))
        s.route("GET", "/b", page("Page B", "Bravo page text.", ["/a"]))
        s.route("GET", "/old", Respond(301, headers={"Location": "/b"}))
        port = u.rsplit(":", 1)[1]
        s.route("GET", "/away", Respond(302, headers={"Location": f"http://localhost:{port}/b"}))
        s.route("GET", "/big", Respond(body="<html><body><p>" + "big " * 2_600_000 + "</p>",
                                       content_type=HTML))  # fmt: skip
        s.route("GET", "/doc.pdf", Respond(body=make_pdf(["Quarterly report PDF"], "Report"),
                                           content_type="application/pdf"))  # fmt: skip
        yield s


class _Searcher:
    """Just what the KB operations use of a Searcher: its KB, its web leg, its settings."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.kb = KnowledgeBase.open(settings)
        self.web = WebLeg.from_settings(settings)

    def leg(self, name: str) -> WebLeg | None:
        return self.web if name == "web" else None


@pytest.fixture
async def ops(unifind_home: Path) -> AsyncIterator[Operations]:
    searcher = _Searcher(load_settings(web={"allow_private": True, "rate_limit": False}))
    searcher.kb.create("site", embedder=None)
    yield Operations(searcher)
    await searcher.web.aclose()
    searcher.kb.close()


async def test_a_crawl_follows_the_rules_and_a_recrawl_updates_changed_pages(
    site: FakeWebServer, ops: Operations
) -> None:
    seen: list[str] = []
    out = await ops.kb.crawl("site", f"{site.url}/", max_pages=20,
                             progress=lambda p: seen.append(p.status))  # fmt: skip
    by_url = {o.name.removeprefix(site.url): o for o in out.outcomes}
    assert by_url["/"].status == "added" and by_url["/a"].status == "added"
    assert by_url["/doc.pdf"].status == "added"
    assert by_url["/b"].status in ("added", "unchanged")  # reached through /old's redirect
    assert by_url["/private/secret"].status == "skipped"
    assert not any(r.path.startswith("/private") for r in site.requests)  # robots.txt kept
    assert out.failed == 0 and len(seen) == len(out.outcomes)
    assert site.count("GET", "/a") == 1  # the loop / → /a → / → /a#again: once each
    away = [o for o in out.outcomes if o.error and "off the site" in o.error]
    assert away and away[0].status == "skipped"
    docs = {d.document_id.removeprefix(site.url): d for d in ops.kb.documents("site")}
    assert docs["/doc.pdf"].title == "Report" and docs["/doc.pdf"].chunks >= 1
    assert docs["/big"].text_chars <= 5_000_000  # cut at the fetcher's byte cap

    site.route("GET", "/a", page("Page A", "Alpha page, now changed.", ["/"]))
    again = await ops.kb.crawl("site", f"{site.url}/", max_pages=20)
    statuses = {o.name.removeprefix(site.url): o.status for o in again.outcomes}
    assert statuses["/a"] == "replaced" and statuses["/"] == "unchanged"
    assert statuses["/doc.pdf"] == "unchanged" and again.added == 0


async def test_max_pages_stops_the_crawl_and_says_so(site: FakeWebServer, ops: Operations) -> None:
    out = await ops.kb.crawl("site", f"{site.url}/", max_pages=2)
    fetched = [o for o in out.outcomes if o.status != "skipped"]
    assert len(fetched) == 2 and (out.stopped or "").startswith("stopped at --max-pages 2")


async def test_kb_ingest_of_urls_goes_through_the_fetcher(
    site: FakeWebServer, ops: Operations
) -> None:
    out = await ops.kb.ingest("site", [TextDocumentIn(url=f"{site.url}/doc.pdf"),
                                       TextDocumentIn(url=f"{site.url}/missing")])  # fmt: skip
    assert [o.status for o in out.outcomes] == ["added", "failed"]
    assert "fetch failed" in (out.outcomes[1].error or "")
