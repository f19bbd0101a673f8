"""The ASGI guard in front of every route: body size limits, JSON leniency, worker id.

Pure ASGI rather than Starlette's ``BaseHTTPMiddleware``: that one buffers streamed
responses through a memory channel and runs the app in another task, which would delay
SSE events and hide a client's disconnect from the stream.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from fastapi import HTTPException

from unifind.http_api._errors import error_body

Scope = dict[str, Any]
Message = dict[str, Any]

#: Bodies allowed up to ``max_body_bytes``: uploads and document ingest. Others get
#: ``max_json_bytes``: a search or a new collection has no reason to be megabytes.
_UPLOADS = re.compile(r"^/v1/collections/[^/]+/(files|documents)/?$")
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: RFC 9110 §7.2 Host = uri-host [ ":" port ]: a name or IPv4 address, or an IPv6 address
#: in brackets. Anything else (``127.0.0.1@evil.com``, ``localhost#x``, ``127.0.0.1/x``) is
#: no Host at all; a lenient URL parser would read the loopback part and let it through.
_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9.-]+))(?::[0-9]{1,5})?")
_ORIGIN = re.compile(r"https?://(?P<host>[^/?#]*)")
#: Every POST of the API takes JSON (an upload's multipart type is left alone by
#: :func:`_as_json`), so a route added later is read the same way without a list to update.
_JSON_POSTS = re.compile(r"^/v1/")


class BodyTooLarge(HTTPException):
    """The body outgrew the limit while it was being read."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit:,} bytes")


class Guard:
    """Limit body sizes while reading, read ``curl -d`` bodies as JSON, name the worker."""

    def __init__(
        self, app: Any, *, max_body_bytes: int, max_json_bytes: int, local_only: bool = False
    ) -> None:
        self.app = app
        self.local_only = local_only
        """Without auth: answer only loopback Host and Origin values (see :func:`_local`)."""
        self.max_body_bytes = max_body_bytes
        self.max_json_bytes = max_json_bytes
        self.worker = str(os.getpid()).encode()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        limit = self.max_body_bytes if _UPLOADS.match(path) else self.max_json_bytes
        headers = dict(scope.get("headers") or ())
        started = False

        async def send_named(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                named = (b"x-unifind-worker", self.worker)
                message["headers"] = [*message.get("headers", ()), named]
            await send(message)

        if self.local_only and not _local(headers):
            msg = "without auth this server answers only loopback Host and Origin headers"
            await _send_error(send_named, 403, msg)
            return
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await _send_error(send_named, 413, BodyTooLarge(limit).detail)
            return
        if scope["method"] == "POST" and _JSON_POSTS.match(path):
            scope = _as_json(scope, headers)
        try:
            await self.app(scope, _limited(receive, limit), send_named)
        except BodyTooLarge:
            # Raised outside a route (a mounted app reading its body): answer here.
            if not started:
                await _send_error(send_named, 413, BodyTooLarge(limit).detail)


def _limited(receive: Any, limit: int) -> Any:
    """``receive`` that fails once the body read so far passes ``limit`` (a chunked body
    has no Content-Length to check up front)."""
    seen = 0

    async def receive_limited() -> Message:
        nonlocal seen
        message: Message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(limit)
        return message

    return receive_limited


def _as_json(scope: Scope, headers: dict[bytes, bytes]) -> Scope:
    """A JSON route's body sent without a JSON content type is read as JSON anyway.

    ``curl -d '{...}'`` sends ``application/x-www-form-urlencoded``; the issue's own
    example does exactly that, and a JSON route has no form to read instead.
    """
    ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    if ctype not in (b"", b"application/x-www-form-urlencoded", b"text/plain"):
        return scope
    raw = [(k, v) for k, v in scope["headers"] if k != b"content-type"]
    return {**scope, "headers": [*raw, (b"content-type", b"application/json")]}


def _local(headers: dict[bytes, bytes]) -> bool:
    """Host and Origin (when sent) name the loopback interface.

    A server without keys trusts whoever can reach it, so it must not be reachable from
    a web page: DNS rebinding arrives with a foreign Host, and a cross-site form post
    (which needs no CORS preflight) carries a foreign Origin.
    """
    host = headers.get(b"host", b"").decode("latin-1")
    origin = headers.get(b"origin", b"").decode("latin-1")
    if origin:
        # RFC 6454 §7: scheme "://" host [ ":" port ], nothing after; "null" is no loopback.
        m = _ORIGIN.fullmatch(origin.lower())
        if m is None or _hostname(m["host"]) not in _LOOPBACK:
            return False
    return _hostname(host) in _LOOPBACK


def _hostname(value: str) -> str | None:
    """The host of a strict ``host[:port]`` value, lower-cased; None when it is anything else."""
    m = _HOST.fullmatch(value)
    if m is None:
        return None
    return (m["v6"] or m["name"]).lower()


async def _send_error(send: Any, status: int, message: str) -> None:
    body = json.dumps(error_body(status, message), separators=(",", ":")).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
