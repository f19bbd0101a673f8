"""The ``ask`` tool: an answer with [ref_NNN] ids and its sources, the citation check in
structured content, progress while it runs; extractive and through a loopback LLM."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server import Server

from unifind import Searcher, load_settings
from unifind.mcp_server import build_server
from unifind.mcp_server.args import ArgumentError
from unifind.mcp_server.ask import ask_input
from unifind.ops import Operations
from unifind.testing.openai_server import OpenAIServer

SCRIPT = "Refunds take 30 days [ref_001]. Unicorns approve them [ref_004]."


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def test_arguments_are_lenient_and_mistakes_named() -> None:
    inp = ask_input({"question": "why?", "collections": "docs,faq", "context": "a memo",
                     "max_references": "3", "answer": "none"})  # fmt: skip
    assert inp.message == "why?" and inp.limit == 3 and inp.uses.answer == "none"
    assert inp.sources is not None and inp.sources.kb is not None
    assert inp.sources.kb.collections == ["docs", "faq"]
    assert [p.text for p in inp.parts] == ["a memo"]
    with pytest.raises(ArgumentError, match="`message`"):
        ask_input({"message": " "})
    with pytest.raises(ArgumentError, match="Valid: message, context"):
        ask_input({"message": "q", "temperature": 1})
    with pytest.raises(ArgumentError, match="`sources`"):
        ask_input({"message": "q", "sources": ["intranet"]})
    pages = ask_input({"q": "sum up", "urls": "https://a.example/x, https://b.example/y",
                       "context": ["memo"], "assistant": "support"})  # fmt: skip
    assert [(p.text, p.url) for p in pages.parts] == [
        ("memo", None), (None, "https://a.example/x"), (None, "https://b.example/y")]  # fmt: skip
    assert pages.assistant == "support"


@pytest.fixture
def llm() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


@pytest.fixture
async def with_llm(llm: OpenAIServer, unifind_home: Path) -> AsyncIterator[Server[Any]]:
    agents = {"answer": {"base_url": llm.base_url, "model": "m"}}
    searcher = Searcher(load_settings(agents=agents))
    searcher.kb.create("docs", embedder=None)
    searcher.kb.ingest_text("docs", "Refunds take 30 days.", document_id="r", title="Refunds")
    yield build_server(Operations(searcher))
    await searcher.aclose()


async def test_llm_answer_with_sources_check_and_progress(
    with_llm: Server[Any], llm: OpenAIServer
) -> None:
    llm.script_chat(SCRIPT)
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))  # the names are mcp's ProgressFnT protocol's

    async with Client(with_llm) as client:
        result = await client.call_tool(
            "ask", {"message": "how long do refunds take?", "sources": ["kb"]},
            progress_callback=progress,
        )  # fmt: skip
    text = text_of(result)
    assert not result.is_error, text
    assert text.startswith(SCRIPT)
    assert "Sources:\n[ref_001] Refunds — docs: r" in text
    assert "unknown ids (no such reference): ref_004" in text
    data = result.structured_content
    assert data is not None and data["llm"] == "agent:answer" and data["status"] == "ok"
    assert data["citations"]["valid"] == ["ref_001"]
    assert data["citations"]["unknown"] == ["ref_004"]
    assert data["references"][0]["citation_id"] == "ref_001"
    assert [p[0] for p in seen] == [0, 1, 2, 3]
    assert seen[0][2] == "searching kb" and "1 reference(s)" in (seen[1][2] or "")


async def test_an_unknown_collection_is_an_in_band_error(with_llm: Server[Any]) -> None:
    async with Client(with_llm) as client:
        result = await client.call_tool("ask", {"message": "refunds?", "collections": "nope"})
    assert result.is_error
    assert "unknown collection 'nope'" in text_of(result) and "docs" in text_of(result)


async def test_extractive_answer_over_stdio_says_no_llm(stdio: StdioServerParameters) -> None:
    async with Client(stdio) as client:
        result = await client.call_tool(
            "ask", {"message": "when are refunds paid?", "collections": ["docs"]}
        )
    text = text_of(result)
    assert not result.is_error, text
    assert "Refunds are paid within 30 days" in text and "[ref_001]" in text
    assert "Note: No LLM is configured" in text
    assert "- kb/docs" in text
    data = result.structured_content
    assert data is not None and data["llm"] is None and data["citations"]["unknown"] == []


async def test_an_unknown_assistant_is_an_in_band_error_naming_the_valid_ones(
    llm: OpenAIServer, unifind_home: Path
) -> None:
    agents = {"answer": {"base_url": llm.base_url, "model": "m"}}
    settings = load_settings(agents=agents, assistants={"support": {"top_n": 2}})
    searcher = Searcher(settings)
    try:
        async with Client(build_server(Operations(searcher))) as client:
            result = await client.call_tool("ask", {"message": "refunds?", "assistant": "sales"})
        assert result.is_error and "support" in text_of(result), text_of(result)
    finally:
        await searcher.aclose()
