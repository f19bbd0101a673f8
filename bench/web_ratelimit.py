"""Rate limits: N parallel searches against a loopback provider limited to R requests/s.

The server is ``unifind.testing.web_server.RateLimitedRoute``: a Tavily-shaped answer, HTTP
429 with Retry-After past R/s (GCRA, 50 ms of jitter allowed). Run once with the leg's token
bucket at the provider's rate, once without it. With the bucket every call should succeed
(zero 429s) and the burst should take ≈ (N-1)/R seconds; without it most calls fail.
``--redis URL`` shares one bucket between two WebLeg instances (as two workers would).

Run: OMP_NUM_THREADS=1 python bench/web_ratelimit.py [--calls 20] [--rate 1] [--redis URL]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from unifind._http import Http, HttpPolicy
from unifind._redis import RedisLink
from unifind.testing.web_server import FakeWebServer, RateLimitedRoute, Respond
from unifind.types import SearchRequest
from unifind.web.leg import WebLeg

ANSWER = {"results": [{"title": "A", "url": "https://a.example/", "content": "x"}]}


async def run(
    server: FakeWebServer, calls: int, rate: float, bucket: bool, workers: list[RedisLink | None]
) -> tuple[float, int, int]:
    """(seconds, ok answers, 429s seen by the server) for ``calls`` parallel searches."""
    route = RateLimitedRoute(Respond(json=ANSWER), per_s=rate)
    server.route("POST", "/search", route)
    env = {"TAVILY_API_KEY": "k", "UNIFIND_TAVILY_BASE_URL": server.url}
    web: dict[str, Any] = {"tavily": {"rate": rate, "burst": 1}, "rate_limit": bucket,
                           "timeout_s": calls / rate + 10}  # fmt: skip
    with tempfile.TemporaryDirectory() as home:
        legs = [
            WebLeg(web, home=Path(home) / str(i), env=env, redis=link,
                   http=Http(HttpPolicy(retries=0, max_retry_after_s=0)))
            for i, link in enumerate(workers)
        ]  # fmt: skip
        reqs = [SearchRequest(type="web", query=f"q{i}") for i in range(calls)]
        t0 = time.perf_counter()
        results = await asyncio.gather(*(legs[i % len(legs)].search(r) for i, r in enumerate(reqs)))
        took = time.perf_counter() - t0
        for leg in legs:
            await leg.aclose()
    ok = sum(r.status.value == "ok" for r in results)
    return took, ok, route.limited


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--rate", type=float, default=1.0, help="the server's requests per second")
    ap.add_argument("--redis", help="share the bucket of two legs through this Redis URL")
    args = ap.parse_args()
    ideal = (args.calls - 1) / args.rate
    print(f"{args.calls} parallel searches, provider limited to {args.rate:g} req/s "
          f"(ideal with queueing: {ideal:.1f} s)")  # fmt: skip
    workers: list[RedisLink | None] = [None]
    link = None
    if args.redis:
        link = RedisLink(args.redis, f"unifind-bench:{uuid.uuid4().hex}:")
        workers = [link, link]
    with FakeWebServer() as server:
        for bucket in (True, False):
            took, ok, limited = asyncio.run(run(server, args.calls, args.rate, bucket, workers))
            label = "with token bucket" if bucket else "without bucket   "
            where = f" ({len(workers)} legs sharing Redis)" if link and bucket else ""
            print(f"{label}: {took:6.2f} s, {ok}/{args.calls} ok, {limited} HTTP 429{where}")
    if link is not None:
        link.close()


if __name__ == "__main__":
    main()
