"""A small MCP server for the rerank tests, on the official SDK (run: python this.py [port]).

Over stdio by default; with a port argument, Streamable HTTP on 127.0.0.1:<port>/mcp.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("unifind-test-ranker")


@server.tool()
def rerank(query: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Reverse the order (structured content, the seeds' ``order`` shape)."""
    return {"order": [item["id"] for item in reversed(items)]}


@server.tool()
def rerank_text(query: str, items: list[dict[str, Any]]) -> str:
    """Put items whose content mentions a query word first, as JSON text (``items`` shape)."""
    words = set(query.lower().split())
    hits = [it for it in items if words & set(it["content"].lower().strip(".").split())]
    return json.dumps({"items": [{"citation_id": it["id"]} for it in hits]})


@server.tool()
def broken(query: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Fail like a real tool bug."""
    raise RuntimeError("ranker index is corrupt")


@server.tool()
def chatty(query: str, items: list[dict[str, Any]]) -> str:
    """Answer prose instead of an order."""
    return "All of these look relevant to me!"


@server.tool()
def rerank_authorized(query: str, items: list[dict[str, Any]], ctx: Context) -> dict[str, Any]:
    """Reverse, but only for HTTP callers that sent ``Authorization: Bearer test-token``."""
    request = ctx.request_context.request
    headers = getattr(request, "headers", {})
    if headers.get("authorization") != "Bearer test-token":
        raise PermissionError("missing or wrong Authorization header")
    return rerank(query, items)


if __name__ == "__main__":
    # The SDK logs each failing tool with a rich traceback; rendering it costs ~1 s a call.
    logging.disable(logging.CRITICAL)
    if len(sys.argv) > 1:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
    else:
        server.run()
