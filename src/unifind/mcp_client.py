"""A thin async MCP client (L1) for every ``mcp:<server>.<tool>`` stage, over the official SDK.

Servers are named in configuration, as MCP hosts (Claude Desktop, VS Code) name them::

    mcp_servers:
      ranker: {command: python, args: [ranker.py], env: {TOKEN: x}, timeout_s: 20}
      remote: {url: "http://127.0.0.1:8000/mcp", headers: {Authorization: "Bearer x"}}

``command`` runs the server as a subprocess speaking JSON-RPC over stdio; ``url`` reaches a
Streamable HTTP endpoint (MCP spec, "Transports",
https://modelcontextprotocol.io/specification/2025-06-18/basic/transports). One call opens a
session, calls one tool and closes it, so a crashed server costs one call, not the process.

Every failure leaves as :class:`~unifind.errors.SourceError` with its reason (``timeout``,
``unreachable``, ``error``); a tool that reports ``isError`` is one too. The ``mcp`` package
(``pip install "unifind[mcp]"``) is imported on first use only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from unifind._deps import require
from unifind.config import Settings
from unifind.errors import InputError, SourceError, UnknownName
from unifind.types import Reason

#: JSON-RPC code the SDK raises when the server's stream ends (``mcp_types.CONNECTION_CLOSED``).
_CONNECTION_CLOSED = -32000
_STDERR_TAIL = 400


@dataclass(frozen=True)
class ServerSpec:
    """How to reach one configured MCP server."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    """Extra environment for the subprocess, merged over the SDK's safe default environment."""
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = 30.0
    """Deadline for one whole call: start or connect, handshake, tool call."""

    @classmethod
    def from_config(cls, name: str, config: Mapping[str, Any]) -> ServerSpec:
        """Validate one ``mcp_servers`` entry; a wrong one raises InputError naming the fix."""
        if not isinstance(config, Mapping):
            raise InputError(f"mcp server {name!r} must be a mapping with 'command' or 'url'")
        command, url = config.get("command"), config.get("url")
        if bool(command) == bool(url):
            raise InputError(
                f"mcp server {name!r} needs exactly one of 'command' (stdio) or 'url' "
                f"(streamable HTTP); it has {sorted(config)}"
            )
        args = config.get("args") or []
        if not isinstance(args, list | tuple) or not all(isinstance(a, str) for a in args):
            raise InputError(f"mcp server {name!r}: 'args' must be a list of strings")
        timeout = config.get("timeout_s", config.get("timeout", 30.0))
        return cls(
            name=name,
            command=str(command) if command else None,
            args=tuple(args),
            env={str(k): str(v) for k, v in (config.get("env") or {}).items()} or None,
            cwd=str(config["cwd"]) if config.get("cwd") else None,
            url=str(url) if url else None,
            headers={str(k): str(v) for k, v in (config.get("headers") or {}).items()},
            timeout_s=float(timeout),
        )


def server_spec(settings: Settings, name: str) -> ServerSpec:
    """The server called ``name`` in ``settings.mcp_servers``; unknown names list the known."""
    servers: Mapping[str, Any] = getattr(settings, "mcp_servers", None) or {}
    if name not in servers:
        raise UnknownName("mcp server (mcp_servers)", name, servers)
    return ServerSpec.from_config(name, servers[name])


@dataclass(frozen=True)
class ToolResult:
    """What a tool answered."""

    structured: Any
    """``structuredContent``, or None when the tool sent none."""
    text: str
    """Its text content blocks, joined by newlines."""

    def payload(self) -> Any:
        """The structured content, else the text parsed as JSON, else the text itself."""
        if self.structured is not None:
            return self.structured
        try:
            return json.loads(self.text)
        except ValueError:
            return self.text


async def call_tool(
    spec: ServerSpec, tool: str, arguments: Mapping[str, Any], *, timeout_s: float | None = None
) -> ToolResult:
    """Call ``tool`` on the server with ``arguments``; any failure raises SourceError."""
    require("mcp", "mcp")
    deadline = spec.timeout_s if timeout_s is None else timeout_s
    where = f"mcp server {spec.name!r}"
    # The subprocess's stderr goes to a file, not ours: its tail explains a failed start.
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            async with asyncio.timeout(deadline):
                result = await _call(spec, tool, dict(arguments), errlog)
        except SourceError:
            raise
        except TimeoutError as exc:  # before OSError: TimeoutError is one since 3.10
            raise SourceError(Reason.TIMEOUT, f"{where}: no answer in {deadline:g}s") from exc
        except Exception as exc:
            raise _source_error(where, exc, _tail(errlog)) from exc
    if result.is_error:
        text = _text(result.content) or "no details"
        raise SourceError(Reason.ERROR, f"{where}: tool {tool!r} failed: {text[:500]}")
    return ToolResult(structured=result.structured_content, text=_text(result.content))


async def _call(spec: ServerSpec, tool: str, arguments: dict[str, Any], errlog: TextIO) -> Any:
    from mcp import Client

    async with contextlib.AsyncExitStack() as stack:
        transport = await _transport(spec, errlog, stack)
        client = await stack.enter_async_context(Client(transport))
        return await client.call_tool(tool, arguments)


async def _transport(spec: ServerSpec, errlog: TextIO, stack: contextlib.AsyncExitStack) -> Any:
    if spec.command:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=spec.command,
            args=list(spec.args),
            env=dict(spec.env) if spec.env else None,
            cwd=spec.cwd,
        )
        return stdio_client(params, errlog=errlog)
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    assert spec.url is not None  # from_config guarantees command xor url
    # mcp 2 speaks HTTP through httpx2; our own client only carries the configured headers.
    http = await stack.enter_async_context(httpx2.AsyncClient(headers=dict(spec.headers)))
    return streamable_http_client(spec.url, http_client=http)


def _source_error(where: str, exc: BaseException, stderr: str) -> SourceError:
    leaf = _leaf(exc)
    detail = f"{type(leaf).__name__}: {leaf}".rstrip(": ")
    if stderr:
        detail += f" (server stderr: {stderr})"
    if isinstance(leaf, TimeoutError):
        return SourceError(Reason.TIMEOUT, f"{where}: {detail}")
    code = getattr(leaf, "code", None)
    if isinstance(leaf, OSError) or code == _CONNECTION_CLOSED or _is_transport_error(leaf):
        return SourceError(Reason.UNREACHABLE, f"{where} is unreachable: {detail}")
    return SourceError(Reason.ERROR, f"{where} failed: {detail}")


def _leaf(exc: BaseException) -> BaseException:
    # The SDK runs on anyio task groups, which wrap the real cause in (nested) groups.
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _is_transport_error(exc: BaseException) -> bool:
    return any(cls.__name__ in ("TransportError", "ConnectError") for cls in type(exc).__mro__)


def _text(content: Any) -> str:
    return "\n".join(str(b.text) for b in content or () if getattr(b, "type", None) == "text")


def _tail(errlog: TextIO) -> str:
    with contextlib.suppress(OSError, ValueError):
        errlog.seek(0)
        return " | ".join(errlog.read().strip().splitlines())[-_STDERR_TAIL:]
    return ""
