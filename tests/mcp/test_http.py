"""The Streamable HTTP MCP endpoint under uvicorn on loopback, with bearer-key principals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from unifind import Searcher, load_settings

from .conftest import http_client, serve


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


async def test_each_key_sees_only_its_own_tenants_collections(http_url: str) -> None:
    async with http_client(http_url, "Bearer key-acme") as acme:
        acme_sources = await acme.call_tool("sources", {})
        acme_search = await acme.call_tool("search", {"query": "refunds special"})
    async with http_client(http_url, "Bearer key-globex") as globex:
        globex_sources = await globex.call_tool("sources", {})
        globex_search = await globex.call_tool("search", {"query": "refunds special"})
        cross = await globex.call_tool("search", {"query": "refunds", "collections": "acme-notes"})

    def names(result: Any) -> set[str]:
        return {c["name"] for c in result.structured_content["collections"]}

    assert names(acme_sources) == {"docs", "faq", "acme-notes"}
    assert names(globex_sources) == {"docs", "faq", "globex-notes"}

    def collections(result: Any) -> set[str]:
        return {i["collection"] for i in result.structured_content["items"]}

    assert "acme-notes" in collections(acme_search)
    assert "globex-notes" not in collections(acme_search)
    assert "globex-notes" in collections(globex_search)
    assert "acme-notes" not in collections(globex_search)
    assert "acme" not in text_of(globex_search)
    # Asking for another tenant's collection: unknown, and the listing is the caller's own.
    assert cross.is_error
    assert "unknown collection 'acme-notes'" in text_of(cross)
    assert "Valid: docs, faq, globex-notes." in text_of(cross)


async def test_no_or_wrong_key_is_an_in_band_error_and_nothing_runs(http_url: str) -> None:
    for key in (None, "Bearer wrong"):
        async with http_client(http_url, key) as client:
            tools = await client.list_tools()
            result = await client.call_tool("search", {"query": "refunds"})
        assert [t.name for t in tools.tools] == ["search", "fetch", "sources", "ask"]
        assert result.is_error and result.structured_content is None
        assert text_of(result).startswith("Unauthorized: send a valid API key")


async def test_search_over_http_streams_progress_and_reports_sources(http_url: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))  # the names are mcp's ProgressFnT protocol's

    async with http_client(http_url, "Bearer key-acme") as client:
        result = await client.call_tool(
            "search",
            {"query": "refunds", "sources": {"kb": {"collections": ["docs"]}, "web": True}},
            progress_callback=progress,
        )
    assert not result.is_error
    assert "[ref_001]" in text_of(result) and "- web/searxng: ok, 2 hits" in text_of(result)
    assert [p[0] for p in seen] == [0, 1, 2] and seen[0][1] == 2
    data = result.structured_content
    assert data is not None
    assert {(s["leg"], s["status"]) for s in data["sources"]} == {("kb", "ok"), ("web", "ok")}


async def test_legacy_handshake_clients_are_served_too(http_url: str) -> None:
    async with http_client(http_url, "Bearer key-globex", mode="legacy") as client:
        result = await client.call_tool("search", {"query": "refunds", "max_results": "2"})
    assert not result.is_error
    assert result.structured_content is not None
    assert [i["citation_id"] for i in result.structured_content["items"]] == ["ref_001", "ref_002"]


async def test_mounted_in_the_http_api_behind_its_api_keys(seeded: Path) -> None:
    http_api = pytest.importorskip("unifind.http_api", reason="the HTTP API needs its extra")
    from unifind.store.keys import KeyStore

    searcher = Searcher(load_settings())
    keys = KeyStore.from_settings(searcher.settings)
    acme_key = keys.create("acme", "ana", ["support"])[1]
    try:
        with serve(http_api.create_app(searcher=searcher, keys=keys)) as base:
            async with http_client(base + "/mcp", f"Bearer {acme_key}") as client:
                listed = await client.call_tool("sources", {})
            async with httpx.AsyncClient() as plain:
                refused = await plain.post(base + "/mcp", json={})
    finally:
        keys.close()
        searcher.close()
    assert listed.structured_content is not None
    names = {c["name"] for c in listed.structured_content["collections"]}
    assert names == {"docs", "faq", "acme-notes"}
    assert refused.status_code == 401
