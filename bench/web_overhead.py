"""Web leg overhead and fan-out, against a loopback server (no internet).

1. Overhead of the leg itself per result: request build + response parse + Item shaping +
   render, without the network (a canned Tavily-shaped reply of N results).
2. End to end through the real HTTP client to 127.0.0.1 (one provider, N results).
3. Fan-out: K providers each answering after a fixed delay, run concurrently vs one after
   another; the ratio shows the leg adds no serialisation.

Run: OMP_NUM_THREADS=1 python bench/web_overhead.py [--results 10] [--rounds 200] [--delay 0.1]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from unifind._http import Http, HttpPolicy, Reply
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import LegReport, SearchRequest, SearchResult, Status
from unifind.web.leg import WebLeg, _items
from unifind.web.model import PlugConfig
from unifind.web.params import plan
from unifind.web.providers.tavily import Tavily
from unifind.web.render import render_results

PROVIDERS = {  # name → (method, path, payload builder)
    "tavily": (
        "POST",
        "/search",
        lambda n: {
            "results": [
                {"title": f"T{i}", "url": f"https://t.example/{i}", "content": "snippet " * 20}
                for i in range(n)
            ]
        },
    ),
    "serper": (
        "POST",
        "/search",
        lambda n: {
            "searchParameters": {},
            "organic": [
                {"title": f"S{i}", "link": f"https://s.example/{i}", "snippet": "snippet " * 20}
                for i in range(n)
            ],
        },
    ),
    "brave": (
        "GET",
        "/res/v1/web/search",
        lambda n: {
            "type": "search",
            "web": {
                "results": [
                    {
                        "title": f"B{i}",
                        "url": f"https://b.example/{i}",
                        "description": "snippet " * 20,
                    }
                    for i in range(n)
                ]
            },
        },
    ),
    "exa": (
        "POST",
        "/search",
        lambda n: {
            "results": [
                {"title": f"E{i}", "url": f"https://e.example/{i}", "highlights": ["snippet " * 20]}
                for i in range(n)
            ]
        },
    ),
}


def overhead_per_result(n: int, rounds: int) -> float:
    import json

    provider, req = Tavily(), SearchRequest(type="web", query="bench query", limit=n)
    cfg = PlugConfig(base_url="http://127.0.0.1:1", api_key="k")
    body = json.dumps(PROVIDERS["tavily"][2](n)).encode()
    reply = Reply(
        200, "http://127.0.0.1:1/search", httpx.Headers({"content-type": "application/json"}), body
    )
    report = LegReport(leg="web", backend="tavily", status=Status.OK, hits=n)
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        planned = plan(req, provider)
        query = planned.query
        provider.build_request(query, cfg)
        items = _items(provider.parse_response(reply, query), provider, planned.local, req)
        render_results(SearchResult(type="web", query=req.query, items=items, reports=(report,)))
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) / n * 1e6


async def end_to_end(server: FakeWebServer, n: int, rounds: int, home: Path) -> float:
    env = {"TAVILY_API_KEY": "k", "UNIFIND_TAVILY_BASE_URL": f"{server.url}/tavily"}
    leg = WebLeg({"rate_limit": False}, home=home, env=env, http=Http(HttpPolicy(retries=0)))
    req = SearchRequest(type="web", query="bench", limit=n)
    await leg.search(req)  # warm the connection pool
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        await leg.search(req)
        samples.append(time.perf_counter() - t0)
    await leg.aclose()
    return statistics.median(samples) * 1000


async def fan_out(server: FakeWebServer, n: int, home: Path) -> tuple[float, float]:
    env = {"TAVILY_API_KEY": "k", "SERPER_API_KEY": "k", "BRAVE_API_KEY": "k", "EXA_API_KEY": "k"}
    web: dict[str, object] = {name: {"base_url": f"{server.url}/{name}"} for name in PROVIDERS}
    web["rate_limit"] = False  # the leg's overhead, not the providers' documented limits
    leg = WebLeg(web, home=home, env=env, http=Http(HttpPolicy(retries=0)))
    reqs = [SearchRequest(type="web", query="fan", limit=n, provider=p) for p in PROVIDERS]
    await asyncio.gather(*(leg.search(r) for r in reqs))  # warm up: imports, connections
    t0 = time.perf_counter()
    concurrent = await asyncio.gather(*(leg.search(r) for r in reqs))
    t_conc = time.perf_counter() - t0
    t0 = time.perf_counter()
    sequential = [await leg.search(r) for r in reqs]
    t_seq = time.perf_counter() - t0
    await leg.aclose()
    bad = [r.reports for r in (*concurrent, *sequential) if r.status.value != "ok"]
    assert not bad, bad
    return t_conc * 1000, t_seq * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument(
        "--delay", type=float, default=0.1, help="each fan-out provider's answer delay (s)"
    )
    args = ap.parse_args()
    n = args.results
    print(
        f"leg overhead (build + parse + items + render), {n} results: "
        f"{overhead_per_result(n, args.rounds):.1f} µs per result (median of {args.rounds})"
    )
    with FakeWebServer() as server, tempfile.TemporaryDirectory() as home:
        for name, (method, path, payload) in PROVIDERS.items():
            server.route(method, f"/{name}{path}", Respond(json=payload(n)))
        ms = asyncio.run(end_to_end(server, n, min(args.rounds, 100), Path(home)))
        print(
            f"end to end over loopback (tavily-shaped, {n} results): "
            f"{ms:.2f} ms per search (median)"
        )
        for name, (method, path, payload) in PROVIDERS.items():
            server.route(method, f"/{name}{path}", Respond(json=payload(n), delay_s=args.delay))
        conc, seq = asyncio.run(fan_out(server, n, Path(home)))
        k = len(PROVIDERS)
        print(
            f"fan-out of {k} providers, each answering after {args.delay * 1000:.0f} ms: "
            f"concurrent {conc:.0f} ms, sequential {seq:.0f} ms, "
            f"ratio {seq / conc:.2f}x (ideal {k}x)"
        )


if __name__ == "__main__":
    main()
