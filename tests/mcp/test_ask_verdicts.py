"""The MCP ``ask`` tool shows each flagged (sentence, cited id) pair with the source
sentence that decided it, and returns every verdict in structured content (issue #20)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server import Server

from unifind import Searcher, load_settings
from unifind.mcp_server import build_server
from unifind.ops import Operations
from unifind.testing.openai_server import OpenAIServer

SCRIPT = "Refunds take 90 days [ref_001]. Refunds take 30 days [ref_001, ref_002]."


@pytest.fixture
def llm() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


@pytest.fixture
async def server(llm: OpenAIServer, unifind_home: Path) -> AsyncIterator[Server[Any]]:
    searcher = Searcher(load_settings(agents={"answer": {"base_url": llm.base_url, "model": "m"}}))
    searcher.kb.create("docs", embedder=None)
    searcher.kb.ingest_text("docs", "Refunds take 30 days.", document_id="r", title="Refunds")
    searcher.kb.ingest_text("docs", "Parcels ship from Utrecht.", document_id="s", title="Ship")
    yield build_server(Operations(searcher))
    await searcher.aclose()


async def test_flagged_pairs_are_listed_with_their_source(
    server: Server[Any], llm: OpenAIServer
) -> None:
    llm.script_chat(SCRIPT)
    async with Client(server) as client:
        result = await client.call_tool("ask", {"message": "refunds ship", "sources": ["kb"]})
    text = "\n".join(c.text for c in result.content if c.type == "text")
    assert not result.is_error, text
    assert "- contradicted [ref_001]: Refunds take 90 days [ref_001]." in text
    assert "  source [ref_001]: Refunds take 30 days." in text
    assert "- not supported [ref_002]: Refunds take 30 days [ref_001, ref_002]." in text
    data = result.structured_content
    assert data is not None
    verdicts = [(v["citation"], v["verdict"]) for v in data["citations"]["verdicts"]]
    assert verdicts == [("ref_001", "contradicted"), ("ref_001", "supported"),
                        ("ref_002", "not_supported")]  # fmt: skip
