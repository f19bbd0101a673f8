"""The MCP server (L5): ``search``, ``fetch`` and ``sources`` tools over the operation layer.

Over stdio (``unifind mcp``) every call acts as the configured principal; over
Streamable HTTP (:func:`streamable_http_app`, mounted at ``/mcp`` by ``unifind serve``)
each call acts as its bearer key's principal. Needs the ``mcp`` extra.
"""

from __future__ import annotations

try:
    import mcp  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    from unifind import MissingDependency

    raise MissingDependency("mcp", "mcp") from exc

from unifind.mcp_server.http import McpHttp, streamable_http_app
from unifind.mcp_server.server import PrincipalResolver, build_server
from unifind.mcp_server.stdio import serve_stdio

__all__ = [
    "McpHttp",
    "PrincipalResolver",
    "build_server",
    "serve_stdio",
    "streamable_http_app",
]
