"""POST /v1/collections/{name}/crawl: one site into a collection over HTTP, SSRF-checked."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from tests.http.conftest import LiveServer

from unifind import Searcher
from unifind.http_api import create_app
from unifind.kb.acl import OPERATOR
from unifind.store.keys import KeyStore
from unifind.testing.web_server import FakeWebServer, Respond, Seen

HTML = "text/html; charset=utf-8"


def page(title: str, links: list[str]) -> Respond:
    anchors = "".join(f'<a href="{href}">{href}</a>' for href in links)
    body = f"<html><head><title>{title}</title></head><body><p>{title} text.</p>{anchors}</body>"
    return Respond(body=body, content_type=HTML)


@pytest.fixture
def site() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        s.route("GET", "/robots.txt", Respond(body="User-agent: *\nDisallow: /private/\n"))
        s.route("GET", "/", page("Home", ["/a", "/private/x", "/gone"]))
        s.route("GET", "/a", page("Alpha", ["/"]))
        s.route("GET", "/gone", Respond(404, body="gone"))
        yield s


@pytest.fixture
async def tenants(
    settings_of: Callable[..., Any],
) -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, str]]]:
    """Tenant A's client on a server whose fetcher may reach loopback (the test site), and
    tenant B's headers."""
    searcher = Searcher(settings_of(web={"allow_private": True, "rate_limit": False}))
    # Owned by tenant A: a shared collection is read-only for tenants.
    searcher.kb.create("site", embedder="hash:64", tenant="acme", principal=OPERATOR)
    keys = KeyStore.from_settings(searcher.settings)
    key = keys.create("acme", "ana")[1]
    key_b = keys.create("globex", "gus")[1]
    app = create_app(searcher=searcher, keys=keys, mcp=False)
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=headers) as c:
        yield c, {"Authorization": f"Bearer {key_b}"}
    keys.close()
    await searcher.aclose()


@pytest.fixture
def loopback_client(tenants: tuple[httpx.AsyncClient, dict[str, str]]) -> httpx.AsyncClient:
    return tenants[0]


def events(text: str) -> list[tuple[str, Any]]:
    blocks = [b for b in text.split("\n\n") if b.startswith("event: ")]
    return [(b.split("\n")[0][7:], json.loads(b.split("\ndata: ", 1)[1])) for b in blocks]


STREAM = {"Accept": "text/event-stream"}


async def test_crawl_reports_every_page(
    loopback_client: httpx.AsyncClient, site: FakeWebServer
) -> None:
    r = await loopback_client.post(
        "/v1/collections/site/crawl", json={"url": f"{site.url}/", "max_pages": 10}
    )
    assert r.status_code == 200, r.text
    out = r.json()
    by = {o["name"].removeprefix(site.url): o["status"] for o in out["outcomes"]}
    assert by == {"/": "added", "/a": "added", "/private/x": "skipped", "/gone": "failed"}
    assert (out["added"], out["failed"], out["skipped"]) == (2, 1, 1)
    docs = (await loopback_client.get("/v1/collections/site/documents")).json()
    assert {d["document_id"].removeprefix(site.url) for d in docs} == {"/", "/a"}


async def test_crawl_bad_input(loopback_client: httpx.AsyncClient) -> None:
    r = await loopback_client.post("/v1/collections/site/crawl", json={"url": "ftp://x/"})
    assert r.status_code == 400 and "http(s) URL" in r.json()["error"]["message"]
    r = await loopback_client.post(
        "/v1/collections/site/crawl", json={"url": "http://x/", "max_pages": 0}
    )
    assert r.status_code == 422
    r = await loopback_client.post("/v1/collections/nope/crawl", json={"url": "http://x/"})
    assert r.status_code == 404


async def test_crawl_of_loopback_is_refused_by_default(
    client: httpx.AsyncClient, site: FakeWebServer
) -> None:
    r = await client.post("/v1/collections", json={"name": "own", "embedder": None})
    assert r.status_code == 201
    r = await client.post("/v1/collections/own/crawl", json={"url": f"{site.url}/"})
    assert r.status_code == 200
    [start] = r.json()["outcomes"]
    assert start["status"] == "failed" and r.json()["failed"] == 1
    assert site.requests == []  # the SSRF check refused before any request


async def test_crawl_into_a_read_only_collection_fetches_nothing(
    loopback_client: httpx.AsyncClient, site: FakeWebServer
) -> None:
    app = loopback_client._transport.app  # type: ignore[attr-defined]
    app.state.unifind.ops.searcher.kb.create("shared", embedder=None, principal=OPERATOR)
    before = len(site.requests)
    r = await loopback_client.post(
        "/v1/collections/shared/crawl", json={"url": f"{site.url}/", "max_pages": 5}
    )
    assert r.status_code == 403 and "read-only" in r.json()["error"]["message"]
    assert len(site.requests) == before  # refused before any page was fetched


