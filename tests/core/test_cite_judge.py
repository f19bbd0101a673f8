"""The optional ``agent:`` judge (issue #20, scope 2): it reviews what the rules leave open,
its verdict is labelled ``by: "agent"``, and any failure leaves the rules' verdict with a
note. Against a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind import load_settings
from unifind.agent.judge import review
from unifind.agent.models import CitationReport, SentenceCheck, Unsupported, Verdict
from unifind.cite import References, build_references
from unifind.config import Settings
from unifind.engine import Searcher
from unifind.errors import ConfigError, InputError
from unifind.testing.openai_server import OpenAIServer, Reply
from unifind.types import Item

REFUND = "Refunds are issued within 30 days of purchase. Opened software cannot be returned."
SHIPPING = "Orders ship from the Leeds warehouse. Standard delivery takes three working days."
RIGHT = "Refunds are issued within 30 days of purchase [ref_001]."
OPEN = "Every refund also earns a gift card worth 50 euros [ref_002]."


def _refs() -> References:
    items = [
        Item(type="kb", title="Refunds", content=REFUND, citation_id="ref_001", chunk_id="a"),
        Item(type="kb", title="Shipping", content=SHIPPING, citation_id="ref_002", chunk_id="b"),
    ]
    return build_references(items)


def _report() -> CitationReport:
    """What the rules said: RIGHT supported with a wide margin, OPEN not supported."""
    return CitationReport(
        valid=["ref_001", "ref_002"],
        threshold=0.41,
        support="embed",
        checked_sentences=2,
        unsupported=[Unsupported(sentence=OPEN, cites=["ref_002"], score=0.05)],
        sentences=[
            SentenceCheck(sentence=RIGHT, cites=["ref_001"], probability=0.93, supported=True,
                          mode="embed"),
            SentenceCheck(sentence=OPEN, cites=["ref_002"], probability=0.05, supported=False,
                          mode="embed"),
        ],
        verdicts=[
            Verdict(sentence=RIGHT, citation="ref_001", verdict="supported", reason="p 0.93",
                    probability=0.93),
            Verdict(sentence=OPEN, citation="ref_002", verdict="not_supported", reason="p 0.05",
                    probability=0.05),
            Verdict(sentence="Delivery is free.", citation=None, verdict="uncited_claim",
                    reason="states a fact and cites no reference"),
        ],
    )  # fmt: skip


def _settings(srv: OpenAIServer, tmp_path: Path, **prof: Any) -> Settings:
    agents = {"judge": {"base_url": srv.base_url, "model": "test-model", **prof}}
    return load_settings(home=tmp_path, agents=agents)


def _chats(srv: OpenAIServer) -> list[Any]:
    return [r.json for r in srv.requests if r.path.endswith("/chat/completions")]


async def test_the_judge_reviews_only_what_the_rules_left_open(tmp_path: Path) -> None:
    with OpenAIServer() as srv:
        srv.script_chat(json.dumps({"verdict": "contradicted", "why": "no gift card",
                                    "quote": "Orders ship from the Leeds warehouse."}))  # fmt: skip
        out = await review(_report(), _refs(), _settings(srv, tmp_path), "agent:judge", None)
        sent = _chats(srv)
    assert len(sent) == 1  # the wide-margin support and the uncited claim were not sent
    user = sent[0]["messages"][1]["content"]
    assert OPEN in user and "Leeds warehouse" in user and RIGHT not in user
    right, judged, uncited = out.verdicts
    assert (right.verdict, right.by) == ("supported", "rules")
    assert (judged.verdict, judged.by) == ("contradicted", "agent")
    assert (
        judged.reason.startswith("agent:judge: no gift card")
        and "rules: not_supported" in judged.reason
    )
    assert judged.evidence is not None and judged.evidence.sentence.startswith("Orders ship")
    assert (uncited.verdict, uncited.by) == ("uncited_claim", "rules")
    assert out.judge == "agent:judge" and "judged 1" in (out.judge_note or "")
    assert not out.ok


async def test_a_judge_that_finds_support_clears_the_flag(tmp_path: Path) -> None:
    report = _report()
    report.verdicts = report.verdicts[:2]
    with OpenAIServer() as srv:
        # A quote the reference does not hold is not taken as evidence.
        srv.script_chat(json.dumps({"verdict": "supported", "why": "it says so",
                                    "quote": "Gift cards come with every refund."}))  # fmt: skip
        out = await review(report, _refs(), _settings(srv, tmp_path), "agent:judge", None)
    judged = out.verdicts[1]
    assert (judged.verdict, judged.by, judged.evidence) == ("supported", "agent", None)
    assert out.unsupported == [] and all(s.supported for s in out.sentences)
    assert out.ok


async def test_a_close_call_the_rules_passed_is_reviewed_too(tmp_path: Path) -> None:
    report = _report()
    report.verdicts = [report.verdicts[0].model_copy(update={"probability": 0.45})]
    with OpenAIServer() as srv:
        srv.script_chat(json.dumps({"verdict": "not_supported", "why": "purchase, not delivery"}))
        out = await review(report, _refs(), _settings(srv, tmp_path), "agent:judge", None)
    [v] = out.verdicts
    assert (v.verdict, v.by) == ("not_supported", "agent")
    assert [u.sentence for u in out.unsupported] == [RIGHT, OPEN]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (Reply(500), "HTTP 500"),
        ("this is not JSON", "JSONDecodeError"),
        (json.dumps({"verdict": "probably"}), "'probably'"),
        (json.dumps(["supported"]), "list"),
    ],
)
async def test_a_failing_judge_leaves_the_rules_verdict_and_says_why(
    tmp_path: Path, reply: Any, why: str
) -> None:
    with OpenAIServer() as srv:
        srv.script_chat(reply)
        out = await review(_report(), _refs(), _settings(srv, tmp_path), "agent:judge", None)
    assert [(v.verdict, v.by) for v in out.verdicts] == [
        ("supported", "rules"), ("not_supported", "rules"), ("uncited_claim", "rules")
    ]  # fmt: skip
    note = out.judge_note or ""
    assert "1 kept the rules' verdict" in note and why in note, note


async def test_the_judge_keeps_within_the_deadline_and_its_timeout(tmp_path: Path) -> None:
    with OpenAIServer() as srv:
        settings = _settings(srv, tmp_path)
        passed = time.perf_counter() - 1
        out = await review(_report(), _refs(), settings, "agent:judge", passed)
        assert _chats(srv) == []  # nothing is asked once the deadline has passed
        assert "deadline had passed" in (out.judge_note or "")
        assert out.verdicts[1].by == "rules"
        # A judge slower than its profile's timeout_s: the rules' verdict stands.
        srv.script_chat(Reply(200, {"choices": []}, delay=3.0))
        slow = _settings(srv, tmp_path, timeout_s=0.2)
        out = await review(_report(), _refs(), slow, "agent:judge", None)
    assert out.verdicts[1].by == "rules" and "1 kept the rules' verdict" in (out.judge_note or "")


async def test_no_judge_changes_nothing(tmp_path: Path) -> None:
    report = _report()
    settings = load_settings(home=tmp_path)
    assert await review(report, _refs(), settings, None, None) is report
    assert await review(report, _refs(), settings, "none", None) is report


def test_the_judge_setting_takes_none_or_an_agent_profile(tmp_path: Path) -> None:
    assert load_settings(home=tmp_path, ask={"judge": "agent:big"}).ask.judge == "agent:big"
    assert load_settings(home=tmp_path).ask.judge == "none"
    for bad in ("builtin", "agent:", "mcp:x.y", "gpt-4"):
        with pytest.raises((ConfigError, InputError, ValueError), match="none or agent"):
            load_settings(home=tmp_path, ask={"judge": bad})


# -- through ask ------------------------------------------------------------------------


@pytest.fixture
def searcher(tmp_path: Path) -> Iterator[Searcher]:
    s = Searcher(load_settings(home=tmp_path, kb={"embedder": "hash"}))
    s.kb.create("handbook", embedder=None)
    s.kb.ingest_text("handbook", REFUND, document_id="refunds", title="Refunds")
    s.kb.ingest_text("handbook", SHIPPING, document_id="shipping", title="Shipping")
    yield s
    s.close()


async def test_ask_with_a_judge_labels_its_verdicts(searcher: Searcher) -> None:
    with OpenAIServer() as llm, OpenAIServer() as judge:
        data = searcher.settings.model_dump()
        data["agents"] = {
            "answer": {"base_url": llm.base_url, "model": "test-model"},
            "judge": {"base_url": judge.base_url, "model": "test-model"},
        }
        data["ask"] = {**data["ask"], "judge": "agent:judge"}
        s = Searcher(type(searcher.settings).model_validate(data), kb=searcher.kb)
        answer = "Refunds are issued within 30 days of purchase [ref_001]. " + (
            "Every refund also earns a gift card worth 50 euros [ref_001]."
        )
        llm.script_chat(answer)
        judge.script_chat(*[json.dumps({"verdict": "not_supported", "why": "no gift card"})] * 4)
        events = [ev async for ev in s.ask_stream("refund window and gift cards?")]
        asked = _chats(judge)
    out = events[-1].data["output"]
    cited = next(e for e in events if e.kind == "citations").data
    by = {(v.sentence.split(" [")[0], v.citation): v for v in out.citations.verdicts}
    gift = by[("Every refund also earns a gift card worth 50 euros", "ref_001")]
    assert (gift.verdict, gift.by) == ("not_supported", "agent")
    assert any("gift card" in q["messages"][1]["content"] for q in asked)
    assert out.citations.judge == "agent:judge" and cited["judge"] == "agent:judge"
    assert any(v["by"] == "agent" for v in cited["verdicts"])
