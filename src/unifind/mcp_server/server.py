"""The MCP server: four tools mapped onto :class:`unifind.ops.Operations` (DESIGN §12).

Every failure a model can act on comes back in-band (``isError: true`` with a message
naming the argument and the valid values), never as a protocol error: a client shows a
protocol error to the user, but gives a tool result to the model, which can retry.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import aclosing
from typing import Any, cast

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from unifind import InputError, UnknownName, __version__
from unifind.mcp_server import ask, render
from unifind.mcp_server.args import ArgumentError, fetch_inputs, search_input
from unifind.mcp_server.tools import NAMES, tools
from unifind.ops import Operations, OpEvent, SearchOutput
from unifind.trace import clauses, message, pick_locale, report_line
from unifind.types import Principal

log = logging.getLogger("unifind.mcp")

PrincipalResolver = Callable[[str | None], Principal | Awaitable[Principal | None] | None]
"""``Authorization`` header value (or None) → the caller's principal, or None to refuse."""

INSTRUCTIONS = """\
unifind searches the team's knowledge base, the public web and databases in one request. \
Call `sources` to see what can be searched, `search` to find (cite results by their \
[ref_NNN] ids), `fetch` to read a whole page, and `ask` for an answer written from the \
sources with its citations checked. Every search ends with each source's \
status: a degraded source says why and whether to retry."""

#: The argument an unknown name of this kind was given in.
_KIND_ARG = {"collection": "collections", "db model": "models", "web provider": "sources.web"}


class Unauthorized(Exception):
    """The HTTP caller sent no valid API key."""


def build_server(
    ops: Operations, *, resolve_principal: PrincipalResolver | None = None
) -> Server[Any]:
    """The MCP server over ``ops``.

    Without ``resolve_principal`` (stdio) every call acts as the configured principal
    (``settings.principal``). With it (HTTP) each call's principal comes from its own
    request's ``Authorization`` header; no valid key → an in-band error, nothing runs.
    """
    handler = _Handler(ops, resolve_principal)
    return Server(
        "unifind",
        version=__version__,
        title="unifind",
        instructions=INSTRUCTIONS,
        on_list_tools=handler.list_tools,
        on_call_tool=handler.call_tool,
    )


def _result(text: str, data: dict[str, Any] | None = None, *, error: bool = False) -> Any:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data,
        is_error=error,
    )


def _error_text(exc: InputError) -> str:
    if isinstance(exc, UnknownName) and exc.kind in _KIND_ARG:
        valid = ", ".join(exc.valid) if exc.valid else f"none: no {exc.kind} is visible to you"
        msg = str(ArgumentError(_KIND_ARG[exc.kind], f"unknown {exc.kind} {exc.name!r}", valid))
        return msg + " Call the `sources` tool to see everything you can search."
    if isinstance(exc, ArgumentError):
        return str(exc)
    return f"Invalid request: {exc}"