async def test_a_streamed_crawl_reports_each_page_as_it_goes(
    loopback_client: httpx.AsyncClient, site: FakeWebServer
) -> None:
    body = {"url": f"{site.url}/", "max_pages": 10}
    r = await loopback_client.post("/v1/collections/site/crawl", json=body, headers=STREAM)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    got = events(r.text)
    kinds = [k for k, _ in got]
    assert kinds[0] == "plan" and kinds[-1] == "done" and set(kinds[1:-1]) == {"page"}
    assert got[0][1] == {"collection": "site", "start": f"{site.url}/", "max_pages": 10}
    pages = [(d["url"].removeprefix(site.url), d["status"], d["fetched"]) for k, d in got[1:-1]]
    # In crawl order (links as the home page lists them); robots.txt's refusal is no fetch.
    assert pages == [
        ("/", "added", 1),
        ("/a", "added", 2),
        ("/private/x", "skipped", 2),
        ("/gone", "failed", 3),
    ]
    by_url = {d["url"].removeprefix(site.url): d for k, d in got[1:-1]}
    assert "robots.txt" in by_url["/private/x"]["error"] and "404" in by_url["/gone"]["error"]
    assert by_url["/"]["chunks"] >= 1 and all(d["max_pages"] == 10 for d in by_url.values())
    out = got[-1][1]
    assert (out["added"], out["failed"], out["skipped"]) == (2, 1, 1)
    assert [o["name"] for o in out["outcomes"]] == [d["url"] for _, d in got[1:-1]]
    # The same route without the header answers once, at the end (unchanged pages now).
    again = await loopback_client.post("/v1/collections/site/crawl", json=body)
    assert again.json()["unchanged"] == 2


async def test_a_streamed_crawl_refuses_bad_input_before_it_streams(
    tenants: tuple[httpx.AsyncClient, dict[str, str]], site: FakeWebServer
) -> None:
    client, other = tenants
    url = "/v1/collections/{}/crawl?stream=true"
    r = await client.post(url.format("site"), json={"url": "ftp://x/"})
    assert r.status_code == 400 and "http(s) URL" in r.json()["error"]["message"]
    r = await client.post(url.format("nope"), json={"url": f"{site.url}/"})
    assert r.status_code == 404
    # Tenant B can neither see nor crawl into tenant A's collection.
    r = await client.post(url.format("site"), json={"url": f"{site.url}/"}, headers=other)
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")
    r = await client.post(url.format("site"), json={"url": f"{site.url}/"}, headers={})
    assert r.status_code == 200  # the client's own key (A): the check above could pass
    r = await client.post(
        url.format("site"), json={"url": f"{site.url}/"}, headers={"Authorization": "Bearer x"}
    )
    assert r.status_code == 401
    app = client._transport.app  # type: ignore[attr-defined]
    app.state.unifind.ops.searcher.kb.create("shared", embedder=None, principal=OPERATOR)
    before = len(site.requests)
    r = await client.post(url.format("shared"), json={"url": f"{site.url}/"})
    assert r.status_code == 403 and len(site.requests) == before


async def test_a_streamed_crawl_of_loopback_is_refused_by_default(
    client: httpx.AsyncClient, site: FakeWebServer
) -> None:
    assert (await client.post("/v1/collections", json={"name": "own"})).status_code == 201
    r = await client.post("/v1/collections/own/crawl?stream=true", json={"url": f"{site.url}/"})
    got = events(r.text)
    [(_, start)] = [e for e in got if e[0] == "page"]
    assert start["status"] == "failed" and start["fetched"] == 1
    assert got[-1][0] == "done" and got[-1][1]["failed"] == 1
    assert site.requests == []  # the SSRF check refused before any request


def _wait(done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 10  # a safeguard against hanging, not a speed target
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_a_client_that_leaves_stops_the_crawl(
    settings_of: Callable[..., Any], site: FakeWebServer
) -> None:
    gate = threading.Event()

    def held(seen: Seen) -> Respond:
        gate.wait(20)
        return page("Alpha", [])

    site.route("GET", "/", page("Home", ["/a", "/b"]))
    site.route("GET", "/a", held)
    site.route("GET", "/b", page("Beta", []))
    searcher = Searcher(settings_of(web={"allow_private": True, "rate_limit": False}))
    searcher.kb.create("site", embedder="hash:64", tenant="acme", principal=OPERATOR)
    keys = KeyStore.from_settings(searcher.settings)
    headers = {"Authorization": f"Bearer {keys.create('acme', 'ana')[1]}"}
    body = {"url": f"{site.url}/", "max_pages": 10}
    try:
        with LiveServer(create_app(searcher=searcher, keys=keys, mcp=False)) as live:
            baseline = live.tasks()
            with httpx.Client(base_url=live.url, headers=headers, timeout=30) as c:
                with c.stream("POST", "/v1/collections/site/crawl?stream=true", json=body) as r:
                    for line in r.iter_lines():
                        if line.startswith("event: page"):  # the home page is in
                            break
                    _wait(lambda: site.count("GET", "/a") == 1, "the crawl never asked for /a")
                # The response is closed unread: the connection goes, and with it the crawl.
                _wait(lambda: live.tasks() <= baseline, "the crawl kept running")
                gate.set()
                docs = c.get("/v1/collections/site/documents").json()
        assert [d["document_id"].removeprefix(site.url) for d in docs] == ["/"]
        assert site.count("GET", "/b") == 0  # never reached
    finally:
        gate.set()
        keys.close()
        searcher.close()
