"""The agent:<name> generator against a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind.db.demo import DEMO_MODELS_YAML
from unifind.db.leg import DBLeg
from unifind.errors import UnknownName
from unifind.llm import chat
from unifind.testing.openai_server import OpenAIServer, Reply
from unifind.types import Reason, SearchRequest, Status

from .conftest import TODAY

GOOD = json.dumps(
    {
        "wheres": [
            {"field": "category", "value": "laptop"},
            {"field": "price", "op": "<", "value": 1000},
        ],
        "orders": [{"field": "price", "sort": "asc"}],
        "limit": 2,
    }
)


@pytest.fixture
def srv() -> Iterator[OpenAIServer]:
    with OpenAIServer(api_key="sk-test") as server:
        yield server


def agent_leg(shop_path: Path, srv: OpenAIServer, *, strict: bool = False) -> DBLeg:
    agents = {"shop": {"base_url": srv.base_url, "model": "test-model", "api_key": "sk-test"}}
    return DBLeg(
        f"sqlite:///{shop_path}",
        DEMO_MODELS_YAML,
        generator="agent:shop",
        strict=strict,
        config={"agents": agents, "today": TODAY.isoformat()},
    )


def ask(q: str = "two cheapest laptops under 1000") -> SearchRequest:
    return SearchRequest(type="db", query=q, models=("products",))


async def test_chat_client_speaks_the_protocol(srv: OpenAIServer) -> None:
    srv.script_chat("hello")
    out = await chat(
        [{"role": "user", "content": "hi"}],
        model="m",
        base_url=srv.base_url,
        api_key="sk-test",
        response_format={"type": "json_object"},
    )
    assert out == "hello"
    sent = srv.requests[-1]
    assert (
        sent.path == "/v1/chat/completions"
        and sent.headers.get("authorization") == "Bearer sk-test"
    )
    assert sent.json["response_format"] == {"type": "json_object"} and sent.json["model"] == "m"


async def test_valid_json_becomes_the_dsl(shop_path: Path, srv: OpenAIServer) -> None:
    srv.script_chat(f"```json\n{GOOD}\n```")
    leg = agent_leg(shop_path, srv)
    res = await leg.search(ask())
    assert res.ok and [i.record_id for i in res.items] == ["10", "6"]
    assert res.dsl is not None and res.dsl["limit"] == 2
    assert res.reports[0].note == "generator agent:shop"
    prompt = srv.requests[0].json["messages"][0]["content"]
    assert (
        '"model": "products"' in prompt and "today is 2024-06-15" in prompt and "in_stock" in prompt
    )
    leg.close()


async def test_invalid_then_repaired(shop_path: Path, srv: OpenAIServer) -> None:
    srv.script_chat('{"wheres": [{"field": "cost", "op": "<", "value": 1000}]}', GOOD)
    leg = agent_leg(shop_path, srv)
    res = await leg.search(ask())
    assert res.ok and len(res.items) == 2 and "agent:shop: repaired once" in res.notes
    repair = srv.requests[1].json["messages"]
    assert repair[-2]["role"] == "assistant" and "unknown field 'cost'" in repair[-1]["content"]
    leg.close()


async def test_invalid_twice_strict_is_a_clear_failure(shop_path: Path, srv: OpenAIServer) -> None:
    srv.script_chat("SELECT * FROM products", '{"wheres": "everything"}')
    leg = agent_leg(shop_path, srv, strict=True)
    res = await leg.search(ask())
    report = res.reports[0]
    assert report.status is Status.DEGRADED and report.reason is Reason.BAD_RESPONSE
    assert "invalid DSL twice" in (report.error or "") and res.items == ()
    leg.close()


async def test_invalid_twice_falls_back_to_keywords(shop_path: Path, srv: OpenAIServer) -> None:
    srv.script_chat("not json", "still not json")
    leg = agent_leg(shop_path, srv)
    res = await leg.search(ask("MacBook"))
    assert res.ok and [i.record_id for i in res.items] == ["1", "2"]
    assert any("fell back to keyword matching" in n for n in res.notes)
    leg.close()


async def test_endpoint_down_strict_reports_its_reason(shop_path: Path, srv: OpenAIServer) -> None:
    srv.inject(Reply(status=401), times=5)
    leg = agent_leg(shop_path, srv, strict=True)
    res = await leg.search(ask())
    assert res.reports[0].reason is Reason.AUTH
    leg.close()


async def test_unknown_agent_lists_the_configured_ones(shop_path: Path, srv: OpenAIServer) -> None:
    leg = agent_leg(shop_path, srv)
    with pytest.raises(UnknownName, match="valid: shop"):
        await leg.search(SearchRequest(type="db", query="x", uses="agent:other"))
    leg.close()


async def test_a_placeholder_agent_key_is_no_key_not_an_exception(
    shop_path: Path, srv: OpenAIServer
) -> None:
    # Issue #18: the README's "…" as the agent's key used to escape as UnicodeEncodeError.
    agents = {"shop": {"base_url": srv.base_url, "model": "test-model", "api_key": "…"}}
    leg = DBLeg(f"sqlite:///{shop_path}", DEMO_MODELS_YAML, generator="agent:shop", strict=True,
                config={"agents": agents, "today": TODAY.isoformat()})  # fmt: skip
    res = await leg.search(ask())
    assert (res.reports[0].status, res.reports[0].reason) == (Status.DEGRADED, Reason.NO_KEY)
    assert "non-ASCII" in (res.reports[0].error or "") and srv.requests == []
    leg.close()
