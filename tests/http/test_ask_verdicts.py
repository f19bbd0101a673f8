"""The SSE ``citations`` event and the final answer carry a verdict per (sentence, cited id)
(issue #20): a contradicted number, an extra id in a list, an uncited claim."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from tests.http.conftest import LiveServer
from tests.http.test_ask import KB_ONLY, read_events

from unifind.http_api import create_app
from unifind.ops import AskOutput
from unifind.store.keys import KeyStore
from unifind.testing.openai_server import OpenAIServer

SCRIPT = (
    "Refunds are paid within 90 days [ref_001]. "
    "Refunds are paid within 30 days [ref_001, ref_002]. "
    "Refunds are always paid in gold."
)


@pytest.fixture
def live_llm(
    settings_of: Callable[..., Any], searcher: Any, keys: KeyStore
) -> Iterator[tuple[LiveServer, OpenAIServer]]:
    with OpenAIServer() as llm:
        settings = settings_of(agents={"answer": {"base_url": llm.base_url, "model": "m"}})
        with LiveServer(create_app(settings, keys=keys, mcp=False)) as server:
            yield server, llm


def test_the_citations_event_holds_each_pairs_verdict_and_its_source(
    live_llm: tuple[LiveServer, OpenAIServer], key_a: str, auth: Callable[[str], dict[str, str]]
) -> None:
    server, llm = live_llm
    llm.script_chat(SCRIPT)
    body = {"message": "when are refunds paid and how is shipping?", "sources": KB_ONLY,
            "request_id": "verdicts-1"}  # fmt: skip
    headers = {**auth(key_a), "Accept": "text/event-stream"}
    with (
        httpx.Client(base_url=server.url, headers=headers, timeout=30) as c,
        c.stream("POST", "/v1/ask", json=body) as r,
    ):
        events = [e for e in read_events(r.iter_lines()) if e[0] != "heartbeat"]
    citations = dict(events)["citations"]
    out = AskOutput.model_validate(events[-1][1])
    refs = {r["citation_id"]: r["title"] for r in out.references}
    assert refs["ref_001"] == "Refunds"  # the refunds document ranks first
    got = [(v.get("citation"), v["verdict"], v.get("rule")) for v in citations["verdicts"]]
    assert got == [
        ("ref_001", "contradicted", "number"),
        ("ref_001", "supported", None),
        ("ref_002", "not_supported", None),
        (None, "uncited_claim", None),
    ]
    first = citations["verdicts"][0]
    assert first["evidence"]["sentence"] == "Refunds are paid within 30 days."
    assert "'90 days' vs '30 days'" in first["reason"]
    assert [v.verdict for v in out.citations.verdicts] == [
        v["verdict"] for v in citations["verdicts"]
    ]
    assert not out.citations.ok