class _Handler:
    def __init__(self, ops: Operations, resolve: PrincipalResolver | None) -> None:
        self.ops, self.resolve = ops, resolve
        self.tools = tools()

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> Any:
        args = params.arguments or {}
        try:
            principal = await self._principal(ctx)
            if params.name == "search":
                return await self._search(ctx, args, principal)
            if params.name == "ask":
                return await self._ask(ctx, args, principal)
            if params.name == "fetch":
                return await self._fetch(args)
            if params.name == "sources":
                text, data = render.sources_result(await self.ops.sources(principal=principal))
                return _result(text, data)
            return _result(f"Unknown tool `{params.name}`. Valid: {', '.join(NAMES)}.", error=True)
        except InputError as exc:
            return _result(_error_text(exc), error=True)
        except Unauthorized as exc:
            return _result(str(exc), error=True)
        except Exception as exc:  # a tool call never takes the server down with it
            log.exception("tool %s failed", params.name)
            return _result(f"unifind failed: {type(exc).__name__}: {exc}", error=True)

    async def _fetch(self, args: dict[str, Any]) -> Any:
        inputs = fetch_inputs(args)
        if len(inputs) == 1:
            text, data, failed = render.fetch_result(await self.ops.fetch(inputs[0]))
        else:  # in parallel: each fetch is bounded by the fetcher's own timeout
            outs = await asyncio.gather(*(self.ops.fetch(i) for i in inputs))
            text, data, failed = render.fetch_results(list(outs))
        return _result(text, data, error=failed)

    async def _principal(self, ctx: ServerRequestContext[Any]) -> Principal | None:
        if self.resolve is None:
            return None  # stdio: the operation layer acts as settings.principal
        request = ctx.request
        headers: Mapping[str, str] = getattr(request, "headers", None) or {}
        found = self.resolve(headers.get("authorization"))
        principal = await found if inspect.isawaitable(found) else found
        if principal is None:
            raise Unauthorized(
                "Unauthorized: send a valid API key as `Authorization: Bearer <key>` "
                "(an administrator creates one with `unifind keys create`)."
            )
        return principal

    def _locale(self, ctx: ServerRequestContext[Any]) -> str:
        """Progress language: an HTTP caller's ``Accept-Language``, else ``telemetry.lang``."""
        headers: Mapping[str, str] = getattr(ctx.request, "headers", None) or {}
        if asked := headers.get("accept-language"):
            return pick_locale(asked)
        return str(getattr(getattr(self.ops.settings, "telemetry", None), "lang", "en"))

    async def _search(
        self, ctx: ServerRequestContext[Any], args: dict[str, Any], principal: Principal | None
    ) -> Any:
        inp, budget = search_input(args)
        locale = self._locale(ctx)
        events = cast(
            "AsyncGenerator[OpEvent, None]",
            self.ops.search_stream(inp, principal=principal, locale=locale),
        )
        async with aclosing(events):
            out = await _run_reporting(ctx, events, locale)
        text, data = render.search_result(out, inp.query, budget)
        return _result(text, data, error=out.status.value == "unavailable")

    async def _ask(
        self, ctx: ServerRequestContext[Any], args: dict[str, Any], principal: Principal | None
    ) -> Any:
        events = cast(
            "AsyncGenerator[OpEvent, None]",
            self.ops.ask_stream(ask.ask_input(args), principal=principal),
        )
        async with aclosing(events):
            out = await ask.run_reporting(ctx, events, self._locale(ctx))
        return _result(*ask.ask_result(out))


class _Quiet:
    """The session of a call made outside MCP: progress goes nowhere."""

    async def report_progress(self, *args: Any, **kwargs: Any) -> None:
        return None


async def call_tool(ops: Operations, name: str, arguments: dict[str, Any] | None) -> Any:
    """One tool call made outside an MCP session (``unifind.tools.call``), as the configured
    principal: the same validation, in-band errors and result as ``tools/call``."""
    ctx: Any = type("_Ctx", (), {"request": None, "session": _Quiet()})()
    params = types.CallToolRequestParams(name=name, arguments=arguments)
    return await _Handler(ops, None).call_tool(ctx, params)


async def _run_reporting(
    ctx: ServerRequestContext[Any], events: AsyncGenerator[OpEvent, None], locale: str = "en"
) -> SearchOutput:
    """Drain a search's events, reporting progress as each leg finishes (if asked to).

    Progress counts finished legs out of the planned ones, in ``locale``'s words; a no-op
    when the client sent no progress token.
    """
    total, finished, lines = 1, 0, []
    async for ev in events:
        if ev.kind == "plan":
            legs = [leg["type"] for leg in ev.data["legs"]]
            total = len(legs)
            await ctx.session.report_progress(0, total, message(locale, "searching", legs=legs))
        elif ev.kind == "leg":
            lines.append(report_line(locale, ev.data))
        elif ev.kind == "items":
            finished += 1
            await ctx.session.report_progress(finished, total, clauses(locale, lines))
            lines = []
        elif ev.kind == "done":
            out: SearchOutput = ev.data["output"]
            return out
    raise RuntimeError("the search ended without its done event")
