"""unifind's tools for LLM function calling: each vendor's schema, and a call executed.

The schemas are the MCP server's own tool declarations (:mod:`unifind.mcp_server.tools`,
annotated from :data:`unifind.ops.OPERATIONS`) rewritten into each vendor's envelope, so
they never drift from what the MCP server accepts:

- ``openai``: the Chat Completions ``tools`` list,
  ``{"type": "function", "function": {"name", "description", "parameters"}}``;
- ``anthropic``: the Messages API ``tools`` list, ``{"name", "description", "input_schema"}``;
- ``mcp``: the ``tools/list`` result, ``{"tools": [{"name", "inputSchema", ...}]}``.

:func:`call` / :func:`acall` run a call a model made through the MCP server's handler:
the same argument validation (lenient inputs read the same way), the same compact cited
text and structured content. Bad arguments come back in-band (``is_error``) naming what
is valid, so an agent loop hands them to the model instead of dying. Needs the ``mcp``
extra (the declarations live there). Not in ``unifind.__all__``: importing ``unifind``
stays light; ``import unifind.tools`` is the entry point.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from unifind.errors import InputError
from unifind.mcp_server.server import call_tool
from unifind.mcp_server.tools import NAMES, tools

__all__ = ["FORMATS", "NAMES", "ToolResult", "acall", "call", "schemas"]

FORMATS = ("openai", "anthropic", "mcp")


@dataclass(frozen=True)
class ToolResult:
    """What a tool call gives back to the model."""

    text: str
    """The compact, cited text to hand the model as the tool's result."""
    data: dict[str, Any] | None = field(default=None)
    """The structured content (the MCP tool's ``structuredContent``), when there is one."""
    is_error: bool = False
    """The call failed in a way the model can act on (the text says how to fix it)."""


def schemas(fmt: str = "openai") -> Any:
    """The search / fetch / sources / ask tools in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown tool format {fmt!r}; valid: {', '.join(FORMATS)}")
    declared = tools()
    if fmt == "mcp":
        import mcp_types

        listed = mcp_types.ListToolsResult(tools=declared)
        return {"tools": listed.model_dump(by_alias=True, exclude_none=True, mode="json")["tools"]}
    out: list[dict[str, Any]] = []
    for tool in declared:
        desc, schema = tool.description or "", tool.input_schema
        if fmt == "openai":
            out.append(
                {
                    "type": "function",
                    "function": {"name": tool.name, "description": desc, "parameters": schema},
                }
            )
        else:
            out.append({"name": tool.name, "description": desc, "input_schema": schema})
    return out


def _arguments(arguments: Any) -> dict[str, Any] | str:
    """The call's arguments as an object, or the in-band error text when they aren't one.

    OpenAI hands them over as JSON text, Anthropic as an object; both are accepted.
    """
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return f"Invalid arguments: not JSON ({exc.msg} at character {exc.pos})."
    if not isinstance(arguments, Mapping):
        return f"Invalid arguments: expected a JSON object, got {type(arguments).__name__}."
    if not all(isinstance(k, str) for k in arguments):
        return "Invalid arguments: every argument name must be a string."
    return dict(arguments)


async def acall(name: Any, arguments: Any = None, *, searcher: Any = None) -> ToolResult:
    """Execute one tool call a model made: ``name`` and its ``arguments`` (an object or
    JSON text). Acts as the configured principal (``settings.principal``).

    ``searcher`` is used and left open when given; otherwise one is built from the
    configuration and closed after the call.
    """
    args = _arguments(arguments)
    if not isinstance(name, str) or name not in NAMES:
        return ToolResult(f"Unknown tool `{name}`. Valid: {', '.join(NAMES)}.", is_error=True)
    if isinstance(args, str):
        return ToolResult(args, is_error=True)
    from unifind.ops import Operations

    owned = searcher is None
    if owned:
        from unifind import Searcher

        searcher = Searcher()
    try:
        result = await call_tool(Operations(searcher), name, args)
    finally:
        if owned:
            await searcher.aclose()
    text = "".join(getattr(c, "text", "") for c in result.content)
    return ToolResult(text, result.structured_content, bool(result.is_error))


def call(name: Any, arguments: Any = None, *, searcher: Any = None) -> ToolResult:
    """:func:`acall` for synchronous code; inside a running event loop it runs on a
    thread of its own (use :func:`acall` there instead)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(acall(name, arguments, searcher=searcher))
    box: list[ToolResult | BaseException] = []

    def run() -> None:
        try:
            box.append(asyncio.run(acall(name, arguments, searcher=searcher)))
        except BaseException as exc:  # re-raised in the caller's thread
            box.append(exc)

    thread = threading.Thread(target=run, name="unifind-tool-call")
    thread.start()
    thread.join()
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]
