"""OpenTelemetry spans of searches and asks, under the GenAI semantic conventions (optional).

On with ``telemetry: {otel: true}`` or ``UNIFIND_OTEL=1`` and ``pip install "unifind[otel]"``;
off, nothing here imports ``opentelemetry``. The spans (docs/observability.md)::

    invoke_agent unifind                 an ask (gen_ai.operation.name=invoke_agent)
    ├── plan unifind                     choosing the legs and keywords
    ├── retrieval                        one search (all / any / race): the trace's root
    │   └── retrieval kb                 one request on a leg: a child node of the trace
    │       └── retrieval kb/docs        one backend report of it (ERROR when degraded)
    └── chat gpt-4o-mini                 the answer's LLM call

The retrieval spans are fed by the search's :class:`~unifind.trace.Trace` (an observer of
its nodes); a leg's span is current while the leg runs, so an instrumented HTTP client or
database driver nests its own spans under it. The attribute names are the GenAI
conventions' where they define one (``gen_ai.operation.name``, ``gen_ai.data_source.id``,
``gen_ai.retrieval.top_k``, ``gen_ai.request.model``, ``gen_ai.provider.name``,
``error.type``: semantic-conventions-genai, ``docs/gen-ai/retrieval.md`` and
``gen-ai-agent-spans.md``), ``unifind.*`` otherwise. Query texts are not recorded (the
conventions make ``gen_ai.retrieval.query.text`` opt-in: it may hold personal data).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar
from urllib.parse import urlsplit

from unifind._deps import require
from unifind.trace import Node, Trace

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer, TracerProvider

log = logging.getLogger("unifind.otel")

ENV = "UNIFIND_OTEL"
OP = "gen_ai.operation.name"
SOURCE = "gen_ai.data_source.id"
TOP_K = "gen_ai.retrieval.top_k"
AGENT = "unifind"
"""``gen_ai.agent.name`` of the ask pipeline."""

_provider: TracerProvider | None = None
_checked_global = False
E = TypeVar("E")
P = ParamSpec("P")


def enabled(settings: Any) -> bool:
    """Whether spans are exported: ``settings.telemetry.otel`` or ``UNIFIND_OTEL=1``."""
    if os.environ.get(ENV, "").strip().lower() in ("1", "true", "yes", "on"):
        return True
    return bool(getattr(getattr(settings, "telemetry", None), "otel", False))


def use_tracer_provider(provider: TracerProvider | None) -> None:
    """Send unifind's spans to ``provider`` rather than the global one (None: the global)."""
    global _provider
    _provider = provider


def tracer() -> Tracer:
    """unifind's tracer (MissingDependency naming ``unifind[otel]`` without the package)."""
    api = require("opentelemetry.trace", "otel")
    if _provider is None:
        _default_provider(api)
    from unifind import __version__

    return api.get_tracer("unifind", __version__, tracer_provider=_provider)  # type: ignore[no-any-return]


def _default_provider(api: Any) -> None:
    """An SDK provider for a process nobody configured (the CLI, ``unifind serve``) when
    ``OTEL_TRACES_EXPORTER`` names exporters (``otlp``, ``console``).

    Without that variable the global provider is left alone: an application that sets its
    own after the first search still gets every span (the API's proxy tracer delegates to
    it), where one set here first would refuse it.
    """
    global _checked_global
    names = os.environ.get("OTEL_TRACES_EXPORTER", "").strip()
    if _checked_global or not names:
        return
    _checked_global = True
    if not isinstance(api.get_tracer_provider(), api.ProxyTracerProvider):
        return  # configured by the application (or opentelemetry-instrument)
    sdk = require("opentelemetry.sdk.trace", "otel")
    export = require("opentelemetry.sdk.trace.export", "otel")
    provider = sdk.TracerProvider()  # its Resource reads OTEL_SERVICE_NAME and friends
    for name in names.split(","):
        if (exporter := _exporter(name.strip(), export)) is not None:
            provider.add_span_processor(export.BatchSpanProcessor(exporter))
    api.set_tracer_provider(provider)


