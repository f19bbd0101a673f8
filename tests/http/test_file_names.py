"""HTTP and MCP callers never see where the server keeps ingested files (#18).

A folder ingested from the server's disk is shown by its path relative to what was
ingested (``handbook/refunds.md``), in search items, document listings and MCP output,
and that name is what a caller deletes by.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from mcp import Client

from unifind import Searcher
from unifind.mcp_server import build_server
from unifind.ops import Operations
from unifind.types import Principal

#: Tenant A's key in tests/http/conftest.py.
ANA = Principal(tenant="acme", user="ana", roles=("support",))


def _handbook(tmp_path: Path) -> Path:
    top = tmp_path / "srv" / "data" / "handbook"
    (top / "policies").mkdir(parents=True)
    (top / "policies" / "refunds.md").write_text("# Refunds\n\nRefunds take 30 days.\n")
    (top / "notes.log").write_text("refunds desk opens at nine\nrefunds desk closes at five\n")
    return top


async def test_http_search_and_listing_show_relative_names(
    searcher: Searcher, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    top = _handbook(tmp_path)
    made = await client.post("/v1/collections", json={"name": "hb", "embedder": "hash:64"})
    assert made.status_code == 201  # tenant A's own: it may delete from it
    report = searcher.kb.ingest("hb", [top], principal=ANA)  # a server-side ingest as A
    assert report.added == 2
    root = str(top.parent)

    kb = {"kb": {"collections": "hb"}}
    r = await client.post("/v1/search", json={"query": "refunds desk days", "sources": kb})
    body = r.json()
    shown = {i["document_id"] for i in body["items"]}
    assert {"handbook/policies/refunds.md", "handbook/notes.log"} <= shown
    assert root not in r.text  # no id, title, source or metadata names the server's folder

    listed = await client.get("/v1/collections/hb/documents")
    assert root not in listed.text
    assert "handbook/notes.log" in {d["document_id"] for d in listed.json()}
    # The shown name is what a caller deletes by (the path travels encoded).
    gone = await client.delete("/v1/collections/hb/documents/handbook/notes.log")
    assert gone.status_code == 200
    left = searcher.kb.documents("hb", principal=ANA)
    assert [d.document_id for d in left] == [str(top / "policies" / "refunds.md")]


async def test_mcp_search_shows_relative_names(searcher: Searcher, tmp_path: Path) -> None:
    top = _handbook(tmp_path)
    searcher.kb.ingest("docs", [top])
    async with Client(build_server(Operations(searcher))) as mcp:
        result = await mcp.call_tool("search", {"query": "refunds desk days", "sources": "kb"})
    text = "\n".join(c.text for c in result.content if c.type == "text")
    everything = text + json.dumps(result.structured_content)
    assert "handbook/policies/refunds.md" in everything
    assert str(top.parent) not in everything
