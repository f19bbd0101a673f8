"""The keywords stage by an LLM: keywords for the web and rewritten queries, each one more
KB and web request; a broken answer falls back to the builtin and says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind import load_settings
from unifind.engine import Searcher
from unifind.testing.openai_server import OpenAIServer

MESSAGE = "what is our refund window, and has the law changed this year?"


@pytest.fixture
def llm() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


@pytest.fixture
def searcher(tmp_path: Path, llm: OpenAIServer) -> Iterator[Searcher]:
    agents = {"kw": {"base_url": llm.base_url, "model": "m"}}
    s = Searcher(load_settings(home=tmp_path, kb={"embedder": "hash"}, agents=agents))
    s.kb.create("handbook", embedder=None)
    s.kb.ingest_text("handbook", "Refunds within 30 days.", document_id="r", title="Refunds")
    yield s
    s.close()


async def test_rewritten_queries_become_kb_and_web_requests(
    searcher: Searcher, llm: OpenAIServer
) -> None:
    answer = {
        "keywords": ["refund window", "consumer law 2026"],
        "queries": ["our refund window", "EU consumer refund law changes 2026", MESSAGE],
    }
    llm.script_chat(json.dumps(answer))
    plan = await searcher.plan(MESSAGE, uses={"keywords": "agent:kw"})
    assert plan.keywords == ["refund window", "consumer law 2026"] and not plan.notes
    got = [(r.type, r.query) for r in plan.requests]
    assert got == [
        ("kb", MESSAGE),  # the KB's own request reads the whole message
        ("web", "refund window consumer law 2026"),
        ("kb", "our refund window"),
        ("web", "our refund window"),
        ("kb", "EU consumer refund law changes 2026"),
        ("web", "EU consumer refund law changes 2026"),
    ]  # the message itself is not searched twice
    [sent] = [q for q in llm.requests if q.path.endswith("/chat/completions")]
    assert MESSAGE in json.dumps(sent.json)


@pytest.mark.parametrize(
    "reply", ['{"keywords": "refund", "queries": {"a": 1}}', "<html>502</html>", '{"queries": []}']
)
async def test_a_broken_rewrite_falls_back_to_the_builtin(
    searcher: Searcher, llm: OpenAIServer, reply: str
) -> None:
    llm.script_chat(reply)
    plan = await searcher.plan(MESSAGE, uses={"keywords": "agent:kw"})
    assert "refund" in plan.keywords
    assert [r.type for r in plan.requests] == ["kb", "web"]
    assert any("keywords agent:kw failed" in n and "used builtin" in n for n in plan.notes)
