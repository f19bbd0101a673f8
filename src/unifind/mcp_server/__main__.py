"""``python -m unifind.mcp_server``: the stdio MCP server (same as ``unifind mcp``)."""

import anyio

from unifind.mcp_server import serve_stdio

anyio.run(serve_stdio)
