"""POST /v1/ask with ``samples`` and ``support``: the kept answer arrives as one delta after
the check; bad values are refused before anything runs."""

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

GOOD = "Refunds are paid within 30 days [ref_001]."
INVENTED = "Refunds are paid within 30 days [ref_001]. Penguins run the warehouse [ref_007]."


@pytest.fixture
def live(
    settings_of: Callable[..., Any], searcher: Any, keys: KeyStore
) -> Iterator[tuple[LiveServer, OpenAIServer]]:
    with OpenAIServer() as llm:
        settings = settings_of(agents={"answer": {"base_url": llm.base_url, "model": "m"}})
        with LiveServer(create_app(settings, keys=keys, mcp=False)) as server:
            yield server, llm


def test_samples_stream_the_kept_answer_once_after_the_check(
    live: tuple[LiveServer, OpenAIServer], key_a: str, auth: Callable[[str], dict[str, str]]
) -> None:
    server, llm = live
    llm.script_chat(INVENTED, GOOD)
    body = {"message": "when are refunds paid?", "sources": KB_ONLY, "samples": 2,
            "support": "lexical"}  # fmt: skip
    headers = {**auth(key_a), "Accept": "text/event-stream"}
    with (
        httpx.Client(base_url=server.url, headers=headers, timeout=20) as c,
        c.stream("POST", "/v1/ask", json=body) as r,
    ):
        events = [e for e in read_events(r.iter_lines()) if e[0] != "heartbeat"]
    deltas = [d["text"] for k, d in events if k == "answer.delta"]
    assert deltas == [GOOD]
    out = AskOutput.model_validate(events[-1][1])
    assert out.text == GOOD and out.citations.ok and out.citations.support == "lexical"
    assert sorted((s.kept, s.unknown) for s in out.samples) == [(False, 1), (True, 0)]
    assert len([r for r in llm.requests if r.path.endswith("/chat/completions")]) == 2


@pytest.mark.parametrize(
    "extra", [{"samples": 0}, {"samples": 9}, {"support": "bm25"}, {"samples": "many"}]
)
async def test_bad_samples_or_support_are_422(
    client: httpx.AsyncClient, extra: dict[str, Any]
) -> None:
    r = await client.post("/v1/ask", json={"message": "q", "sources": KB_ONLY, **extra})
    assert r.status_code == 422, r.text
    assert next(iter(extra)) in (r.json()["error"]["field"] or "")
