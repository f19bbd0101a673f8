"""A crawl stays on its start's site (issue #18): two loopback servers are two sites (another
port), and nothing on the second is ever requested — not a sitemap robots.txt names there,
not a sitemap-index child there, not a redirect target there; each is a skipped URL."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from unifind.config import load_settings
from unifind.kb.service import KnowledgeBase
from unifind.ops import Operations
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.web.leg import WebLeg
from unifind.web.urls import same_site, site_of

HTML = "text/html; charset=utf-8"
XML = "application/xml"


def page(title: str, links: list[str]) -> Respond:
    anchors = "".join(f'<a href="{href}">{href}</a> ' for href in links)
    body = f"<html><head><title>{title}</title></head><body><p>{title} text.</p>{anchors}</body>"
    return Respond(body=body + "</html>", content_type=HTML)


def urlset(*locs: str) -> Respond:
    entries = "".join(f"<url><loc>{u}</loc></url>" for u in locs)
    return Respond(body=f"<urlset>{entries}</urlset>", content_type=XML)


@pytest.fixture
def other() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        for path in ("/", "/robots.txt", "/sitemap.xml", "/kids.xml", "/landing", "/page"):
            s.route("GET", path, urlset(f"{s.url}/page") if path.endswith(".xml")
                    else page("Elsewhere", []))  # fmt: skip
        yield s


class _Searcher:
    def __init__(self) -> None:
        self.settings = load_settings(web={"allow_private": True, "rate_limit": False})
        self.kb = KnowledgeBase.open(self.settings)
        self.web = WebLeg.from_settings(self.settings)

    def leg(self, name: str) -> WebLeg | None:
        return self.web if name == "web" else None


@pytest.fixture
async def ops(unifind_home: Path) -> AsyncIterator[Operations]:
    searcher = _Searcher()
    searcher.kb.create("site", embedder=None)
    yield Operations(searcher)
    await searcher.web.aclose()
    searcher.kb.close()


async def test_sitemaps_children_entries_and_redirects_on_another_site_are_skipped(
    other: FakeWebServer, ops: Operations
) -> None:
    b = other.url
    with FakeWebServer() as home:
        a = home.url
        home.route("GET", "/robots.txt", Respond(body=f"User-agent: *\nSitemap: {b}/sitemap.xml\n"
                                                      f"Sitemap: {a}/index.xml\n"))  # fmt: skip
        home.route("GET", "/index.xml", Respond(
            body=f"<sitemapindex><sitemap><loc>{a}/pages.xml</loc></sitemap>"
                 f"<sitemap><loc>{b}/kids.xml</loc></sitemap></sitemapindex>",
            content_type=XML))  # fmt: skip
        home.route("GET", "/pages.xml", urlset(f"{a}/p1", f"{b}/page", f"{a}/moved"))
        home.route("GET", "/", page("Home", ["/p1", f"{b}/"]))
        home.route("GET", "/p1", page("One", ["/"]))
        home.route("GET", "/moved", Respond(302, headers={"Location": f"{b}/landing"}))
        out = await ops.kb.crawl("site", f"{a}/", max_pages=20)

    assert other.requests == []  # the second site was never contacted
    why = {o.name: (o.status, o.error or "") for o in out.outcomes}
    assert why[f"{a}/p1"][0] == "added" and why[f"{a}/"][0] == "added"
    skipped = {name: error for name, (status, error) in why.items() if status == "skipped"}
    assert skipped == {
        f"{b}/sitemap.xml": "sitemap named by robots.txt on another site: not fetched",
        f"{b}/kids.xml": "sitemap-index child on another site: not fetched",
        f"{b}/page": "listed by the sitemap but on another site: not fetched",
        f"{a}/moved": f"local: redirected off the site to {b}/landing: not followed",
    }
    assert out.skipped == 4 and out.failed == 0


async def test_robots_and_sitemap_redirecting_off_the_site_are_not_followed(
    other: FakeWebServer, ops: Operations
) -> None:
    b = other.url
    with FakeWebServer() as home:
        a = home.url
        home.route("GET", "/robots.txt", Respond(301, headers={"Location": f"{b}/robots.txt"}))
        home.route("GET", "/sitemap.xml", Respond(302, headers={"Location": f"{b}/sitemap.xml"}))
        home.route("GET", "/", page("Home", []))
        out = await ops.kb.crawl("site", f"{a}/", max_pages=5)
    assert other.requests == []
    why = {o.name: (o.status, o.error) for o in out.outcomes}
    assert why == {
        f"{a}/robots.txt": ("skipped", f"robots.txt redirected off the site to {b}/robots.txt: "
                                       "not followed"),
        f"{a}/sitemap.xml": ("skipped", "sitemap named by robots.txt redirected off the site "
                                        f"to {b}/sitemap.xml: not followed"),
        f"{a}/": ("added", None),
    }  # fmt: skip


def test_one_site_is_scheme_host_and_port_with_www_and_the_bare_name_as_one() -> None:
    assert same_site("http://example.com/a", "http://www.example.com:80/b?x#y")
    assert same_site("https://EXAMPLE.com./", "https://example.com:443/")
    assert not same_site("http://example.com/", "https://example.com/")
    assert not same_site("http://example.com/", "http://example.com:8080/")
    assert not same_site("http://example.com/", "http://docs.example.com/")
    assert not same_site("http://example.com/", "http://example.com.evil.test/")
    assert site_of("http://example.com:99999/") is None and site_of("mailto:a@b.c") is None


async def test_the_web_leg_fetch_stays_on_the_site_only_when_asked(other: FakeWebServer) -> None:
    settings = load_settings(web={"allow_private": True, "rate_limit": False})
    leg = WebLeg.from_settings(settings)
    try:
        with FakeWebServer() as home:
            home.route("GET", "/moved", Respond(302, headers={"Location": f"{other.url}/landing"}))
            home.route("GET", "/stay", Respond(302, headers={"Location": "/here"}))
            home.route("GET", "/here", page("Here", []))
            kept = await leg.fetch(f"{home.url}/moved", provider="local", stay_on_site=True)
            assert not kept.ok and kept.report.reason == "forbidden"
            assert other.requests == []
            inside = await leg.fetch(f"{home.url}/stay", provider="local", stay_on_site=True)
            assert inside.ok and inside.final_url == f"{home.url}/here"
            followed = await leg.fetch(f"{home.url}/moved", provider="local")
            assert followed.ok and [r.path for r in other.requests] == ["/landing"]
    finally:
        await leg.aclose()