def _exporter(name: str, export: Any) -> Any:
    if name == "console":
        return export.ConsoleSpanExporter()
    if name == "otlp":
        for module in ("opentelemetry.exporter.otlp.proto.http.trace_exporter",
                       "opentelemetry.exporter.otlp.proto.grpc.trace_exporter"):  # fmt: skip
            try:
                return require(module).OTLPSpanExporter()
            except ImportError:
                continue
        log.warning("OTEL_TRACES_EXPORTER=otlp: pip install opentelemetry-exporter-otlp-proto-http")
    elif name and name != "none":
        log.warning("OTEL_TRACES_EXPORTER=%s is not one unifind sets up (otlp, console)", name)
    return None


def _ns(ts: float | None) -> int | None:
    """A ``time.time()`` timestamp as the nanoseconds OpenTelemetry takes."""
    return None if ts is None else int(ts * 1e9)


def _kind(api: Any, name: str) -> Any:
    return getattr(api.SpanKind, name)


class SpanObserver:
    """A :class:`~unifind.trace.Observer` turning a search's trace nodes into spans."""

    def __init__(self) -> None:
        self.api = require("opentelemetry.trace", "otel")
        self.tracer = tracer()
        self.spans: dict[int, Span] = {}

    def started(self, trace: Trace, node: Node) -> None:
        a = node.attrs
        root = node is trace.root
        parent = None if root else self.spans.get(id(trace.root))
        attrs: dict[str, Any] = {OP: "retrieval", TOP_K: a.get("top_k")}
        if root:
            attrs.update({"unifind.mode": a.get("mode"), "unifind.request_id": a.get("request_id")})
        else:
            attrs.update({SOURCE: a["leg"], "unifind.leg": a["leg"]})
            attrs["unifind.source"] = a.get("source")
        self.spans[id(node)] = self.tracer.start_span(
            "retrieval" if root else f"retrieval {a['leg']}",
            context=None if parent is None else self.api.set_span_in_context(parent),
            kind=_kind(self.api, "INTERNAL" if root else "CLIENT"),
            attributes={k: v for k, v in attrs.items() if v is not None},
            start_time=_ns(node.started_at),
        )

    def scope(self, trace: Trace, node: Node) -> Any:
        span = self.spans.get(id(node))
        if span is None:
            return nullcontext()
        # Errors are set from the result in finished(); a race's loser is cancelled, not failed.
        return self.api.use_span(
            span, end_on_exit=False, record_exception=False, set_status_on_exception=False
        )

    def finished(self, trace: Trace, node: Node) -> None:
        span = self.spans.pop(id(node), None)
        if span is None:
            return
        if "error" in node.attrs:
            self._error(span, node.attrs["error"])
        elif node is trace.root:
            self._root(span, node)
        else:
            self._leg(span, node)
        span.end(end_time=_ns(node.ended_at))

    def close(self, trace: Trace) -> None:
        """End what is still open when the search returns (a bad input, a cancelled search,
        a race's losers, whose own tasks end after it)."""
        for node in [trace.root, *trace.root.children]:
            if (span := self.spans.pop(id(node), None)) is None:
                continue
            if node is trace.root and "error" in node.attrs:
                self._error(span, node.attrs["error"])
            else:
                span.set_attribute("unifind.status", "skipped")
            span.end()

    def _root(self, span: Span, node: Node) -> None:
        results = node.attrs.get("result")
        if results is None:
            return
        items = sum(len(r.items) for r in results.results)
        span.set_attributes({
            "unifind.request_id": results.request_id, "unifind.status": results.status.value,
            "unifind.hits": items, "unifind.references": node.attrs.get("references", items),
            "unifind.took_ms": results.took_ms,
        })  # fmt: skip
        if results.status.value == "unavailable":
            span.set_attribute("error.type", "unavailable")
            span.set_status(self.api.StatusCode.ERROR, "none of the sources answered")

    def _leg(self, span: Span, node: Node) -> None:
        res = node.attrs.get("result")
        if res is None:
            return
        span.set_attributes({"unifind.status": res.status.value, "unifind.hits": len(res.items)})
        failed = [r for r in res.reports if r.status.value == "degraded"]
        if node.status == "failed" and failed:
            reason = failed[0].reason
            span.set_attribute("error.type", reason.value if reason else "error")
            span.set_status(self.api.StatusCode.ERROR, "; ".join(r.error or "" for r in failed))
        ctx = self.api.set_span_in_context(span)
        for rep in res.reports:
            self._report(rep, ctx, node)

    def _report(self, rep: Any, ctx: Any, node: Node) -> None:
        """A backend's span, ending ``took_ms`` after its leg started (reports carry no
        start of their own)."""
        start = node.started_at or time.time()
        end = min(start + rep.took_ms / 1000, node.ended_at or time.time())
        source = f"{rep.leg}/{rep.backend}"
        attrs: dict[str, Any] = {
            OP: "retrieval", SOURCE: source, "unifind.leg": rep.leg,
            "unifind.backend": rep.backend, "unifind.stage": rep.stage,
            "unifind.status": rep.status.value,
            "unifind.reason": rep.reason.value if rep.reason else None,
            "unifind.hits": rep.hits, "unifind.took_ms": rep.took_ms,
        }  # fmt: skip
        span = self.tracer.start_span(
            f"retrieval {source}",
            context=ctx,
            kind=_kind(self.api, "CLIENT"),
            attributes={k: v for k, v in attrs.items() if v is not None},
            start_time=_ns(start),
        )
        if rep.status.value == "degraded":
            span.set_attribute("error.type", rep.reason.value if rep.reason else "error")
            span.set_status(self.api.StatusCode.ERROR, rep.error or "")
        span.end(end_time=_ns(end))

    def _error(self, span: Span, exc: BaseException) -> None:
        if isinstance(exc, asyncio.CancelledError | GeneratorExit):
            span.set_attribute("unifind.status", "cancelled")
            return
        span.record_exception(exc)
        span.set_attribute("error.type", type(exc).__qualname__)
        span.set_status(self.api.StatusCode.ERROR, f"{type(exc).__name__}: {exc}")


