"""What an MCP tool call adds over calling ``Operations.search`` in process.

    python bench/mcp_overhead.py                 # 200 calls per surface (p50, p95)
    python bench/mcp_overhead.py --calls 500 --docs 500

One small collection (lexical + ``hash:64`` vectors, no model to load) in a temporary
home; the same queries, in turn, against: ``ops.search`` in this process (the baseline),
the MCP server in this process over the SDK's in-memory transport (the tool layer alone:
arguments, streamed search, progress, rendering), ``python -m unifind.mcp_server`` over
stdio, and the Streamable HTTP app under uvicorn in its own process on 127.0.0.1 (one
worker, bearer key; stateless, the factory's default, and stateful sessions; the client
speaking the 2026-07-28 protocol and the older handshake). Each surface is warmed up
first; figures are milliseconds per call, and the overhead is the surface's p50 minus the
baseline's (the issue's target: ≤ 5 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

QUERIES = [
    "refund policy for damaged goods",
    "shipping times to europe",
    "how to reset a password",
    "warranty claims process",
    "invoice and billing questions",
    "cancel a subscription",
    "data retention policy",
    "contact support by phone",
]
WORDS = [
    "refund", "shipping", "password", "warranty", "invoice", "billing", "subscription",
    "retention", "support", "policy", "customer", "order", "delivery", "account", "payment",
    "europe", "phone", "email", "claim", "return", "damaged", "goods", "process", "days",
    "team", "handbook", "security", "privacy", "export", "import",
]  # fmt: skip
KEY = "Bearer bench-key"
ARGS = {"collections": ["handbook"], "max_results": 10}


def seed(home: Path, docs: int) -> None:
    """``docs`` short documents in collection ``handbook`` (deterministic text)."""
    os.environ["UNIFIND_HOME"] = str(home)
    from unifind import KnowledgeBase

    with KnowledgeBase.open() as kb:
        kb.create("handbook", embedder="hash:64")
        for i in range(docs):
            words = [WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(60)]
            kb.ingest_text("handbook", " ".join(words), document_id=f"d{i}", title=f"Doc {i}")


async def timed(call: Callable[[str], Awaitable[Any]], calls: int, warmup: int) -> list[float]:
    """Milliseconds of each of ``calls`` calls, after ``warmup`` untimed ones."""
    for i in range(warmup):
        await call(QUERIES[i % len(QUERIES)])
    out = []
    for i in range(calls):
        t0 = time.perf_counter()
        await call(QUERIES[i % len(QUERIES)])
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _check(result: Any) -> None:
    if result.is_error or "[ref_001]" not in result.content[0].text:
        raise RuntimeError(f"unexpected tool result: {result.content[0].text[:300]}")


async def in_process(calls: int, warmup: int) -> dict[str, list[float]]:
    """The baseline and the tool layer over the SDK's in-memory transport."""
    from mcp import Client

    from unifind import Searcher
    from unifind.mcp_server import build_server
    from unifind.ops import Operations, SearchInput

    searcher = Searcher()
    ops = Operations(searcher)
    kb = {"kb": {"collections": ARGS["collections"]}}

    async def direct(q: str) -> Any:
        return await ops.search(SearchInput(query=q, sources=kb, limit=ARGS["max_results"]))

    out = {"ops.search (in process)": await timed(direct, calls, warmup)}
    async with Client(build_server(ops)) as client:

        async def tool(q: str) -> None:
            _check(await client.call_tool("search", {"query": q, **ARGS}))

        out["MCP in-memory (tool layer)"] = await timed(tool, calls, warmup)
    await searcher.aclose()
    return out


async def over_stdio(home: Path, calls: int, warmup: int) -> list[float]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {"UNIFIND_HOME": str(home), "OMP_NUM_THREADS": "1"}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "unifind.mcp_server"], env=env
    )
    async with Client(params) as client:

        async def tool(q: str) -> None:
            _check(await client.call_tool("search", {"query": q, **ARGS}))

        return await timed(tool, calls, warmup)


def serve_http(port: int, stateful: bool) -> None:
    """The HTTP server process: the factory's app under uvicorn, one worker."""
    import contextlib

    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Route

    from unifind import Searcher
    from unifind.mcp_server import streamable_http_app
    from unifind.ops import Operations
    from unifind.types import Principal

    searcher = Searcher()
    mcp = streamable_http_app(
        Operations(searcher), lambda h: Principal() if h == KEY else None, stateless=not stateful
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        async with mcp.lifespan():
            yield
        await searcher.aclose()

    app = Starlette(routes=[Route("/mcp", endpoint=mcp.app)], lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


async def over_http(home: Path, calls: int, warmup: int, mode: str, stateful: bool) -> list[float]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {**os.environ, "UNIFIND_HOME": str(home), "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, __file__, "--serve-http", str(port)]
    cmd += ["--stateful"] if stateful else []
    proc = subprocess.Popen(cmd, env=env)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the HTTP server did not start") from None
                time.sleep(0.1)
        async with (
            create_mcp_http_client(headers={"Authorization": KEY}) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):

            async def tool(q: str) -> None:
                _check(await client.call_tool("search", {"query": q, **ARGS}))

            return await timed(tool, calls, warmup)
    finally:
        proc.terminate()
        proc.wait(10)


def report(figures: dict[str, list[float]]) -> None:
    base = statistics.median(figures["ops.search (in process)"])
    print(f"{'surface':<36} {'p50 ms':>8} {'p95 ms':>8} {'overhead p50':>13}")
    for name, ms in figures.items():
        p50 = statistics.median(ms)
        p95 = statistics.quantiles(ms, n=20)[18]
        extra = "" if name.startswith("ops.search") else f"{p50 - base:+.2f} ms"
        print(f"{name:<36} {p50:>8.2f} {p95:>8.2f} {extra:>13}")


async def main(calls: int, warmup: int, docs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="unifind-mcp-bench-") as tmp:
        home = Path(tmp)
        seed(home, docs)
        print(f"{docs} documents, {calls} calls per surface after {warmup} warm-up", flush=True)
        figures = await in_process(calls, warmup)
        figures["MCP stdio (subprocess)"] = await over_stdio(home, calls, warmup)
        for stateful in (False, True):
            for mode in ("auto", "legacy"):
                era = "2026-07-28" if mode == "auto" else "handshake"
                label = f"MCP HTTP {'stateful' if stateful else 'stateless'}, {era}"
                figures[label] = await over_http(home, calls, warmup, mode, stateful)
        report(figures)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--serve-http", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--stateful", action="store_true", help=argparse.SUPPRESS)
    a = parser.parse_args()
    if a.serve_http:
        serve_http(a.serve_http, a.stateful)
    else:
        asyncio.run(main(a.calls, a.warmup, a.docs))
