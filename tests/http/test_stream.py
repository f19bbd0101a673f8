"""The streamed search over a real uvicorn on loopback: events, heartbeats, disconnects."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from tests.http.conftest import LiveServer, _debug_tasks

from unifind import Searcher
from unifind.http_api import create_app
from unifind.ops import SearchOutput
from unifind.store.keys import KeyStore
from unifind.testing.web_server import FakeWebServer, Respond

HIT = {"url": "https://example.com/refunds", "title": "Refunds", "content": "30 days"}
HITS = {"results": [HIT]}
BODY = {"query": "refunds", "sources": {"kb": {}, "web": {"provider": "searxng"}}}


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeWebServer]:
    """A SearXNG instance on loopback; each test scripts how slowly it answers."""
    with FakeWebServer() as web:
        monkeypatch.setenv("UNIFIND_SEARXNG_BASE_URL", web.url)
        yield web


@pytest.fixture
def live(searcher: Searcher, keys: KeyStore) -> Iterator[LiveServer]:
    # The app builds (and on shutdown closes, on its own loop) a searcher on the same home.
    with LiveServer(create_app(searcher.settings, keys=keys, mcp=False)) as server:
        yield server


def read_events(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    """(event name, data) per SSE block; heartbeats as ("heartbeat", None)."""
    name = None
    for line in lines:
        if line.startswith(": heartbeat"):
            yield "heartbeat", None
        elif line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: ") and name:
            yield name, json.loads(line[6:])
            name = None


def test_events_arrive_in_order_with_heartbeats_while_a_leg_is_slow(
    live: LiveServer, provider: FakeWebServer, key_a: str, auth: Callable[[str], dict[str, str]]
) -> None:
    provider.route("GET", "/search", Respond(json=HITS, delay_s=0.8))
    headers = {**auth(key_a), "Accept": "text/event-stream"}
    with (
        httpx.Client(base_url=live.url, headers=headers, timeout=10) as c,
        c.stream("POST", "/v1/search", json=BODY) as r,
    ):
        assert r.headers["content-type"].startswith("text/event-stream")
        events = list(read_events(r.iter_lines()))
    names = [n for n, _ in events]
    assert names[0] == "plan" and names[-1] == "done"
    legs = [(d["leg"], d["status"]) for n, d in events if n == "leg"]
    assert legs[-1] == ("web", "ok") and ("kb", "ok") in legs  # the KB answers first
    first_kb = names.index("leg")
    web = len(names) - 1 - names[::-1].index("leg")
    assert "heartbeat" in names[first_kb:web]  # idle while the provider sleeps
    done = SearchOutput.model_validate(events[-1][1])
    assert {i.type for i in done.items} == {"kb", "web"}
    assert all(i.citation_id for i in done.items)


def test_a_client_that_disconnects_cancels_the_legs(
    live: LiveServer, provider: FakeWebServer, key_a: str, auth: Callable[[str], dict[str, str]]
) -> None:
    provider.route("GET", "/search", Respond(json=HITS, delay_s=3))
    time.sleep(0.2)
    baseline = live.tasks()
    t0 = time.monotonic()
    body = {**BODY, "request_id": "left-early"}
    with httpx.Client(base_url=live.url, headers=auth(key_a), timeout=10) as c:
        with c.stream("POST", "/v1/search?stream=true", json=body) as r:
            for name, _ in read_events(r.iter_lines()):
                if name == "leg":  # the KB answered; the web leg is waiting on the provider
                    assert live.tasks() > baseline
                    while provider.count("GET", "/search") == 0:  # its request is out
                        assert time.monotonic() - t0 < 2.0
                        time.sleep(0.01)
                    break
        # The response is closed unread: the connection goes, and with it the search.
        while live.tasks() > baseline:
            assert time.monotonic() - t0 < 2.5, "\n".join(_debug_tasks(live))
            time.sleep(0.02)
        assert provider.count("GET", "/search") == 1  # it was asked, then abandoned
        time.sleep(max(0.0, 3.3 - (time.monotonic() - t0)))  # past the provider's answer
        # A finished search with a request_id is recorded; this one never finished.
        assert c.get("/v1/requests/left-early/searches").json() == []
        assert live.tasks() == baseline


def test_heartbeat_interval_comes_from_settings(
    searcher: Searcher,
    keys: KeyStore,
    provider: FakeWebServer,
    key_a: str,
    auth: Callable[[str], dict[str, str]],
) -> None:
    provider.route("GET", "/search", Respond(json=HITS, delay_s=0.5))
    searcher.settings.server = searcher.settings.server.model_copy(update={"heartbeat_s": 5})
    app = create_app(searcher.settings, keys=keys, mcp=False)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, headers=auth(key_a)) as c:
        r = c.post("/v1/search?stream=true", json=BODY, timeout=10)
    assert ": heartbeat" not in r.text and r.text.rstrip().endswith("}")
    assert "event: done" in r.text
