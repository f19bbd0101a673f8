"""Redis down never fails a search: citations, the web cache and suspensions fall back to
per-process state, a warning says so once, and a dead server is not hammered."""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind._http import Http, HttpPolicy
from unifind._redis import RedisLink, Unavailable, close_links, redact
from unifind.config import load_settings
from unifind.engine import Searcher
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Item, Reason, SearchRequest
from unifind.web.leg import WebLeg

TAVILY = {"results": [{"title": "A", "url": "https://a.example/", "content": "first"}]}


def kb(key: str) -> Item:
    return Item(type="kb", title=key, content=key, collection="c", chunk_id=key)


@pytest.fixture
def dead_url() -> Iterator[str]:
    """A Redis URL where nothing listens (connection refused)."""
    pytest.importorskip("redis")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    yield f"redis://127.0.0.1:{port}/0"
    close_links()


def test_citations_still_number_when_redis_is_down(
    dead_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    searcher = Searcher(load_settings(home=tmp_path, redis_url=dead_url, records=False))
    with caplog.at_level(logging.WARNING, logger="unifind._redis"):
        first = searcher.context("r").assign([kb("a"), kb("b")])
        second = searcher.context("r").assign([kb("c"), kb("a")])
    assert [i.citation_id for i in (*first, *second)] == [
        "ref_001",
        "ref_002",
        "ref_003",
        "ref_001",
    ]
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1, warned  # once per outage, not once per call
    assert "unreachable" in warned[0] and "per-process" in warned[0]


async def test_web_search_works_when_redis_is_down(dead_url: str, tmp_path: Path) -> None:
    with FakeWebServer() as server:
        server.route(
            "POST",
            "/search",
            Respond(json=TAVILY),
            Respond(429, headers={"Retry-After": "120"}),
        )
        settings = load_settings(home=tmp_path, redis_url=dead_url, web={"cache_ttl_s": 60})
        env = {"TAVILY_API_KEY": "t", "UNIFIND_TAVILY_BASE_URL": server.url}
        leg = WebLeg.from_settings(settings, env=env, http=Http(HttpPolicy(retries=0)))
        try:
            first = await leg.search(SearchRequest(type="web", query="q"))
            again = await leg.search(SearchRequest(type="web", query="q"))
            limited = await leg.search(SearchRequest(type="web", query="other"))
            rested = await leg.search(SearchRequest(type="web", query="third"))
        finally:
            await leg.aclose()
    assert first.status.value == "ok" and first.items
    # The cache fell back to this process's SQLite file.
    assert (again.reports[0].note or "").startswith("cache hit")
    assert (tmp_path / "web-cache.sqlite").exists()
    # The suspension fell back to this process's memory.
    assert limited.reports[0].reason is Reason.RATE_LIMITED
    assert rested.reports[0].reason is Reason.RATE_LIMITED
    assert "not called" in (rested.reports[0].error or "")
    assert server.count() == 2


class _Resetter:
    """A TCP listener that counts connections and closes each at once (a broken Redis)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.sock.getsockname()[1]}/0"
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()


def test_a_dead_redis_is_tried_once_per_window() -> None:
    pytest.importorskip("redis")
    broken = _Resetter()
    now = [100.0]
    link = RedisLink(broken.url, retry_after_s=5.0, clock=lambda: now[0])
    try:
        with pytest.raises(Unavailable):
            link.call(lambda r: r.ping())
        tried = broken.accepted
        assert 1 <= tried <= 2  # one immediate retry at most
        now[0] += 4.0
        with pytest.raises(Unavailable):
            link.call(lambda r: r.ping())
        assert broken.accepted == tried, "inside the window Redis is not tried"
        now[0] += 2.0
        with pytest.raises(Unavailable):
            link.call(lambda r: r.ping())
        assert broken.accepted > tried, "after the window it is tried again"
    finally:
        link.close()
        broken.sock.close()


def test_logs_never_show_the_password() -> None:
    assert redact("redis://user:s3cret@h:6379/0") == "redis://user:***@h:6379/0"
    assert redact("redis://h:6379/0") == "redis://h:6379/0"
