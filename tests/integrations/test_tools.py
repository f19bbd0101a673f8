"""Issue #21 scope 4: the tools as function-calling schemas, and a call a model made.

Vendors' documented shapes (checked against their docs):
- OpenAI Chat Completions ``tools``: https://platform.openai.com/docs/guides/function-calling
  ``{"type": "function", "function": {"name", "description", "parameters"}}``
- Anthropic Messages ``tools``: https://docs.anthropic.com/en/docs/build-with-claude/tool-use
  ``{"name", "description", "input_schema"}``
- MCP ``tools/list``: https://modelcontextprotocol.io/specification (``{"tools": [...]}``,
  each with ``name``, ``description``, ``inputSchema``)
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import unifind
from unifind import Searcher, load_settings
from unifind.mcp_server.tools import tools as mcp_tools
from unifind.tools import FORMATS, acall, call, schemas

NAMES = ["search", "fetch", "sources", "ask"]


@pytest.fixture
def searcher() -> Iterator[Searcher]:
    s = Searcher(load_settings(kb={"embedder": "hash:64"}))
    s.kb.create("docs", embedder="hash:64")
    s.kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="refunds",
                     title="Refunds")  # fmt: skip
    s.kb.ingest_text("docs", "Shipping takes five days.", document_id="shipping", title="Shipping")
    yield s
    s.close()


def _declared() -> dict[str, Any]:
    return {t.name: t for t in mcp_tools()}


def test_openai_shape_is_the_chat_completions_tools_list() -> None:
    out = schemas("openai")
    assert [t["function"]["name"] for t in out] == NAMES
    declared = _declared()
    for tool in out:
        assert set(tool) == {"type", "function"}
        assert tool["type"] == "function"
        fn = tool["function"]
        assert set(fn) == {"name", "description", "parameters"}
        assert fn["parameters"] == declared[fn["name"]].input_schema  # never hand-copied
        assert fn["parameters"]["type"] == "object"
        assert fn["description"] == declared[fn["name"]].description
    assert out[0]["function"]["parameters"]["required"] == ["query"]


def test_anthropic_shape_is_the_messages_tools_list() -> None:
    out = schemas("anthropic")
    declared = _declared()
    assert [t["name"] for t in out] == NAMES
    for tool in out:
        assert set(tool) == {"name", "description", "input_schema"}
        assert tool["input_schema"] == declared[tool["name"]].input_schema


def test_mcp_shape_is_the_tools_list_result() -> None:
    out = schemas("mcp")
    assert set(out) == {"tools"}
    assert [t["name"] for t in out["tools"]] == NAMES
    search = out["tools"][0]
    assert search["inputSchema"]["required"] == ["query"]
    assert search["annotations"]["readOnlyHint"] is True
    assert "outputSchema" in search


def test_unknown_format_names_the_valid_ones() -> None:
    with pytest.raises(unifind.InputError, match="openai, anthropic, mcp"):
        schemas("gemini")


def test_cli_prints_each_format_as_json() -> None:
    for fmt in FORMATS:
        run = subprocess.run(
            [sys.executable, "-m", "unifind.cli", "tools", "--format", fmt],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout) == schemas(fmt)
    bad = subprocess.run([sys.executable, "-m", "unifind.cli", "tools", "--format", "xml"],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert bad.returncode == 2
    assert "valid: openai, anthropic, mcp" in bad.stderr


def test_public_namespace_keeps_tools_out() -> None:
    """Decision: ``tools`` needs the mcp extra, so it stays a submodule, not a flat name."""
    assert "tools" not in unifind.__all__
    code = "import sys, unifind; print('unifind.tools' in sys.modules, 'mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_call_search_returns_cited_text_and_structured_content(searcher: Searcher) -> None:
    out = call("search", {"query": "refunds paid", "collections": ["docs"]}, searcher=searcher)
    assert not out.is_error, out.text
    assert "[ref_001]" in out.text and "Refunds" in out.text
    assert out.data is not None
    assert out.data["items"][0]["title"] == "Refunds"
    assert {r["leg"] for r in out.data["sources"]} == {"kb"}


def test_call_reads_lenient_inputs_as_the_mcp_tool_does(searcher: Searcher) -> None:
    # OpenAI sends arguments as JSON text; numbers as strings, lists as "a,b", aliases.
    text = json.dumps({"q": "days", "limit": "1", "collections": "docs"})
    out = call("search", text, searcher=searcher)
    assert not out.is_error, out.text
    assert out.data is not None and len(out.data["items"]) == 1


def test_call_sources_lists_the_collection(searcher: Searcher) -> None:
    out = call("sources", {}, searcher=searcher)
    assert not out.is_error
    assert out.data is not None
    assert [c["name"] for c in out.data["collections"]] == ["docs"]


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("search", {}, "Invalid argument `query`"),
        ("search", {"query": "x", "colour": "red"}, "Invalid argument `colour`: no such argument"),
        ("search", {"query": "x", "max_results": "many"}, "expected a whole number"),
        ("search", {"query": "x", "max_results": 500}, "Valid: 1 to 100"),
        ("search", {"query": "x", "collections": ["nope"]}, "unknown collection 'nope'"),
        ("fetch", {"start": 3}, "Invalid argument `url`"),
        ("lookup", {"query": "x"}, "Unknown tool `lookup`. Valid: search, fetch, sources, ask"),
        (None, {}, "Unknown tool `None`"),
        ("search", "{not json", "Invalid arguments: not JSON"),
        ("search", '["query"]', "expected a JSON object, got list"),
        ("search", 42, "expected a JSON object, got int"),
    ],
)
def test_bad_calls_answer_in_band(
    searcher: Searcher, name: Any, arguments: Any, expected: str
) -> None:
    out = call(name, arguments, searcher=searcher)
    assert out.is_error
    assert expected in out.text


def test_extra_argument_names_the_valid_ones(searcher: Searcher) -> None:
    out = call("search", {"query": "x", "top_k": 3}, searcher=searcher)
    assert out.is_error
    assert "query, sources, collections, models" in out.text


async def test_acall_and_call_inside_a_running_loop(searcher: Searcher) -> None:
    first = await acall("search", {"query": "shipping"}, searcher=searcher)
    assert not first.is_error and "Shipping" in first.text
    again = call("search", {"query": "shipping"}, searcher=searcher)  # sync, loop running
    assert not again.is_error and "Shipping" in again.text


def test_call_without_a_searcher_builds_and_closes_its_own() -> None:
    out = call("sources", None)
    assert not out.is_error, out.text
    assert out.data is not None and out.data["collections"] == []
