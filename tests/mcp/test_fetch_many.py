"""The MCP `fetch` tool with several pages (`urls`): parallel, each paged, honest per page."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client
from mcp.server import Server

from unifind import Searcher, load_settings
from unifind.mcp_server import build_server
from unifind.mcp_server.args import MAX_FETCH_URLS, ArgumentError, fetch_inputs
from unifind.ops import Operations
from unifind.testing.web_server import FakeWebServer, Respond


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def html(title: str, body: str) -> Respond:
    markup = f"<html><head><title>{title}</title></head><body><p>{body}</p></body></html>"
    return Respond(body=markup, content_type="text/html")


@pytest.fixture
async def served() -> AsyncIterator[tuple[Server[Any], FakeWebServer]]:
    with FakeWebServer() as web:
        web.route("GET", "/a", html("Alpha", "Alpha page text. " * 50))
        web.route("GET", "/b", html("Bravo", "Bravo page text."))
        web.route("GET", "/gone", Respond(404, body="gone"))
        searcher = Searcher(load_settings(web={"allow_private": True, "rate_limit": False}))
        yield build_server(Operations(searcher)), web
        await searcher.aclose()


def test_url_and_urls_merge_deduplicated_and_bounded() -> None:
    inputs = fetch_inputs({"url": "https://e.org/a", "urls": ["https://e.org/b ", "https://e.org/a"],
                           "max_chars": 500})  # fmt: skip
    assert [(i.url, i.max_chars) for i in inputs] == [
        ("https://e.org/a", 500),
        ("https://e.org/b", 500),
    ]
    assert [i.url for i in fetch_inputs({"urls": "https://e.org/c"})] == ["https://e.org/c"]
    too_many = [f"https://e.org/{n}" for n in range(MAX_FETCH_URLS + 1)]
    with pytest.raises(ArgumentError, match="at most 10"):
        fetch_inputs({"urls": too_many})
    with pytest.raises(ArgumentError, match="`urls`"):
        fetch_inputs({"urls": [3]})
    with pytest.raises(ArgumentError, match="`url`"):
        fetch_inputs({"urls": []})


async def test_several_pages_in_one_call(served: tuple[Server[Any], FakeWebServer]) -> None:
    server, web = served
    async with Client(server) as client:
        got = await client.call_tool(
            "fetch", {"urls": [f"{web.url}/a", f"{web.url}/b", f"{web.url}/gone"], "max_chars": 200}
        )
        none = await client.call_tool("fetch", {"urls": [f"{web.url}/gone"]})
    data = got.structured_content
    assert not got.is_error and data is not None  # two of three read: partial, not an error
    assert data["status"] == "partial"
    assert [p["status"] for p in data["pages"]] == ["ok", "ok", "unavailable"]
    assert data["pages"][0]["next_start"] is not None and len(data["pages"][0]["text"]) <= 200
    text = text_of(got)
    assert text.startswith("2 of 3 pages read.") and "# Alpha" in text and "# Bravo" in text
    assert f"Could not fetch {web.url}/gone" in text
    assert none.is_error and none.structured_content is not None  # a single url: as before
    assert none.structured_content["status"] == "unavailable"
