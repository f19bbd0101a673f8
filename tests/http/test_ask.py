"""POST /v1/ask: JSON answers (extractive and from a loopback LLM), SSE events, errors,
attached parts, and cancellation when the client goes away."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from tests.http.conftest import LiveServer, _debug_tasks

from unifind.http_api import create_app
from unifind.ops import AskOutput
from unifind.store.keys import KeyStore
from unifind.testing.openai_server import OpenAIServer, Reply, chat_completion

KB_ONLY = {"kb": {"collections": ["docs"]}}
SCRIPT = "Refunds are paid within 30 days [ref_001]. Penguins run the warehouse [ref_007]."


def read_events(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    """(event name, data) per SSE block; heartbeats as ("heartbeat", None)."""
    name, data = "", ""
    for line in lines:
        if line.startswith(": heartbeat"):
            yield "heartbeat", None
        elif line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif not line and name:
            yield name, json.loads(data)
            name, data = "", ""


async def test_extractive_answer_without_an_llm(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/ask", json={"message": "when are refunds paid?", "sources": KB_ONLY})
    assert r.status_code == 200, r.text
    out = AskOutput.model_validate(r.json())
    assert out.llm is None and out.note is not None and "No LLM" in out.note
    assert "30 days" in out.text and "[ref_001]" in out.text
    assert out.citations.valid[0] == "ref_001" and out.citations.ok
    assert out.status == "ok" and out.plan.legs == ["kb"]
    assert out.references[0]["citation_id"] == "ref_001"
    assert {rep.backend for rep in out.reports} == {"docs"}


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"message": "  "}, 422, "message"),
        ({"message": "q", "uses": {"intent": "magic"}}, 400, None),
        ({"message": "q", "uses": {"answer": "agent:nobody"}}, 400, None),
        ({"message": "q", "sources": {"kb": {"collections": ["nope"]}}}, 404, None),
        ({"message": "q", "parts": [{"file": "/etc/passwd"}]}, 422, None),
        ({"message": "q", "limit": 0}, 422, "limit"),
    ],
)
async def test_bad_input_is_one_error_before_anything_runs(
    client: httpx.AsyncClient, body: dict[str, Any], status: int, field: str | None
) -> None:
    for headers in ({}, {"Accept": "text/event-stream"}):
        r = await client.post("/v1/ask", json=body, headers=headers)
        assert r.status_code == status, r.text
        err = r.json()["error"]
        assert err["message"]
        if field:
            assert field in (err["field"] or ""), err
    r = await client.post("/v1/ask", json={"message": "q", "sources": KB_ONLY, "uses": {
        "answer": "agent:nobody"}})  # fmt: skip
    assert r.json()["error"]["valid"] == []  # no agent configured: the list says so


async def test_attached_parts_are_searched_first_and_then_dropped(
    client: httpx.AsyncClient,
) -> None:
    part = {"text": "Members may return goods within 45 days.", "title": "memo"}
    body = {"message": "how long may members return goods?", "parts": [part],
            "sources": KB_ONLY, "skip_threshold": 1}  # fmt: skip
    out = AskOutput.model_validate((await client.post("/v1/ask", json=body)).json())
    assert "45 days" in out.text
    assert out.references[0]["source"] == "user" and out.references[0]["title"] == "memo"
    assert any("skip_threshold" in n for n in out.plan.notes)
    assert any(rep.status == "skipped" and rep.backend for rep in out.reports)
    names = [c["name"] for c in (await client.get("/v1/collections")).json()]
    assert not any(n.startswith("_ask_") for n in names)


@pytest.fixture
def llm() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


@pytest.fixture
def live_llm(
    settings_of: Callable[..., Any], searcher: Any, keys: KeyStore, llm: OpenAIServer
) -> Iterator[LiveServer]:
    settings = settings_of(agents={"answer": {"base_url": llm.base_url, "model": "m"}})
    with LiveServer(create_app(settings, keys=keys, mcp=False)) as server:
        yield server


def test_sse_events_in_order_with_an_llm_answer_and_its_check(
    live_llm: LiveServer, llm: OpenAIServer, key_a: str, auth: Callable[[str], dict[str, str]]
) -> None:
    llm.script_chat(SCRIPT)
    body = {"message": "when are refunds paid?", "sources": KB_ONLY, "request_id": "ask-1"}
    headers = {**auth(key_a), "Accept": "text/event-stream"}
    with (
        httpx.Client(base_url=live_llm.url, headers=headers, timeout=20) as c,
        c.stream("POST", "/v1/ask", json=body) as r,
    ):
        assert r.headers["content-type"].startswith("text/event-stream")
        events = [e for e in read_events(r.iter_lines()) if e[0] != "heartbeat"]
    kinds = [k for k, _ in events]
    assert kinds[0] == "plan" and kinds[-1] == "done" and "error" not in kinds
    assert kinds.index("leg") < kinds.index("references") < kinds.index("answer.delta")
    assert kinds.index("answer.delta") < kinds.index("citations")
    assert "".join(d["text"] for k, d in events if k == "answer.delta") == SCRIPT
    out = AskOutput.model_validate(events[-1][1])
    assert out.request_id == "ask-1" and out.llm == "agent:answer" and out.note is None
    assert out.citations.valid == ["ref_001"] and out.citations.unknown == ["ref_007"]
    assert dict(events)["citations"]["unknown"] == ["ref_007"]
    system = llm.requests[-1].json["messages"][0]["content"]
    assert "<references>" in system and "within 30 days" in system


def test_a_client_that_disconnects_cancels_the_answer(
    live_llm: LiveServer, llm: OpenAIServer, key_a: str, auth: Callable[[str], dict[str, str]]
) -> None:
    slow = Reply(body=chat_completion("late"), delay=3)
    llm.script_chat(slow)
    time.sleep(0.2)
    baseline = live_llm.tasks()
    t0 = time.monotonic()
    body = {"message": "when are refunds paid?", "sources": KB_ONLY}
    with httpx.Client(base_url=live_llm.url, headers=auth(key_a), timeout=10) as c:
        with c.stream("POST", "/v1/ask?stream=true", json=body) as r:
            for name, _ in read_events(r.iter_lines()):
                if name == "references":
                    break
            # Hang up only once the LLM is waited on (the answer step may first load the
            # support checker's model).
            while not _chat_requests(llm):
                assert time.monotonic() - t0 < 2.5, "the LLM was never called"
                time.sleep(0.01)
        while live_llm.tasks() > baseline:
            assert time.monotonic() - t0 < 2.5, "\n".join(_debug_tasks(live_llm))
            time.sleep(0.02)
    assert len(_chat_requests(llm)) == 1


def _chat_requests(llm: OpenAIServer) -> list[object]:
    return [q for q in llm.requests if q.path.endswith("/chat/completions")]
