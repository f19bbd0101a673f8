"""The MCP endpoint at ``/mcp``: the MCP package's streamable-HTTP app behind the same keys."""

from __future__ import annotations

import json
import logging
from contextlib import AbstractAsyncContextManager
from typing import Any

from fastapi import FastAPI

from unifind.http_api._errors import error_body
from unifind.types import Principal

log = logging.getLogger("unifind.http")


def mount_mcp(app: FastAPI, state: Any, settings: Any) -> AbstractAsyncContextManager[None] | None:
    """Mount MCP at ``/mcp``; returns the session manager's lifespan to run (None: no extra)."""
    try:
        from unifind.mcp_server import streamable_http_app
    except ImportError as exc:  # the mcp extra is optional: the REST API runs without it
        log.warning("/mcp not mounted: %s", exc)
        return None
    keys = state.keys

    async def resolve(header: str | None) -> Principal | None:
        if keys is None:  # auth off (loopback only): the local principal
            local: Principal = settings.principal or Principal()
            return local
        scheme, _, key = (header or "").partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            return None
        found: Principal | None = await keys.averify(key.strip())
        return found

    security = None
    if keys is None:
        # Without keys, refuse other Host/Origin values: a web page could otherwise reach
        # a loopback server through DNS rebinding (the SDK's own protection).
        from mcp.server.transport_security import TransportSecuritySettings

        hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=hosts,
            allowed_origins=[f"http://{h}" for h in hosts],
        )
    mcp = streamable_http_app(state.ops, resolve, transport_security=security)

    guarded: Any = _Guarded(mcp.app, resolve, keys is not None)  # an ASGI app, not a handler
    app.add_route("/mcp", guarded, include_in_schema=False)
    return mcp.lifespan()


class _Guarded:
    """The MCP app behind a 401 for a missing or bad key (a class: Starlette treats a
    plain function endpoint as a request handler, an object as an ASGI app)."""

    def __init__(self, app: Any, resolve: Any, auth: bool) -> None:
        self.app, self.resolve, self.auth = app, resolve, auth

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.auth and await self.resolve(_header(scope, b"authorization")) is None:
            await _send_401(send)
            return
        await self.app(scope, receive, send)


def _header(scope: Any, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return str(v.decode("latin-1"))
    return None


async def _send_401(send: Any) -> None:
    message = "an API key is required: Authorization: Bearer <key> (unknown or revoked keys fail)"
    body = json.dumps(error_body(401, message), separators=(",", ":")).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", b"Bearer"),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})
