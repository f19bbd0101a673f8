"""MCP progress notifications in the caller's language: ``telemetry.lang`` (stdio, in-memory)
or an HTTP caller's ``Accept-Language``."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.shared._httpx_utils import create_mcp_http_client

from unifind import Searcher, load_settings
from unifind.mcp_server import build_server
from unifind.ops import Operations

Seen = list[tuple[float, float | None, str | None]]
#: Proper names the messages may carry: backends and collections.
NAMES = {"docs", "faq", "searxng", "acme", "notes"}


def english(text: str | None) -> set[str]:
    return {w for w in re.findall(r"[A-Za-z_]+", text or "") if w not in NAMES}


def recorder(seen: Seen) -> Any:
    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    return progress


@pytest.fixture
async def zh_server(unifind_home: Path) -> AsyncIterator[Server[Any]]:
    searcher = Searcher(load_settings(telemetry={"lang": "zh"}))
    searcher.kb.create("docs", embedder=None)
    searcher.kb.ingest_text("docs", "Refunds take 30 days.", document_id="r", title="Refunds")
    yield build_server(Operations(searcher))
    await searcher.aclose()


async def test_the_configured_language_speaks_in_search_and_ask_progress(
    zh_server: Server[Any],
) -> None:
    search: Seen = []
    ask: Seen = []
    async with Client(zh_server) as client:
        await client.call_tool("search", {"query": "refunds"}, progress_callback=recorder(search))
        await client.call_tool(
            "ask", {"message": "how long do refunds take?", "sources": ["kb"]},
            progress_callback=recorder(ask),
        )  # fmt: skip
    assert search[0][2] == "正在搜索知识库"
    assert "知识库/docs 关键词：正常，1 条结果" in (search[1][2] or "")
    assert [p[0] for p in ask] == [0, 1, 2, 3]
    assert ask[0][2] == "正在搜索知识库" and ask[-1][2] == "正在核对引用"
    for _, _, message in search + ask:
        assert not english(message), message


async def test_an_http_callers_accept_language_wins(http_url: str) -> None:
    seen: Seen = []
    headers = {"Authorization": "Bearer key-acme", "Accept-Language": "zh-CN,zh;q=0.9"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(http_url, http_client=http)) as client,
    ):
        args = {"query": "refunds", "collections": ["docs"]}
        result = await client.call_tool("search", args, progress_callback=recorder(seen))
    assert not result.is_error
    assert seen and seen[0][2] == "正在搜索知识库"
    for _, _, message in seen:
        assert not english(message), message
