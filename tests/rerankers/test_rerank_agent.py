"""``agent:<name>`` against a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from unifind.config import Settings
from unifind.rerankers import rerank
from unifind.testing.openai_server import OpenAIServer, Reply
from unifind.types import Reason, Status

from ._items import assert_same_items, cids, fused

REVERSED = ["ref_004", "ref_003", "ref_002", "ref_001"]


@pytest.fixture
def srv() -> Iterator[OpenAIServer]:
    with OpenAIServer(api_key="sk-test") as server:
        yield server


def settings(srv: OpenAIServer, **profile: Any) -> Settings:
    judge = {"base_url": srv.base_url, "model": "test-model", "api_key": "sk-test", **profile}
    return Settings(agents={"judge": judge})


async def test_order_shape_reorders_and_the_prompt_carries_every_item(srv: OpenAIServer) -> None:
    srv.script_chat(json.dumps({"order": REVERSED}))
    items = fused()
    out, report = await rerank(items, "kettle warranty", uses="agent:judge", settings=settings(srv))
    assert cids(out) == REVERSED
    assert [it.score for it in out] == [1.0, 0.5, pytest.approx(1 / 3), 0.25]
    assert_same_items(items, out)
    assert (report.status, report.backend, report.hits) == (Status.OK, "rerank:agent:judge", 4)
    sent = srv.requests[-1].json
    assert sent["model"] == "test-model"
    assert sent["response_format"] == {"type": "json_object"}
    assert srv.requests[-1].headers["authorization"] == "Bearer sk-test"
    shown = json.loads(sent["messages"][1]["content"])
    assert shown["query"] == "kettle warranty"
    assert [(v["n"], v["id"]) for v in shown["items"]] == [
        (1, "ref_001"), (2, "ref_002"), (3, "ref_003"), (4, "ref_004"),
    ]  # fmt: skip
    assert shown["items"][1]["content"] == "Refunds within 30 days."


async def test_items_shape_with_fences_and_missing_ids(srv: OpenAIServer) -> None:
    body = {"items": [{"citation_id": "ref_003"}, {"citation_id": "ref_001"}]}
    srv.script_chat(f"```json\n{json.dumps(body)}\n```")
    out, report = await rerank(fused(), "q", uses="agent:judge", settings=settings(srv))
    # named ones first, the two it left out after them in their original order
    assert cids(out) == ["ref_003", "ref_001", "ref_002", "ref_004"]
    assert report.status is Status.OK
    assert report.hits == 2
    assert report.note == "2 unranked item(s) kept after the ranked ones"


async def test_unknown_ids_are_ignored_and_noted(srv: OpenAIServer) -> None:
    srv.script_chat('{"order": ["ref_999", "ref_002", 1]}')
    out, report = await rerank(fused(), "q", uses="agent:judge", settings=settings(srv))
    assert cids(out) == ["ref_002", "ref_001", "ref_003", "ref_004"]
    assert report.note is not None
    assert "ignored 1 unknown id(s): ref_999" in report.note


async def test_indexes_when_items_have_no_citation_ids(srv: OpenAIServer) -> None:
    items = [it.model_copy(update={"citation_id": None}) for it in fused()]
    srv.script_chat('{"order": [2, 4]}')
    out, _ = await rerank(items, "q", uses="agent:judge", settings=settings(srv))
    assert [it.title for it in out] == [
        "Refund policy",
        "Warranty",
        "Shipping times",
        "products #7",
    ]
    shown = json.loads(srv.requests[-1].json["messages"][1]["content"])
    assert [v["id"] for v in shown["items"]] == ["1", "2", "3", "4"]


async def test_garbage_keeps_the_order_and_degrades(srv: OpenAIServer) -> None:
    srv.script_chat("The second result looks most relevant to me.")
    items = fused()
    out, report = await rerank(items, "q", uses="agent:judge", settings=settings(srv))
    assert out == items
    assert report.status is Status.DEGRADED
    assert report.reason is Reason.BAD_RESPONSE
    assert report.error is not None
    assert report.error.startswith("rerank agent:judge: agent 'judge' answered without an order")
    assert report.error.endswith("kept the original order")


async def test_http_500_keeps_the_order_and_degrades(srv: OpenAIServer) -> None:
    srv.inject(Reply(status=500), path="/v1/chat/completions", times=2)  # llm.chat retries once
    items = fused()
    out, report = await rerank(items, "q", uses="agent:judge", settings=settings(srv))
    assert out == items
    assert report.status is Status.DEGRADED
    assert report.reason is Reason.ERROR
    assert "rerank agent:judge" in (report.error or "")


async def test_wrong_key_is_auth(srv: OpenAIServer) -> None:
    out, report = await rerank(
        fused(), "q", uses="agent:judge", settings=settings(srv, api_key="sk-wrong")
    )
    assert out == fused()
    assert report.reason is Reason.AUTH


async def test_key_from_env_and_missing_env_is_no_key(
    srv: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = settings(srv, api_key=None, api_key_env="JUDGE_KEY")
    monkeypatch.delenv("JUDGE_KEY", raising=False)
    _, report = await rerank(fused(), "q", uses="agent:judge", settings=s)
    assert report.reason is Reason.NO_KEY
    assert "JUDGE_KEY is not set" in (report.error or "")
    assert srv.requests == []  # no call without the key
    monkeypatch.setenv("JUDGE_KEY", "sk-test")
    srv.script_chat('{"order": ["ref_002"]}')
    out, report = await rerank(fused(), "q", uses="agent:judge", settings=s)
    assert report.status is Status.OK
    assert out[0].citation_id == "ref_002"


async def test_a_slow_endpoint_times_out(srv: OpenAIServer) -> None:
    srv.script_chat(Reply(body={}, delay=1.0))
    s = settings(srv, timeout_s=0.2)
    out, report = await rerank(fused(), "q", uses="agent:judge", settings=s)
    assert out == fused()
    assert report.reason is Reason.TIMEOUT


async def test_the_rerank_deadline_bounds_any_mode(srv: OpenAIServer) -> None:
    srv.script_chat(Reply(body={}, delay=1.0))
    s = settings(srv)
    s.timeouts["rerank"] = 0.2
    _, report = await rerank(fused(), "q", uses="agent:judge", settings=s)
    assert report.reason is Reason.TIMEOUT
    assert report.error == "rerank agent:judge: no answer within 0.2s; kept the original order"
