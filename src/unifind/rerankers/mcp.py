"""``mcp:<server>.<tool>``: a tool on an MCP server orders the items.

The server is ``settings.mcp_servers[<server>]`` (see :mod:`unifind.mcp_client`); the server
name ends at the first dot, the tool name is the rest. The tool is called with::

    {"query": "...", "items": [{"id": "ref_001", "title": ..., "content": ..., "url": ...}]}

and answers, as structured content or as JSON text, ``{"order": [ids]}`` or
``{"items": [{"citation_id": id}]}`` (ids or 1-based indexes; see ``_answer``).
"""

from __future__ import annotations

from collections.abc import Sequence

from unifind import mcp_client
from unifind._deps import require
from unifind.config import Settings
from unifind.errors import InputError
from unifind.rerankers._answer import item_ids, item_views, parse_ranking
from unifind.rerankers.base import Ranking, RerankMode
from unifind.types import Item

MAX_CHARS = 2000
"""Per-item content sent to the tool; a tool is not an LLM context, but a pipe still costs."""


def split(arg: str) -> tuple[str, str]:
    """``server.tool`` → ``(server, tool)``; anything else is bad input."""
    server, dot, tool = arg.partition(".")
    if not (server and dot and tool):
        raise InputError(f"rerank mode 'mcp' needs 'mcp:<server>.<tool>', got 'mcp:{arg}'")
    return server, tool


class McpMode(RerankMode):
    """Calls the configured tool through a real MCP client session."""

    name = "mcp"
    form = "mcp:<server>.<tool>"

    def check(self, arg: str, settings: Settings) -> None:
        server, _ = split(arg)
        mcp_client.server_spec(settings, server)
        require("mcp", "mcp")

    async def rank(
        self, items: Sequence[Item], query: str, arg: str, settings: Settings
    ) -> Ranking:
        server, tool = split(arg)
        spec = mcp_client.server_spec(settings, server)
        ids = item_ids(items)
        arguments = {"query": query, "items": item_views(items, ids, MAX_CHARS)}
        result = await mcp_client.call_tool(spec, tool, arguments)
        return parse_ranking(result.payload(), ids, who=f"mcp tool {arg!r}")
