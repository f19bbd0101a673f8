"""``python -m unifind.mcp_server``: the stdio MCP server (same as ``unifind mcp``)."""

import anyio

from unifind import load_settings
from unifind.mcp_server import serve_stdio
from unifind.mcp_server.stdio import announce

settings = load_settings()
announce(settings)
anyio.run(serve_stdio, settings)
