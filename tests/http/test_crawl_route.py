"""POST /v1/collections/{name}/crawl: one site into a collection over HTTP, SSRF-checked."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest

from unifind import Searcher
from unifind.http_api import create_app
from unifind.kb.acl import OPERATOR
from unifind.store.keys import KeyStore
from unifind.testing.web_server import FakeWebServer, Respond

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
async def loopback_client(settings_of: Callable[..., Any]) -> AsyncIterator[httpx.AsyncClient]:
    """Tenant A on a server whose fetcher may reach loopback (the test site)."""
    searcher = Searcher(settings_of(web={"allow_private": True, "rate_limit": False}))
    # Owned by tenant A: a shared collection is read-only for tenants.
    searcher.kb.create("site", embedder="hash:64", tenant="acme", principal=OPERATOR)
    keys = KeyStore.from_settings(searcher.settings)
    key = keys.create("acme", "ana")[1]
    app = create_app(searcher=searcher, keys=keys, mcp=False)
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=headers) as c:
        yield c
    keys.close()
    await searcher.aclose()


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
