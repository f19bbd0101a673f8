"""Token buckets per provider: parallel calls queue instead of earning 429s, in one process
and (through Redis) across workers; a slot past the deadline is reported, not waited for."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind._http import Http, HttpPolicy
from unifind._redis import RedisLink
from unifind.errors import ConfigError
from unifind.testing.web_server import FakeWebServer, RateLimitedRoute, Respond
from unifind.types import Reason, SearchRequest, Status
from unifind.web.leg import WebLeg
from unifind.web.ratelimit import Rate, RateLimiter, TooLong

REDIS_URL = os.environ.get("UNIFIND_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# No retries: a 429 must show, not be waited out by the HTTP policy.
FAST = HttpPolicy(retries=0, max_retry_after_s=0)
TAVILY = {"results": [{"title": "A", "url": "https://a.example/", "content": "x"}]}
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


def leg(
    server: FakeWebServer, tmp_path: Path, redis: RedisLink | None = None, **web: Any
) -> WebLeg:
    env = {"TAVILY_API_KEY": "t", "UNIFIND_TAVILY_BASE_URL": server.url}
    w = WebLeg(web, home=tmp_path, env=env, http=Http(FAST), redis=redis)
    _OPEN.append(w)
    return w


async def burst(w: WebLeg, n: int, **kw: Any) -> list[Any]:
    reqs = [SearchRequest(type="web", query=f"q{i}", **kw) for i in range(n)]
    return list(await asyncio.gather(*(w.search(r) for r in reqs)))


async def test_reservations_follow_the_gcra_schedule() -> None:
    now = [100.0]
    limiter = RateLimiter(clock=lambda: now[0])
    rate = Rate(per_s=1.0, burst=2, headroom=0.0)
    waits = [await limiter.reserve("p", rate) for _ in range(5)]
    assert waits == [0.0, 0.0, 1.0, 2.0, 3.0]
    now[0] += 10  # idle: the bucket refills, but never beyond its burst
    assert [await limiter.reserve("p", rate) for _ in range(3)] == [0.0, 0.0, 1.0]
    assert Rate(per_s=2.0, headroom=0.1).step == pytest.approx(0.55)
    with pytest.raises(TooLong):
        await limiter.reserve("p", rate, most_s=1.5)
    assert await limiter.reserve("p", rate, most_s=2.0) == 2.0  # TooLong took no slot
    assert await limiter.reserve("other", rate) == 0.0  # buckets are per provider


async def test_parallel_calls_queue_instead_of_earning_429s(
    server: FakeWebServer, tmp_path: Path
) -> None:
    # 10/s with 80 ms of arrival jitter tolerated: a loaded shared machine must not flake.
    route = RateLimitedRoute(Respond(json=TAVILY), per_s=10, tolerance_s=0.08)
    server.route("POST", "/search", route)
    w = leg(server, tmp_path, tavily={"rate": 10, "burst": 1}, timeout_s=10)
    t0 = time.perf_counter()
    results = await burst(w, 6)
    took = time.perf_counter() - t0
    assert route.limited == 0 and route.served == 6
    assert all(r.status.value == "ok" for r in results)
    assert took >= 5 / 10, took
    assert any("waited" in (r.reports[0].note or "") for r in results)


async def test_without_the_bucket_the_same_burst_earns_429s(
    server: FakeWebServer, tmp_path: Path
) -> None:
    route = RateLimitedRoute(Respond(json=TAVILY), per_s=10, tolerance_s=0.08)
    server.route("POST", "/search", route)
    results = await burst(leg(server, tmp_path, rate_limit=False), 6)
    assert route.limited > 0
    assert any(r.reports[0].reason is Reason.RATE_LIMITED for r in results)


async def test_a_slot_past_the_deadline_is_reported_not_waited_for(
    server: FakeWebServer, tmp_path: Path
) -> None:
    server.route("POST", "/search", Respond(json=TAVILY))
    w = leg(server, tmp_path, tavily={"rate": 0.5, "burst": 1})
    t0 = time.perf_counter()
    results = await burst(w, 3, timeout_s=1.0)
    assert time.perf_counter() - t0 < 1.5
    statuses = sorted(r.reports[0].status.value for r in results)
    assert statuses == ["degraded", "degraded", "ok"]
    failed = [r.reports[0] for r in results if r.reports[0].status is Status.DEGRADED]
    assert all(f.reason is Reason.RATE_LIMITED and "not called" in (f.error or "") for f in failed)
    assert server.count("POST", "/search") == 1


def test_rate_settings_are_checked(tmp_path: Path) -> None:
    from unifind.web.providers.tavily import Tavily

    w = WebLeg({"tavily": {"rate": "fast"}}, home=tmp_path, env={})
    with pytest.raises(ConfigError, match=r"web\.tavily\.rate"):
        w.rate_for(Tavily(), w.searchers.config("tavily"))
    w2 = WebLeg({"tavily": {"rate": 0}}, home=tmp_path, env={})
    assert w2.rate_for(Tavily(), w2.searchers.config("tavily")) is None
    w3 = WebLeg({}, home=tmp_path, env={})
    assert w3.rate_for(Tavily(), w3.searchers.config("tavily")) == Rate(100 / 60, 5)


@pytest.fixture
def redis_link() -> Iterator[RedisLink]:
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        pytest.skip(f"no Redis at {REDIS_URL} ({exc})")
    prefix = f"unifind-test:{uuid.uuid4().hex}:"
    link = RedisLink(REDIS_URL, prefix)
    yield link
    link.close()
    keys = list(client.scan_iter(match=f"{prefix}*"))
    if keys:
        client.delete(*keys)
    client.close()


async def test_workers_share_one_bucket_through_redis(
    server: FakeWebServer, tmp_path: Path, redis_link: RedisLink
) -> None:
    # 5/s with 150 ms of jitter allowed: a loaded machine may delay one request's arrival
    # by tens of ms after its slot; two workers with separate buckets arrive together.
    route = RateLimitedRoute(Respond(json=TAVILY), per_s=5, tolerance_s=0.15)
    server.route("POST", "/search", route)
    web = {"tavily": {"rate": 5, "burst": 1}, "timeout_s": 10}
    one = leg(server, tmp_path / "a", redis_link, **web)
    two = leg(server, tmp_path / "b", redis_link, **web)  # its own local bucket
    t0 = time.perf_counter()
    await asyncio.gather(burst(one, 3), burst(two, 3))
    assert route.limited == 0 and route.served == 6
    assert time.perf_counter() - t0 >= 5 / 5
    await redis_link.aclose()
