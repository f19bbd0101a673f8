"""KB hybrid search in process, over HTTP and against a bare FastAPI floor, under load.

    python bench/surfaces.py                       # 1/8/32/128 clients, CACM corpus, bge-small
    python bench/surfaces.py --soak 600            # plus a 10-minute RSS soak at 32 clients

Every server runs in its own process on 127.0.0.1 (loopback only), one uvicorn worker, and
every loop is bounded in count and time. The floor (bench/_floor.py) calls the same search
with no unifind surface code: the ratio HTTP / floor is the price of auth, the operation
layer, fusion and citation ids. Figures go to BENCHMARKS.md ("Surfaces").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from _datasets import default_root, load_dataset, require_root

DATA = default_root()
COLLECTION = "cacm"
_CLI = [sys.executable, "-m", "unifind.cli"]
Call = Callable[[str], Awaitable[bool]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def prepare(home: Path, data: Path) -> list[str]:
    """Ingest the CACM corpus once into ``home`` (kept between runs); return its queries."""
    os.environ["UNIFIND_HOME"] = str(home)
    from unifind import KnowledgeBase

    ds = load_dataset(data, "cacm")
    with KnowledgeBase.open() as kb:
        if COLLECTION not in {c.name for c in kb.collections()}:
            kb.create(COLLECTION)
            with tempfile.TemporaryDirectory() as tmp:
                for d in ds.docs:
                    (Path(tmp) / f"{d.doc_id}.txt").write_text(d.full_text, encoding="utf-8")
                t0 = time.perf_counter()
                rep = kb.ingest(COLLECTION, [tmp])
                print(f"ingested {rep.added} docs in {time.perf_counter() - t0:.0f} s", flush=True)
    return list(ds.queries.values())


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextmanager
def server(cmd: list[str], port: int, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """Start a server process on loopback and wait until it answers /health."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.HTTPError:
                if proc.poll() is not None:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise RuntimeError(f"server exited: {err[-2000:]}") from None
                time.sleep(0.2)
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)


async def load(
    call: Call, queries: list[str], clients: int, n: int, max_s: float
) -> dict[str, Any]:
    """``n`` calls from ``clients`` concurrent workers (stops early after ``max_s``)."""
    lat: list[float] = []
    errors = 0
    nxt = 0
    stop = time.monotonic() + max_s

    async def worker() -> None:
        nonlocal nxt, errors
        while nxt < n and time.monotonic() < stop:
            q = queries[nxt % len(queries)]
            nxt += 1
            t0 = time.perf_counter()
            try:
                ok = await call(q)
            except (httpx.HTTPError, OSError, asyncio.IncompleteReadError):
                ok = False  # counted, never retried: an error is an error
            lat.append((time.perf_counter() - t0) * 1000)
            errors += not ok

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return {"lat": lat, "errors": errors, "wall": time.perf_counter() - t0}


