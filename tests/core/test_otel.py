"""OpenTelemetry spans (the ``otel`` extra): names, the tree, GenAI attributes, statuses."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from unifind import InputError, MissingDependency, Reason, Searcher, SearchRequest, load_settings
from unifind.engine import otel
from unifind.testing.legs import FakeLeg, fake_items
from unifind.testing.openai_server import OpenAIServer, Reply
from unifind.types import Leg, SearchResult

Q = "what is the refund policy"


def req(leg: Leg, **kw: Any) -> SearchRequest:
    return SearchRequest(type=leg, query=Q, **kw)


@pytest.fixture
def exporter(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    otel.use_tracer_provider(provider)
    monkeypatch.setenv("UNIFIND_OTEL", "1")
    yield memory
    otel.use_tracer_provider(None)


def by_name(spans: tuple[ReadableSpan, ...]) -> dict[str, ReadableSpan]:
    """The spans by name (a KB collection's lexical and vector reports share one)."""
    return {s.name: s for s in spans}


def parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent else None


def span_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return int(span.context.span_id)


async def test_a_search_is_a_retrieval_tree_with_a_degraded_leg_as_error(
    exporter: InMemorySpanExporter,
) -> None:
    s = Searcher(load_settings(), legs={
        "web": FakeLeg("web", 0.01, fail=Reason.TIMEOUT),
        "kb": FakeLeg("kb", 0.02, fake_items("kb", 3)),
    })  # fmt: skip
    res = await s.all([req("web"), req("kb", limit=5)], request_id="req_otel1")
    spans = by_name(exporter.get_finished_spans())
    assert set(spans) == {
        "retrieval", "retrieval web", "retrieval kb", "retrieval web/fake-web",
        "retrieval kb/fake-kb",
    }  # fmt: skip
    root, web, kb = spans["retrieval"], spans["retrieval web"], spans["retrieval kb"]
    assert root.parent is None
    assert parent_of(web) == parent_of(kb) == span_id(root)
    assert parent_of(spans["retrieval web/fake-web"]) == span_id(web)
    assert parent_of(spans["retrieval kb/fake-kb"]) == span_id(kb)
    assert root.attributes is not None and kb.attributes is not None
    assert root.attributes["gen_ai.operation.name"] == "retrieval"
    assert root.attributes["gen_ai.retrieval.top_k"] == 10  # the largest request's limit
    assert root.attributes["unifind.request_id"] == res.request_id == "req_otel1"
    assert root.attributes["unifind.status"] == "partial" and root.attributes["unifind.hits"] == 3
    assert root.status.status_code is StatusCode.UNSET  # partial is an answer, not an error
    assert kb.attributes["gen_ai.data_source.id"] == "kb" and kb.attributes["unifind.hits"] == 3
    assert kb.attributes["gen_ai.retrieval.top_k"] == 5 and kb.kind is SpanKind.CLIENT
    # The failed leg and its backend: ERROR, with the reason as error.type.
    for failed in (web, spans["retrieval web/fake-web"]):
        assert failed.status.status_code is StatusCode.ERROR
        assert failed.attributes is not None and failed.attributes["error.type"] == "timeout"
    backend = spans["retrieval web/fake-web"].attributes
    assert backend is not None and backend["gen_ai.data_source.id"] == "web/fake-web"
    assert backend["unifind.status"] == "degraded" and backend["unifind.reason"] == "timeout"
    assert "fake-web failed" in (spans["retrieval web/fake-web"].status.description or "")
    documented(exporter.get_finished_spans())
    # A leg's span lies within the search's.
    assert root.start_time is not None and root.end_time is not None
    assert root.start_time <= (kb.start_time or 0) <= (kb.end_time or 0) <= root.end_time


async def test_every_leg_failing_makes_the_search_span_an_error(
    exporter: InMemorySpanExporter,
) -> None:
    s = Searcher(load_settings(), legs={"db": FakeLeg("db", 0, fail=Reason.UNREACHABLE)})
    await s.all([req("db")])
    root = by_name(exporter.get_finished_spans())["retrieval"]
    assert root.status.status_code is StatusCode.ERROR
    assert root.attributes is not None and root.attributes["error.type"] == "unavailable"


@dataclass
class SpanProbe:
    """A leg that records which span is current while it runs."""

    seen: list[int]

    async def search(self, req: SearchRequest, **_: object) -> SearchResult:
        self.seen.append(otel_trace.get_current_span().get_span_context().span_id)
        return await FakeLeg("kb").search(req)


async def test_the_leg_span_is_current_while_the_leg_runs_and_the_stream_is_traced_too(
    exporter: InMemorySpanExporter,
) -> None:
    seen: list[int] = []
    s = Searcher(load_settings(), legs={"kb": SpanProbe(seen)})  # type: ignore[dict-item]
    events = [ev async for ev in s.stream([req("kb")], request_id="req_stream", locale="zh")]
    assert events[0].data["request_id"] == "req_stream"
    spans = by_name(exporter.get_finished_spans())
    assert seen == [span_id(spans["retrieval kb"])]
    assert spans["retrieval"].attributes is not None
    assert spans["retrieval"].attributes["unifind.request_id"] == "req_stream"


async def test_race_losers_and_bad_input_end_their_spans(exporter: InMemorySpanExporter) -> None:
    slow, fast = FakeLeg("web", 5.0, fake_items("web", 1)), FakeLeg("kb", 0.01)
    await Searcher(load_settings(), legs={"web": slow, "kb": fast}).race([req("web"), req("kb")])
    spans = by_name(exporter.get_finished_spans())
    loser = spans["retrieval web"]
    assert loser.status.status_code is not StatusCode.ERROR  # cancelled by the race: no fault
    assert loser.attributes is not None and loser.attributes["unifind.status"] == "skipped"
    exporter.clear()
    bad = FakeLeg("kb", raise_exc=InputError("unknown collection"))
    with pytest.raises(InputError):
        await Searcher(load_settings(), legs={"kb": bad}).all([req("kb")])
    spans = by_name(exporter.get_finished_spans())
    assert spans["retrieval"].status.status_code is StatusCode.ERROR
    assert spans["retrieval"].attributes is not None
    assert spans["retrieval"].attributes["error.type"] == "InputError"


async def test_a_consumer_leaving_a_stream_ends_the_search_span_as_cancelled(
    exporter: InMemorySpanExporter,
) -> None:
    s = Searcher(load_settings(), legs={"web": FakeLeg("web", 5.0)})
    events = s.stream([req("web")])
    assert isinstance(events, AsyncGenerator)  # so a consumer can close it
    assert (await anext(events)).kind == "loading"
    await events.aclose()  # a client that disconnects
    await asyncio.sleep(0.05)  # the search's task runs its cancellation
    spans = by_name(exporter.get_finished_spans())
    root, leg = spans["retrieval"], spans["retrieval web"]
    assert root.attributes is not None and root.attributes["unifind.status"] == "cancelled"
    assert leg.attributes is not None and leg.attributes["unifind.status"] == "skipped"
    assert StatusCode.ERROR not in (root.status.status_code, leg.status.status_code)


async def test_settings_turn_spans_on_and_off(
    exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("UNIFIND_OTEL")
    legs = {"kb": FakeLeg("kb", 0, fake_items("kb", 1))}
    await Searcher(load_settings(), legs=legs).all([req("kb")])
    assert exporter.get_finished_spans() == ()
    on = load_settings(telemetry={"otel": True})
    await Searcher(on, legs=legs).all([req("kb")])
    assert "retrieval kb" in by_name(exporter.get_finished_spans())


async def test_on_without_the_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("UNIFIND_OTEL", "1")
    monkeypatch.setitem(sys.modules, "opentelemetry.trace", None)
    s = Searcher(load_settings(), legs={"kb": FakeLeg("kb")})
    with pytest.raises(MissingDependency, match=r"unifind\[otel\]"):
        await s.all([req("kb")])


REFUND = "Refunds are issued within 30 days of purchase. The refund window starts at delivery."


@pytest.fixture
def kb_searcher(tmp_path: Path) -> Iterator[Searcher]:
    s = Searcher(load_settings(home=tmp_path, kb={"embedder": "hash"}))
    s.kb.create("handbook", embedder=None)
    s.kb.ingest_text("handbook", REFUND, document_id="refunds", title="Refunds")
    yield s
    s.close()


def _with_llm(searcher: Searcher, srv: OpenAIServer) -> Searcher:
    data = searcher.settings.model_dump()
    data["agents"] = {"answer": {"base_url": srv.base_url, "model": "test-model"}}
    return Searcher(type(searcher.settings).model_validate(data), kb=searcher.kb)


async def test_an_ask_is_an_agent_span_over_its_plan_searches_and_chat(
    exporter: InMemorySpanExporter, kb_searcher: Searcher
) -> None:
    with OpenAIServer() as srv:
        srv.script_chat("Refunds take 30 days [ref_001].")
        s = _with_llm(kb_searcher, srv)
        events = [ev async for ev in s.ask_stream("what is our refund window?")]
        plan = events[0]
        assert plan.kind == "plan" and plan.data["request_id"].startswith("req_")
        spans = by_name(exporter.get_finished_spans())
        agent, chat = spans["invoke_agent unifind"], spans["chat test-model"]
        assert agent.parent is None and agent.attributes is not None
        assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
        assert agent.attributes["unifind.request_id"] == plan.data["request_id"]
        assert agent.attributes["unifind.citations.valid"] == 1
        for child in ("plan unifind", "retrieval", "chat test-model"):
            assert parent_of(spans[child]) == span_id(agent), child
        assert parent_of(spans["retrieval kb"]) == span_id(spans["retrieval"])
        stages = {s.attributes.get("unifind.stage") for s in exporter.get_finished_spans()
                  if s.name == "retrieval kb/handbook" and s.attributes}  # fmt: skip
        assert len(stages) == 2  # one span per backend report
        assert chat.attributes is not None and chat.kind is SpanKind.CLIENT
        assert chat.attributes["gen_ai.operation.name"] == "chat"
        assert chat.attributes["gen_ai.request.model"] == "test-model"
        assert chat.attributes["gen_ai.provider.name"] == "openai"
        assert chat.attributes["server.address"] == "127.0.0.1"
        assert chat.status.status_code is StatusCode.UNSET
        documented(exporter.get_finished_spans())
        exporter.clear()
        srv.script_chat(Reply(status=503))
        out = await s.ask("what is our refund window?")
    assert out.note is not None and "failed" in out.note  # the answer still comes
    chat = by_name(exporter.get_finished_spans())["chat test-model"]
    assert chat.status.status_code is StatusCode.ERROR
    assert chat.attributes is not None and chat.attributes["error.type"] != ""


DOC = (Path(__file__).resolve().parents[2] / "docs" / "observability.md").read_text()


def documented(spans: tuple[ReadableSpan, ...]) -> None:
    """Every attribute a span carries is in docs/observability.md's table."""
    keys = {key for s in spans for key in (s.attributes or {})}
    assert keys, "no attributes"
    for key in keys:
        assert f"`{key}`" in DOC or f"`.{key.rsplit('.', 1)[1]}`" in DOC, key


def test_off_nothing_of_opentelemetry_is_imported(tmp_path: Path) -> None:
    code = """
import asyncio, sys
from unifind import Searcher, SearchRequest, load_settings
from unifind.testing.legs import FakeLeg, fake_items
s = Searcher(load_settings(), legs={"kb": FakeLeg("kb", 0, fake_items("kb", 1))})
asyncio.run(s.all([SearchRequest(type="kb", query="q")]))
print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
"""
    env = {"UNIFIND_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_process_nobody_configured_exports_where_otel_traces_exporter_says(
    tmp_path: Path,
) -> None:
    code = """
import asyncio
from unifind import Searcher, SearchRequest, load_settings
from unifind.testing.legs import FakeLeg
s = Searcher(load_settings(), legs={"kb": FakeLeg("kb")})
asyncio.run(s.all([SearchRequest(type="kb", query="q")]))
"""
    base = {"UNIFIND_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "UNIFIND_OTEL": "1"}
    runs = {
        name: subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        for name, env in (("console", {**base, "OTEL_TRACES_EXPORTER": "console"}),
                          ("unset", base))
    }  # fmt: skip
    assert all(r.returncode == 0 for r in runs.values()), runs
    assert '"name": "retrieval kb"' in runs["console"].stdout
    assert runs["unset"].stdout == ""  # no provider of its own: nothing printed, nothing taken
