"""The agent pipeline's overhead before the legs start (issue #10: <= 5 ms p50, builtin).

    python bench/ask_overhead.py               # every message of the intent sets x 2
    python bench/ask_overhead.py --rounds 5

A temporary home with the demo handbook (lexical collection) and the demo shop database
(``unifind db demo``), so the builtin intent reads a real vocabulary: the DB models'
words, their rows' names and the KB's collection and document names. Stages: builtin
intent, builtin keywords, no hooks, no attached parts. The legs are replaced at the
engine's one seam (``Searcher._search``) by an instant fake that stamps when the first
request starts;
the overhead of one message is that stamp minus the instant ``ask_stream`` was called.
Messages that need no search (chit-chat) start no leg and are counted apart. The first
ask (jieba's dictionary, the DB's reflection) is reported as the cold one, not in p50.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from ask_intent import SETS, rows  # noqa: E402

from unifind import load_settings  # noqa: E402
from unifind.agent.vocab import vocabulary  # noqa: E402
from unifind.db.demo import DEMO_FILE, create_demo  # noqa: E402
from unifind.engine import Searcher  # noqa: E402
from unifind.engine._util import only_report  # noqa: E402
from unifind.types import Reason, SearchRequest, SearchResult, Status  # noqa: E402

TARGET_MS = 5.0


def build(home: Path) -> Searcher:
    create_demo(home / DEMO_FILE)
    s = Searcher(load_settings(home=home, kb={"embedder": "hash"}))
    s.kb.create("handbook", embedder=None)
    s.kb.ingest("handbook", [ROOT / "src/unifind/demo/corpus"])
    return s


class Stamp:
    """The engine's per-request seam, answering at once and noting the first call."""

    def __init__(self) -> None:
        self.first: float | None = None

    async def __call__(self, req: SearchRequest, principal: Any) -> SearchResult:
        if self.first is None:
            self.first = time.perf_counter()
        return only_report(req, Status.OK, Reason.NOT_REQUESTED, "bench: instant fake leg")


async def one(s: Searcher, stamp: Stamp, message: str) -> float | None:
    stamp.first = None
    t0 = time.perf_counter()
    async for _ in s.ask_stream(message, answer_uses="none"):
        pass
    return None if stamp.first is None else (stamp.first - t0) * 1000


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]


async def run(rounds: int) -> None:
    messages = [m for name in SETS for m, _ in rows(name)]
    with tempfile.TemporaryDirectory(prefix="unifind-ask-bench-") as tmp:
        s = build(Path(tmp))
        stamp = Stamp()
        s._search = stamp  # type: ignore[method-assign]
        try:
            t0 = time.perf_counter()
            cold = await one(s, stamp, "100美元以下的耳机有哪些")
            cold_total = (time.perf_counter() - t0) * 1000
            v0 = time.perf_counter()
            await vocabulary(s)
            vocab_ms = (time.perf_counter() - v0) * 1000
            by_lang: dict[str, list[float]] = {"en": [], "zh": []}
            no_search = 0
            for _ in range(rounds):
                for m in messages:
                    took = await one(s, stamp, m)
                    if took is None:
                        no_search += 1
                        continue
                    by_lang["zh" if re.search("[\u4e00-\u9fff]", m) else "en"].append(took)
        finally:
            await s.aclose()
            s.close()
    every = by_lang["en"] + by_lang["zh"]
    print(f"messages: {len(messages)} x {rounds} rounds; {len(every)} started a leg, "
          f"{no_search} needed no search (not timed)")  # fmt: skip
    print(f"cold first ask: {cold:.1f} ms to the first leg ({cold_total:.0f} ms in all)")
    print(f"vocabulary read (warm, per ask): {vocab_ms:.2f} ms")
    print("| messages | n | p50 ms | p95 ms | max ms |")
    print("|---|---|---|---|---|")
    for name, xs in (("English", by_lang["en"]), ("Chinese", by_lang["zh"]), ("all", every)):
        print(f"| {name} | {len(xs)} | {statistics.median(xs):.2f} | {pct(xs, 95):.2f} | "
              f"{max(xs):.2f} |")  # fmt: skip
    p50 = statistics.median(every)
    print(f"target p50 <= {TARGET_MS:g} ms: {'met' if p50 <= TARGET_MS else 'MISSED'} "
          f"({p50:.2f} ms)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=2, help="passes over the messages")
    asyncio.run(run(ap.parse_args().rounds))


if __name__ == "__main__":
    main()
