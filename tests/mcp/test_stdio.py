"""The stdio MCP server, spawned as a real process and driven by the SDK's client."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from unifind.testing.web_server import FakeWebServer

from .conftest import ARTICLE_WORDS, stdio_params


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


async def test_lists_four_read_only_tools_with_schemas(stdio: StdioServerParameters) -> None:
    async with Client(stdio) as client:
        listed = (await client.list_tools()).tools
    tools = {t.name: t for t in listed}
    assert list(tools) == ["search", "fetch", "sources", "ask"]
    assert all(t.annotations and t.annotations.read_only_hint for t in listed)
    # Open world only where the public web can be reached.
    assert {n: t.annotations.open_world_hint for n, t in tools.items() if t.annotations} == {
        "search": True,
        "fetch": True,
        "sources": False,
        "ask": True,
    }
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["sources"]["items"]["enum"] == ["kb", "web", "db"]
    assert search["properties"]["mode"]["enum"] == ["all", "any", "race"]
    assert {"collections", "models", "max_results", "domains", "time_range", "request_id"} <= set(
        search["properties"]
    )
    assert set(tools["fetch"].input_schema["properties"]) == {"url", "urls", "max_chars", "start"}
    assert tools["ask"].input_schema["required"] == ["message"]
    assert tools["ask"].output_schema is not None
    assert "citations" in tools["ask"].output_schema["required"]
    assert all(t.description and len(t.description) > 80 for t in listed)


async def test_search_text_has_ref_ids_and_every_source_status(
    stdio: StdioServerParameters,
) -> None:
    async with Client(stdio) as client:
        result = await client.call_tool(
            "search", {"query": "refunds", "sources": ["kb", "web", "db"]}
        )
    text = text_of(result)
    assert not result.is_error
    assert "[ref_001]" in text and "\nSources:\n" in text
    assert "- web/searxng: ok, 2 hits" in text
    assert "- db/db: disabled (not_configured)" in text
    data = result.structured_content
    assert data is not None and data["status"] == "ok"
    statuses = {(s["leg"], s["backend"], s.get("stage")): s["status"] for s in data["sources"]}
    assert statuses[("web", "searxng", None)] == "ok"
    assert statuses[("db", "db", None)] == "disabled"
    assert statuses[("kb", "docs", "lexical")] == statuses[("kb", "faq", "lexical")] == "ok"
    ids = [i["citation_id"] for i in data["items"]]
    assert ids[0] == "ref_001" and len(set(ids)) == len(ids)
    assert {i["type"] for i in data["items"]} == {"kb", "web"}
    # Tenant collections stay invisible to the local user with no principal configured.
    assert not any(i.get("collection", "").endswith("-notes") for i in data["items"])


async def test_lenient_inputs_are_understood(stdio: StdioServerParameters) -> None:
    async with Client(stdio) as client:
        result = await client.call_tool(
            "search", {"query": "refunds shipping", "max_results": "1", "collections": '["docs"]'}
        )
        commas = await client.call_tool(
            "search", {"query": "refunds", "sources": "kb,db", "collections": "docs"}
        )
    data = result.structured_content
    assert not result.is_error and data is not None
    assert len(data["items"]) == 1 and data["items"][0]["collection"] == "docs"
    assert {s["backend"] for s in data["sources"]} == {"docs"}
    assert commas.structured_content is not None
    assert {s["leg"] for s in commas.structured_content["sources"]} == {"kb", "db"}


async def test_unknown_collection_is_an_in_band_error_listing_valid_ones(
    stdio: StdioServerParameters,
) -> None:
    async with Client(stdio) as client:
        result = await client.call_tool("search", {"query": "x", "collections": ["nope"]})
        bad_source = await client.call_tool("search", {"query": "x", "sources": ["kb", "wiki"]})
    assert result.is_error
    assert text_of(result).startswith("Invalid argument `collections`: unknown collection 'nope'")
    assert "Valid: docs, faq." in text_of(result)
    assert "acme-notes" not in text_of(result)
    assert bad_source.is_error
    assert "`sources`" in text_of(bad_source) and "kb, web, db" in text_of(bad_source)


async def test_progress_notifications_arrive_while_legs_run(stdio: StdioServerParameters) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))  # the names are mcp's ProgressFnT protocol's

    async with Client(stdio) as client:
        result = await client.call_tool(
            "search", {"query": "refunds", "sources": ["kb", "web"]}, progress_callback=progress
        )
    assert not result.is_error
    assert seen[0] == (0, 2, "searching kb, web")
    assert [p[0] for p in seen] == [0, 1, 2]
    finished = " ".join(m or "" for _, _, m in seen[1:])
    assert "web/searxng: ok, 2 hits" in finished and "kb/docs lexical: ok" in finished


async def test_fetch_pages_through_a_long_page_with_start(
    stdio: StdioServerParameters, web: FakeWebServer
) -> None:
    url = web.url + "/article"
    async with Client(stdio) as client:
        first = await client.call_tool("fetch", {"url": url, "max_chars": "2000"})
        data = first.structured_content
        assert not first.is_error and data is not None
        assert data["start"] == 0 and 1500 < data["next_start"] <= 2000
        assert f"call fetch with start={data['next_start']} for the next page" in text_of(first)
        second = await client.call_tool(
            "fetch", {"url": url, "max_chars": 2000, "start": data["next_start"]}
        )
    page2 = second.structured_content
    assert page2 is not None and page2["start"] == data["next_start"]
    assert page2["total_chars"] == data["total_chars"] > 10_000
    # The pages are consecutive slices of one text: the words run on without a gap.
    words = (data["text"] + page2["text"]).split()
    body = words[words.index("word0000") :]
    assert len(body) > 300
    assert body[:-1] == ARTICLE_WORDS.split()[: len(body) - 1]


async def test_size_budget_cuts_whole_items_and_says_so(stdio: StdioServerParameters) -> None:
    async with Client(stdio) as client:
        full = await client.call_tool("search", {"query": "refunds shipping receipt"})
        small = await client.call_tool(
            "search", {"query": "refunds shipping receipt", "max_chars": 1000}
        )
    assert full.structured_content and small.structured_content
    shown = len(small.structured_content["items"])
    assert shown < len(full.structured_content["items"])
    text = text_of(small)
    assert len(text) <= 1000
    assert "[truncated:" in text and "max_chars" in text
    assert small.structured_content["truncated"]["omitted"] >= 1
    assert "Sources:" in text  # the statuses survive any cut


async def test_unifind_mcp_command_serves_stdio(seeded: Path, config: Path) -> None:
    exe = Path(sys.executable).with_name("unifind")
    async with Client(stdio_params(seeded, config, str(exe), "mcp")) as client:
        result = await client.call_tool("sources", {})
    text = text_of(result)
    assert "- docs — Company handbook (2 documents" in text
    assert "- searxng: usable" in text and "used by default" in text
    assert result.structured_content is not None
    assert [c["name"] for c in result.structured_content["collections"]] == ["docs", "faq"]


async def test_stdio_acts_as_the_configured_principal(
    seeded: Path, config: Path, tmp_path: Path
) -> None:
    data = yaml.safe_load(config.read_text())
    data["principal"] = {"tenant": "acme", "user": "ana", "roles": ["support"]}
    acme = tmp_path / "acme.yaml"
    acme.write_text(yaml.safe_dump(data))
    async with Client(stdio_params(seeded, acme)) as client:
        listed = await client.call_tool("sources", {})
        found = await client.call_tool("search", {"query": "special", "collections": "acme-notes"})
        other = await client.call_tool("search", {"query": "x", "collections": "globex-notes"})
    assert listed.structured_content is not None
    names = [c["name"] for c in listed.structured_content["collections"]]
    assert sorted(names) == ["acme-notes", "docs", "faq"]
    assert found.structured_content is not None
    assert found.structured_content["items"][0]["collection"] == "acme-notes"
    assert other.is_error and "Valid: acme-notes, docs, faq." in text_of(other)
