"""The web console's cost (issue #22): bytes to download, time added to a search, paint.

    python bench/console.py                  # sizes, 300 searches per app, 20 painted
    python bench/console.py --searches 1000 --paints 40

1. **Transfer**: ``/`` and every file the page loads (HTML, script, style, labels) as the
   server sends them, headers included; and their gzip -6 size (the server sends them
   uncompressed; a proxy in front may compress). Target: ≤ 200 KB.
2. **Added cost**: the console is static files beside the API and calls the same
   ``/v1/search`` as any client, so the one way it could slow a search is the extra
   routes. The same searches, interleaved, against two ``unifind serve`` apps on
   127.0.0.1 (uvicorn, one worker each, no auth, the demo handbook with ``hash:64``
   vectors), one with the console and one built with ``create_app(console=False)``;
   the figure is the difference of their p50. Target: ≤ 1 ms.
3. **Paint**: Debian's Chromium (through Playwright) runs searches in the page against
   the console's server; per search the page records the time from the first ``items``
   event parsed to the frame after its list is rendered (``window.unifindMetrics``: a
   mark, then ``requestAnimationFrame`` + a task, the frame's paint having happened).
   Target: ≤ 150 ms. Skipped, and said so, without Chromium or Playwright.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn

os.environ.setdefault("OMP_NUM_THREADS", "1")

from unifind import Searcher, load_settings
from unifind.cli.demo import corpus_dir
from unifind.http_api import create_app

QUERIES = [
    "how do refunds work",
    "on-call escalation policy",
    "annual leave days",
    "expense claims",
    "password rules",
    "shipping to europe",
]
STATUS_LINE = "HTTP/1.1 200 OK\r\n\r\n"
ASSETS = ["/", "/console/console.js", "/console/console.css", "/console/labels.json"]
CHROMIUM = os.environ.get("UNIFIND_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage"]


class Server:
    """uvicorn on 127.0.0.1 (a free port) in a thread with its own event loop."""

    def __init__(self, app: Any) -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="none")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve()))

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    @property
    def url(self) -> str:
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"


def transfer(url: str) -> dict[str, int]:
    """Bytes of each asset as sent (status line and headers included), and gzipped."""
    out = {"raw": 0, "gzip": 0, "body": 0}
    with httpx.Client(base_url=url) as c:
        for path in ASSETS:
            r = c.get(path)
            r.raise_for_status()
            head = sum(len(k) + len(v) + 4 for k, v in r.headers.raw) + len(STATUS_LINE)
            packed = len(gzip.compress(r.content, 6))
            out["body"] += len(r.content)
            out["raw"] += head + len(r.content)
            out["gzip"] += head + packed
            print(f"  {path:24} {len(r.content):>7,} B  (gzip {packed:>6,} B)")
    return out


def added_cost(with_console: str, without: str, searches: int) -> tuple[float, float, float]:
    """p50 ms of the same searches against each server, interleaved (the order alternating),
    and the p50 of the paired differences (each search against both, back to back)."""
    times: dict[str, list[float]] = {with_console: [], without: []}
    clients = {u: httpx.Client(base_url=u, timeout=30) for u in times}
    try:
        for c in clients.values():  # warm: first-use imports, caches
            for q in QUERIES:
                c.post("/v1/search", json={"query": q}).raise_for_status()
        for i in range(searches):
            order = [with_console, without] if i % 2 == 0 else [without, with_console]
            body = {"query": QUERIES[i % len(QUERIES)]}
            for u in order:
                t0 = time.perf_counter()
                r = clients[u].post("/v1/search", json=body)
                times[u].append((time.perf_counter() - t0) * 1000)
                r.raise_for_status()
    finally:
        for c in clients.values():
            c.close()
    on, off = times[with_console], times[without]
    paired = statistics.median(a - b for a, b in zip(on, off, strict=True))
    return statistics.median(on), statistics.median(off), paired


def routing(app: Any, method: str, path: str, rounds: int = 20_000) -> tuple[int, float]:
    """Routes tried before ``method path`` matches, and µs per match (Starlette's loop)."""
    from starlette.routing import Match

    scope = {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}

    def match() -> int:
        for i, route in enumerate(app.router.routes):
            if route.matches(scope)[0] == Match.FULL:
                return i + 1
        raise RuntimeError(f"no route matches {method} {path}")

    tried = match()
    t0 = time.perf_counter()
    for _ in range(rounds):
        match()
    return tried, (time.perf_counter() - t0) / rounds * 1e6


def paint(url: str, paints: int) -> list[float] | str:
    """ms from the first ``items`` event to the painted frame, per search in the page."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return 'skipped: playwright is not installed (pip install -e ".[console-tests]")'
    if not Path(CHROMIUM).exists():
        return f"skipped: no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready=true]")
        for i in range(paints + 2):
            page.evaluate("() => { window.unifindMetrics = null; }")
            page.fill("#q", QUERIES[i % len(QUERIES)])
            page.press("#q", "Enter")
            page.wait_for_selector("#search-status[data-overall]")
            page.wait_for_function("() => window.unifindMetrics")
            ms = page.evaluate("() => window.unifindMetrics.firstItemsToPaintMs")
            if i >= 2:  # the first two warm the page's code paths
                out.append(float(ms))
        browser.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--searches", type=int, default=300, help="timed searches per app")
    ap.add_argument("--paints", type=int, default=20, help="searches painted in Chromium")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(home=Path(tmp), kb={"embedder": "hash:64"}, server={"auth": False})
        seed = Searcher(settings)
        seed.kb.create("demo", embedder="hash:64")
        seed.kb.ingest("demo", [corpus_dir()])
        seed.close()
        app_on = create_app(settings, mcp=False)
        app_off = create_app(settings, mcp=False, console=False)
        with Server(app_on) as on, Server(app_off) as off:
            print("transfer (page + assets):")
            size = transfer(on.url)
            print(
                f"  total {size['raw'] / 1000:.1f} kB as sent (bodies {size['body'] / 1000:.1f}"
                f" kB), {size['gzip'] / 1000:.1f} kB gzipped; target <= 200 kB"
            )
            p50_on, p50_off, paired = added_cost(on.url, off.url, args.searches)
            print(
                f"search p50 over HTTP ({args.searches} each, interleaved): with console "
                f"{p50_on:.2f} ms, without {p50_off:.2f} ms; added: {p50_on - p50_off:+.2f} ms"
                f" (difference of p50s), {paired:+.2f} ms (p50 of paired differences);"
                " target <= 1 ms"
            )
            for method, path in (("POST", "/v1/search"), ("POST", "/v1/ask")):
                n_on, us_on = routing(app_on, method, path)
                n_off, us_off = routing(app_off, method, path)
                print(
                    f"routing {method} {path}: {n_on} routes tried with the console, {n_off}"
                    f" without; {us_on:.2f} vs {us_off:.2f} µs per match"
                )
            painted = paint(on.url, args.paints)
            if isinstance(painted, str):
                print(f"paint: {painted}")
            else:
                print(
                    f"first items event -> painted ({len(painted)} searches in Chromium): "
                    f"p50 {statistics.median(painted):.1f} ms, max {max(painted):.1f} ms;"
                    " target <= 150 ms"
                )


if __name__ == "__main__":
    main()
