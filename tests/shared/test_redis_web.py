"""The web leg's shared state through Redis: the cache and the 429 suspensions are seen
by every worker (here: other WebLeg instances and another process)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from unifind._http import Http, HttpPolicy
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Reason, SearchRequest
from unifind.web.cache import RedisWebCache
from unifind.web.leg import WebLeg

from .conftest import Shared

WORKER = Path(__file__).with_name("_worker.py")
FAST = HttpPolicy(retries=0)
TAVILY = {"results": [{"title": "A", "url": "https://a.example/", "content": "first"}]}
_OPEN: list[WebLeg] = []


@pytest.fixture(autouse=True)
async def _close_legs() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


@pytest.fixture
def server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        yield s


def env_for(server: FakeWebServer) -> dict[str, str]:
    return {"TAVILY_API_KEY": "t", "UNIFIND_TAVILY_BASE_URL": server.url}


def leg(shared: Shared, server: FakeWebServer, home: Path, **web: object) -> WebLeg:
    settings = shared.settings(home, web=web)
    w = WebLeg.from_settings(settings, env=env_for(server), http=Http(FAST))
    _OPEN.append(w)
    return w


async def test_a_cached_answer_serves_another_worker(
    shared: Shared, server: FakeWebServer, tmp_path: Path
) -> None:
    server.route("POST", "/search", Respond(json=TAVILY))
    one = leg(shared, server, tmp_path / "a", cache_ttl_s=60)
    two = leg(shared, server, tmp_path / "b", cache_ttl_s=60)  # its own SQLite home
    assert isinstance(two.cache, RedisWebCache)
    first = await one.search(SearchRequest(type="web", query="shared cache"))
    second = await two.search(SearchRequest(type="web", query="shared cache"))
    assert server.count() == 1, "the second worker must be served from Redis"
    assert first.status.value == second.status.value == "ok"
    assert (second.reports[0].note or "").startswith("cache hit")
    assert [i.url for i in second.items] == [i.url for i in first.items]
    keys = [k.decode() for k in shared.client.scan_iter(match=f"{shared.prefix}web:*")]
    assert len(keys) == 1
    assert 50_000 < shared.client.pttl(keys[0]) <= 60_000
    assert not (tmp_path / "a" / "web-cache.sqlite").exists(), "Redis replaces the file"


async def test_a_429_in_one_worker_suspends_the_provider_in_another(
    shared: Shared, server: FakeWebServer, tmp_path: Path
) -> None:
    server.route("POST", "/search", Respond(429, headers={"Retry-After": "120"}))
    here = leg(shared, server, tmp_path / "a")
    limited = await here.search(SearchRequest(type="web", query="q"))
    assert limited.reports[0].reason is Reason.RATE_LIMITED
    assert 110_000 < shared.client.pttl(f"{shared.prefix}hold:suspend:tavily") <= 120_000

    server.route("POST", "/search", Respond(json=TAVILY))
    settings = {"home": str(tmp_path / "b"), "redis_url": shared.url}
    settings["redis_prefix"] = shared.prefix
    job = {"do": "web", "settings": settings, "env": env_for(server), "query": "q"}
    done = subprocess.run(
        [sys.executable, str(WORKER), json.dumps(job)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout)
    assert (report["status"], report["reason"]) == ("degraded", "rate_limited")
    assert "not called" in report["error"]
    assert server.count() == 1, "the other worker must not call a suspended provider"


async def test_a_suspension_only_grows(
    shared: Shared, server: FakeWebServer, tmp_path: Path
) -> None:
    w = leg(shared, server, tmp_path)
    await w.suspensions.asuspend("tavily", 120)
    await w.suspensions.asuspend("tavily", 5)  # a shorter Retry-After seen elsewhere
    fresh = leg(shared, server, tmp_path / "other")
    assert 110 < await fresh.suspensions.aremaining("tavily") <= 120
    assert await fresh.suspensions.aremaining("serper") == 0.0