def observer(settings: Any) -> SpanObserver | None:
    """A span observer for one search when spans are on, else None."""
    return SpanObserver() if enabled(settings) else None


def traced_ask(fn: Callable[P, AsyncIterator[E]]) -> Callable[P, AsyncIterator[E]]:
    """``Asking.ask_stream`` under an ``invoke_agent`` span (when spans are on).

    The span is made current only while the pipeline runs, one step at a time (never
    across a ``yield`` to the consumer), so the searches and the LLM call nest under it.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kw: P.kwargs) -> AsyncIterator[E]:
        events = fn(*args, **kw)
        on = enabled(getattr(args[0], "settings", None))
        return _ask_spans(events, kw.get("request_id")) if on else events  # type: ignore[arg-type]

    return wrapper


async def _ask_spans(events: AsyncIterator[Any], rid: str | None) -> AsyncIterator[Any]:
    api, context = require("opentelemetry.trace", "otel"), require("opentelemetry.context")
    t = tracer()
    attrs = {OP: "invoke_agent", "gen_ai.agent.name": AGENT, "unifind.request_id": rid}
    span = t.start_span(f"invoke_agent {AGENT}", kind=api.SpanKind.INTERNAL,
                        attributes={k: v for k, v in attrs.items() if v is not None})  # fmt: skip
    ctx = api.set_span_in_context(span)
    plan_attrs = {OP: "plan", "gen_ai.agent.name": AGENT}
    plan: Span | None = t.start_span(f"plan {AGENT}", context=ctx, attributes=plan_attrs)
    try:
        while True:
            token = context.attach(ctx)
            try:
                ev = await anext(events)
            except StopAsyncIteration:
                break
            finally:
                context.detach(token)
            if ev.kind == "plan" and plan is not None:
                _planned(span, plan, ev.data)
                plan = None
            elif ev.kind == "done":
                _answered(api, span, ev.data["output"])
            yield ev
    except BaseException as exc:
        if not isinstance(exc, asyncio.CancelledError | GeneratorExit):
            span.record_exception(exc)
            span.set_attribute("error.type", type(exc).__qualname__)
            span.set_status(api.StatusCode.ERROR, f"{type(exc).__name__}: {exc}")
        raise
    finally:
        if plan is not None:
            plan.end()
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
        span.end()


def _planned(span: Span, plan: Span, data: dict[str, Any]) -> None:
    legs = list(data.get("legs") or [])
    plan.set_attributes({"unifind.search": bool(data.get("search")), "unifind.legs": legs})
    plan.end()
    if rid := data.get("request_id"):
        span.set_attribute("unifind.request_id", rid)
    span.set_attribute("unifind.legs", legs)


def _answered(api: Any, span: Span, out: Any) -> None:
    from unifind.types import overall_status

    status = overall_status(list(out.reports)).value
    c = out.citations
    span.set_attributes({
        "unifind.status": status, "unifind.references": len(out.references),
        "unifind.citations.valid": len(c.valid), "unifind.citations.unknown": len(c.unknown),
        "unifind.citations.unsupported": len(c.unsupported),
    })  # fmt: skip
    if out.llm:
        span.set_attribute("unifind.llm", out.llm)
    if status == "unavailable":
        span.set_attribute("error.type", "unavailable")
        span.set_status(api.StatusCode.ERROR, "none of the sources answered")


def traced_llm_deltas(
    settings: Any, profile: str, msgs: Sequence[dict[str, str]]
) -> AsyncIterator[str]:
    """:func:`unifind.agent.answer.llm_deltas` under a ``chat {model}`` span when spans are on."""
    from unifind.agent.answer import llm_deltas

    return chat_deltas(settings, profile, llm_deltas(settings, profile, msgs))


def chat_deltas(settings: Any, profile: str, deltas: AsyncIterator[str]) -> AsyncIterator[str]:
    """``deltas`` of an answer's LLM call under a ``chat {model}`` span (when spans are on)."""
    if not enabled(settings):
        return deltas
    return _chat_spans(dict(getattr(settings, "agents", {}).get(profile) or {}), deltas)


