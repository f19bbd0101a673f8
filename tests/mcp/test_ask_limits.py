"""The ``ask`` tool when the deadline cuts the citation check (issue #18): the text says
how many cited sentences were left unchecked, and the sources are still listed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from mcp import Client

from unifind import Searcher, load_settings
from unifind.mcp_server import build_server
from unifind.ops import Operations
from unifind.testing.openai_server import OpenAIServer, Reply, sse_chunk


def _slow() -> Iterator[bytes]:
    for _ in range(100_000):
        time.sleep(0.01)
        yield sse_chunk("Refunds take 30 days [ref_001]. " * 100)


async def test_an_unchecked_rest_is_said_and_the_sources_stay(unifind_home: Path) -> None:
    with OpenAIServer() as llm:
        llm.script_chat(Reply(chunks=_slow()))
        searcher = Searcher(load_settings(
            agents={"answer": {"base_url": llm.base_url, "model": "m"}},
            ask={"deadline_s": 4.0, "support": "lexical", "max_answer_chars": 10_000_000},
        ))  # fmt: skip
        searcher.kb.create("docs", embedder=None)
        searcher.kb.ingest_text("docs", "Refunds take 30 days.", document_id="r", title="Refunds")
        await searcher.plan("how long do refunds take?")  # warm: jieba loads once, slowly
        try:
            async with Client(build_server(Operations(searcher))) as client:
                result = await client.call_tool(
                    "ask", {"message": "how long do refunds take?", "sources": ["kb"]}
                )
        finally:
            await searcher.aclose()
    text = "\n".join(c.text for c in result.content if c.type == "text")
    assert "Sources:\n[ref_001] Refunds — docs: r" in text
    assert "more were not checked for support" in text
    data = result.structured_content
    assert data is not None and data["citations"]["unchecked_sentences"] > 0