def summary(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Latency percentiles and throughput over several rounds' calls."""
    lat = sorted(x for p in parts for x in p["lat"])
    q = statistics.quantiles(lat, n=100) if len(lat) > 1 else [lat[0]] * 99
    return {
        "n": len(lat),
        "errors": sum(p["errors"] for p in parts),
        "p50": statistics.median(lat),
        "p95": q[94],
        "p99": q[98],
        "rps": len(lat) / sum(p["wall"] for p in parts),
    }


async def level(
    calls: dict[str, Call], queries: list[str], clients: int, n: int, args: argparse.Namespace
) -> dict[str, dict[str, Any]]:
    """Every surface at one concurrency, in ``args.rounds`` rounds of rotating order, so a
    noisy neighbour on this shared machine hits every surface alike."""
    parts: dict[str, list[dict[str, Any]]] = {name: [] for name in calls}
    names = list(calls)
    for r in range(args.rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            part = await load(calls[name], queries, clients, n // args.rounds, args.max_s)
            parts[name].append(part)
    return {name: summary(p) for name, p in parts.items()}


def inproc_call() -> tuple[Call, Callable[[], Awaitable[None]]]:
    from unifind import Searcher
    from unifind.ops import Operations, SearchInput

    searcher = Searcher()
    ops = Operations(searcher)
    sources = {"kb": {"collections": [COLLECTION], "mode": "hybrid"}}

    async def call(q: str) -> bool:
        out = await ops.search(SearchInput.model_validate({"query": q, "sources": sources}))
        return out.status.value == "ok"

    return call, searcher.aclose


def http_call(client: httpx.AsyncClient, url: str, key: str | None) -> Call:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    sources = {"kb": {"collections": [COLLECTION], "mode": "hybrid"}}

    async def call(q: str) -> bool:
        r = await client.post(url, json={"query": q, "sources": sources}, headers=headers)
        return r.status_code == 200 and r.json().get("status") == "ok"

    return call


class RawClient:
    """Keep-alive HTTP/1.1 over asyncio streams, one connection per worker: a client that
    costs ~0.1 ms a call, so the figures are the server's, not httpx's (~1 ms a call here)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._free: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]] = []

    async def _conn(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        # Like httpx's keepalive_expiry: a connection idle for 3 s is dropped before uvicorn
        # (5 s) closes it, so a call never goes out on a socket the server just shut.
        while self._free:
            reader, writer, since = self._free.pop()
            if time.monotonic() - since < 3:
                return reader, writer
            writer.close()
        return await asyncio.open_connection("127.0.0.1", self.port)

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        reader, writer = await self._conn()
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{head}\r\n".encode()
            + body
        )
        status_line = await reader.readline()
        if not status_line:
            writer.close()
            raise ConnectionResetError("the server closed the connection")
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data = await reader.readexactly(length)
        self._free.append((reader, writer, time.monotonic()))
        return int(status_line.split()[1]), data

    async def aclose(self) -> None:
        for _, writer, _since in self._free:
            writer.close()


def raw_call(client: RawClient, path: str, key: str | None, floor: bool) -> Call:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    sources = {"kb": {"collections": [COLLECTION], "mode": "hybrid"}}

    async def call(q: str) -> bool:
        payload = (
            {"query": q, "collection": COLLECTION} if floor else {"query": q, "sources": sources}
        )
        status, data = await client.post(path, json.dumps(payload).encode(), headers)
        return status == 200 and json.loads(data).get("status") == "ok"

    return call


def floor_call(client: httpx.AsyncClient, url: str) -> Call:
    async def call(q: str) -> bool:
        r = await client.post(url, json={"query": q, "collection": COLLECTION})
        return r.status_code == 200 and r.json().get("status") == "ok"

    return call


def _row(surface: str, clients: int, r: dict[str, Any], extra: str = "") -> None:
    print(
        f"| {surface} | {clients} | {r['n']} | {r['errors']} | {r['p50']:.2f} | {r['p95']:.2f} | "
        f"{r['p99']:.2f} | {r['rps']:.1f} |{extra}",
        flush=True,
    )


async def run_levels(args: argparse.Namespace, queries: list[str], key: str) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    up, fp = _free_port(), _free_port()
    unifind = [*_CLI, "serve", "--host", "127.0.0.1", "--log-level", "warning", "--port"]
    floor = [sys.executable, "-m", "uvicorn", "--app-dir", str(Path(__file__).parent),
             "_floor:app", "--host", "127.0.0.1", "--log-level", "warning", "--port"]  # fmt: skip
    print("| surface | clients | calls | errors | p50 ms | p95 ms | p99 ms | calls/s |")
    print("|---|---|---|---|---|---|---|---|")
    inproc, close = inproc_call()
    await inproc(queries[0])  # load the model before timing
    # The client drops idle connections (3 s) before uvicorn does (5 s): otherwise a pooled
    # connection the server just closed is reused and the call fails for the client's sake.
    with server([*unifind, str(up)], up, env), server([*floor, str(fp)], fp, env):
        limits = httpx.Limits(
            max_connections=256, max_keepalive_connections=256, keepalive_expiry=3
        )
        async with httpx.AsyncClient(timeout=120, limits=limits) as client:
            if args.client == "raw":
                hcall = raw_call(RawClient(up), "/v1/search", key, floor=False)
                fcall = raw_call(RawClient(fp), "/floor", None, floor=True)
            else:
                hcall = http_call(client, f"http://127.0.0.1:{up}/v1/search", key)
                fcall = floor_call(client, f"http://127.0.0.1:{fp}/floor")
            for call in (hcall, fcall):  # warm: model load in each server
                await call(queries[0])
            calls = {"in process (ops.search)": inproc, "FastAPI floor": fcall,
                     "unifind HTTP": hcall}  # fmt: skip
            for clients in args.clients:
                n = max(args.calls, clients * 4 * args.rounds)
                res = await level(calls, queries, clients, n, args)
                r_in, r_f, r_h = res.values()
                _row("in process (ops.search)", clients, r_in)
                _row("FastAPI floor", clients, r_f)
                ratio = (
                    f" HTTP−in-process p50 {r_h['p50'] - r_in['p50']:+.2f} ms; "
                    f"HTTP/floor p50 {r_h['p50'] / r_f['p50']:.2f}x; "
                    f"throughput {r_h['rps'] / r_in['rps']:.2f} of in-process"
                )
                _row("unifind HTTP", clients, r_h, ratio)
    await close()


async def soak(args: argparse.Namespace, queries: list[str], key: str) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    port = _free_port()
    cmd = [*_CLI, "serve", "--host", "127.0.0.1", "--log-level", "warning", "--port", str(port)]
    with server(cmd, port, env) as proc:
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64, keepalive_expiry=3)
        async with httpx.AsyncClient(timeout=120, limits=limits) as client:
            call = http_call(client, f"http://127.0.0.1:{port}/v1/search", key)
            await load(call, queries, 32, 200, 60)  # warm up before the first sample
            samples = [_rss_mb(proc.pid)]
            end = time.monotonic() + args.soak
            total = errors = 0
            while time.monotonic() < end:
                r = await load(call, queries, 32, 10_000, min(30.0, end - time.monotonic()))
                total, errors = total + len(r["lat"]), errors + r["errors"]
                samples.append(_rss_mb(proc.pid))
    first, last = samples[0], samples[-1]
    print(
        f"soak {args.soak:.0f} s at 32 clients: {total} calls, {errors} errors; RSS MB "
        f"first {first:.0f}, last {last:.0f}, min {min(samples):.0f}, max {max(samples):.0f} "
        f"(last/first {last / first - 1:+.1%})"
    )


def _key(home: Path) -> str:
    out = subprocess.run(
        [*_CLI, "keys", "create", "--tenant", "bench", "--user", "bench", "--json"],
        env={**os.environ, "UNIFIND_HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    return str(json.loads(out.stdout)["key"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--home", type=Path, default=Path(tempfile.gettempdir()) / "unifind-bench-surf")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32, 128])
    ap.add_argument("--calls", type=int, default=200, help="calls per level (at least 4/client)")
    ap.add_argument("--max-s", type=float, default=30.0, help="time cap per round of a surface")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per level, surfaces rotating")
    ap.add_argument(
        "--client",
        choices=["raw", "httpx"],
        default="raw",
        help="raw: a minimal keep-alive client (measures the server); httpx: as users call",
    )
    ap.add_argument("--soak", type=float, default=0.0, help="seconds of RSS soak (0 = none)")
    args = ap.parse_args()
    require_root(args.data, ["cacm"])
    queries = prepare(args.home, args.data)
    key = _key(args.home)
    asyncio.run(run_levels(args, queries, key))
    if args.soak:
        asyncio.run(soak(args, queries, key))


if __name__ == "__main__":
    main()