async def _chat_spans(prof: dict[str, Any], deltas: AsyncIterator[str]) -> AsyncIterator[str]:
    api = require("opentelemetry.trace", "otel")
    model = str(prof.get("model") or "")
    with _chat_span(api, prof, model) as span:
        chunks = 0
        try:
            async for delta in deltas:
                chunks += 1
                yield delta
        except BaseException as exc:
            if not isinstance(exc, asyncio.CancelledError | GeneratorExit):
                reason = getattr(getattr(exc, "reason", None), "value", None)
                span.set_attribute("error.type", reason or type(exc).__qualname__)
                span.set_status(api.StatusCode.ERROR, str(exc))
            raise
        finally:
            span.set_attribute("unifind.chunks", chunks)


@contextmanager
def _chat_span(api: Any, prof: dict[str, Any], model: str) -> Iterator[Span]:
    url = urlsplit(str(prof.get("base_url") or ""))
    port = url.port or ({"https": 443, "http": 80}.get(url.scheme) if url.hostname else None)
    attrs: dict[str, Any] = {
        OP: "chat",
        # Profiles speak the OpenAI chat protocol; a profile may name the real provider.
        "gen_ai.provider.name": str(prof.get("provider") or "openai"),
        "gen_ai.request.model": model or None,
        "server.address": url.hostname,
        "server.port": port,
    }  # fmt: skip
    span = tracer().start_span(
        f"chat {model}".strip(),
        kind=api.SpanKind.CLIENT,
        attributes={k: v for k, v in attrs.items() if v is not None},
    )
    try:
        yield span
    finally:
        span.end()
