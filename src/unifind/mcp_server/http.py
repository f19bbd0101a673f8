"""Streamable HTTP transport: an ASGI app to mount at ``/mcp`` inside the HTTP API."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from unifind.mcp_server.server import PrincipalResolver, build_server
from unifind.ops import Operations


@dataclass(frozen=True)
class McpHttp:
    """The MCP endpoint's ASGI app and the session manager's lifespan it needs running."""

    app: Any
    """ASGI app answering POST/GET/DELETE of the Streamable HTTP transport at one path."""
    session_manager: StreamableHTTPSessionManager

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        """Enter once for the host app's lifetime (not per request); can't be re-entered."""
        return self.session_manager.run()


def streamable_http_app(
    ops: Operations,
    resolve_principal: PrincipalResolver,
    *,
    stateless: bool = True,
    json_response: bool = False,
    transport_security: TransportSecuritySettings | None = None,
) -> McpHttp:
    """The MCP server over Streamable HTTP, each call acting as its bearer key's principal.

    ``resolve_principal(authorization)`` gets the raw ``Authorization`` header of the
    HTTP request carrying each tool call (``"Bearer uf_..."`` or None) and returns the
    caller's :class:`~unifind.types.Principal`, or None when the key is missing, wrong or
    revoked (the tool then answers an in-band "Unauthorized" error and runs nothing). It
    may be sync or async. To serve without auth on loopback, return the local principal
    (``settings.principal`` or ``Principal()``) whatever the header.

    ``stateless`` (default) keeps no session between HTTP requests, so any worker of a
    ``--workers N`` deployment can answer any request; progress notifications still
    stream on the SSE response of the call that reports them. ``json_response`` answers
    plain JSON instead of SSE (no progress notifications). ``transport_security`` turns
    on the SDK's Host/Origin checks (DNS-rebinding protection): pass it when serving
    without auth, e.g. ``TransportSecuritySettings(enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*"], allowed_origins=["http://127.0.0.1:*",
    "http://localhost:*"])``.

    Mount it at ``/mcp`` with a plain route (a ``Mount`` would answer ``/mcp/`` and
    redirect ``/mcp``), and run its lifespan inside the app's::

        mcp = streamable_http_app(ops, resolve_principal)

        @contextlib.asynccontextmanager
        async def lifespan(app):
            async with mcp.lifespan():
                yield

        # Starlette
        app = Starlette(routes=[..., Route("/mcp", endpoint=mcp.app)], lifespan=lifespan)
        # FastAPI (the route takes every method; keep it out of the OpenAPI schema)
        app = FastAPI(lifespan=lifespan)
        app.add_route("/mcp", mcp.app, include_in_schema=False)

    The HTTP layer may also refuse a bad key with 401 before the request reaches ``app``;
    the in-band error covers a key revoked between requests and any mount without that
    middleware.
    """
    server = build_server(ops, resolve_principal=resolve_principal)
    manager = StreamableHTTPSessionManager(
        app=server,
        stateless=stateless,
        json_response=json_response,
        security_settings=transport_security,
    )
    return McpHttp(app=StreamableHTTPASGIApp(manager), session_manager=manager)
