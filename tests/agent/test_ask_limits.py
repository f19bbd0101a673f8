"""An LLM answer is read within limits (issue #18): a line without a newline, an answer
over ``ask.max_answer_chars``, and a citation check that would outlive the deadline. The
references survive each one."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind import load_settings
from unifind.agent.support import SupportScorer
from unifind.cite import build_references
from unifind.engine import Searcher
from unifind.engine._answering import check
from unifind.llm import MAX_LINE_BYTES
from unifind.testing.openai_server import OpenAIServer, Reply, sse_chunk
from unifind.types import Item

REFUND = "Refunds are issued within 30 days of purchase. The refund window starts at delivery."
SENTENCE = "Refunds are issued within 30 days of purchase [ref_001]. "
#: What the server offers: far more than any limit lets the client take.
OFFERED = 256 * 1024 * 1024
#: Bytes a hung-up client may still have let the kernel accept (loopback socket buffers).
SLACK = 24 * 1024 * 1024


@pytest.fixture
def searcher(tmp_path: Path) -> Iterator[Searcher]:
    s = Searcher(load_settings(home=tmp_path, kb={"embedder": "hash"}))
    s.kb.create("handbook", embedder=None)
    s.kb.ingest_text("handbook", REFUND, document_id="refunds", title="Refunds")
    yield s
    s.close()


def _with_llm(searcher: Searcher, srv: OpenAIServer, **ask: object) -> Searcher:
    data = searcher.settings.model_dump()
    data["agents"] = {"answer": {"base_url": srv.base_url, "model": "test-model"}}
    data["ask"] = {**data["ask"], "support": "lexical", **ask}
    return Searcher(type(searcher.settings).model_validate(data), kb=searcher.kb)


def _endless(event: bytes, delay: float = 0.0) -> Iterator[bytes]:
    """``event`` again and again, up to :data:`OFFERED` bytes."""
    for _ in range(OFFERED // len(event)):
        if delay:
            time.sleep(delay)
        yield event


async def test_a_stream_without_a_newline_is_cut_as_a_bad_response(searcher: Searcher) -> None:
    no_newline = itertools.chain([b'data: {"choices": [{"delta": {"content": "'],
                                 _endless(b"x" * 65_536))  # fmt: skip
    with OpenAIServer() as srv:
        srv.script_chat(Reply(chunks=no_newline))
        out = await _with_llm(searcher, srv).ask("what is our refund window?")
    assert out.note is not None and "bad_response" in out.note
    assert f"over {MAX_LINE_BYTES:,} bytes without a line break" in out.note
    assert out.references and out.references[0]["citation_id"] == "ref_001"
    # Issue #20: the failed LLM leaves an extractive answer from the references, said so.
    assert out.text.endswith("[ref_001]") and out.llm is None
    assert "extractive answer from the references" in out.note
    assert srv.streamed_bytes < MAX_LINE_BYTES + SLACK  # not the 256 MB offered


async def test_an_answer_over_the_cap_stops_the_stream_and_says_so(searcher: Searcher) -> None:
    with OpenAIServer() as srv:
        srv.script_chat(Reply(chunks=_endless(sse_chunk(SENTENCE * 20))))
        s = _with_llm(searcher, srv, max_answer_chars=5_000)
        events = [ev async for ev in s.ask_stream("what is our refund window?")]
    out = events[-1].data["output"]
    assert len(out.text) == 5_000 and out.text.startswith(SENTENCE)
    assert "".join(e.data["text"] for e in events if e.kind == "answer.delta") == out.text
    assert out.note is not None and "ask.max_answer_chars (5,000 characters)" in out.note
    assert out.references and out.citations.valid == ["ref_001"]
    assert out.citations.checked_sentences == out.text.count("[ref_001]")
    assert srv.streamed_bytes < SLACK


async def test_sampled_answers_stop_at_the_cap_too(searcher: Searcher) -> None:
    with OpenAIServer() as srv:
        srv.script_chat(*[Reply(chunks=_endless(sse_chunk(SENTENCE * 20))) for _ in range(2)])
        s = _with_llm(searcher, srv, max_answer_chars=2_000)
        out = await s.ask("what is our refund window?", samples=2)
    assert len(out.text) == 2_000 and out.references
    assert out.note is not None and "ask.max_answer_chars (2,000 characters)" in out.note
    assert srv.streamed_bytes < 2 * SLACK


async def test_the_check_after_a_cut_stream_keeps_to_the_deadline(searcher: Searcher) -> None:
    # 200 cited sentences every 10 ms until the deadline cuts the stream: the check then
    # has no time left, and says so instead of passing what it never read.
    with OpenAIServer() as srv:
        srv.script_chat(Reply(chunks=_endless(sse_chunk(SENTENCE * 200), delay=0.01)))
        s = _with_llm(searcher, srv, max_answer_chars=10_000_000)
        await s.plan("what is our refund window?")  # warm: the first plan loads jieba, slowly
        out = await s.ask("what is our refund window?", deadline_s=3.0)
    assert out.note is not None and "deadline" in out.note and out.references
    cited = out.text.count("[ref_001]")
    report = out.citations
    assert cited > 0 and report.checked_sentences + report.unchecked_sentences == cited
    assert report.unchecked_sentences > 0 and not report.ok
    assert report.note is not None and "not checked" in report.note
    assert report.valid == ["ref_001"]  # which ids exist is always checked whole


def test_check_scores_sentences_until_the_deadline_and_counts_the_rest() -> None:
    item = Item(type="kb", title="Refunds", content=REFUND, citation_id="ref_001", chunk_id="1")
    refs = build_references([item])
    text = SENTENCE * 30 + "Made up [ref_995]."
    whole = check(text, refs, SupportScorer())
    assert (whole.checked_sentences, whole.unchecked_sentences, whole.note) == (31, 0, None)
    late = check(text, refs, SupportScorer(), deadline=time.perf_counter())
    assert (late.checked_sentences, late.unchecked_sentences) == (0, 31)
    assert late.unknown == ["ref_995"] and not late.ok
    assert late.note == (
        "the ask's deadline passed after 0 cited sentences: 31 more were not checked for support"
    )
