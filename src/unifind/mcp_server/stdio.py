"""The stdio transport: ``unifind mcp`` for Claude Desktop, Cursor, VS Code and friends."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp.server.stdio import stdio_server

from unifind import Searcher, load_settings
from unifind.config import Settings, find_config
from unifind.mcp_server.server import build_server
from unifind.ops import Operations


def announce(settings: Settings, config: Path | None = None) -> None:
    """One line on stderr naming the home and config file this server uses.

    An MCP client starts the server with an environment of its own (the SDK's stdio client
    passes a minimal one, without UNIFIND_HOME), so which store it searches is not obvious
    from the client's side; stderr, since stdout is the protocol.
    """
    used = config or find_config()
    where = used.absolute() if used else "none (built-in defaults)"
    print(f"unifind mcp: home {settings.home}, config {where}", file=sys.stderr, flush=True)


async def serve_stdio(settings: Any = None) -> None:
    """Serve MCP on this process's stdin/stdout until the client closes it.

    Every call acts as the configured principal (``settings.principal``): the local user.
    """
    searcher = Searcher(settings if settings is not None else load_settings())
    try:
        server = build_server(Operations(searcher))
        # stdio_server points fd 1 at stderr while serving, so a stray print from a
        # dependency can't corrupt the JSON-RPC stream.
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await searcher.aclose()
