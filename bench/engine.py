"""Engine overhead with fake legs of known latency: all / any / race, fusion + references.

Targets (issue #5): ``all`` within max(leg) + 5 ms, ``race`` within min(leg) + 2 ms, ``any``
within the first successful leg + 2 ms; fusion + references for 3 legs x 50 items < 2 ms.

    python bench/engine.py [--rounds 50]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from unifind import Searcher, SearchRequest, load_settings
from unifind.testing.legs import FakeLeg, fake_items

LATENCY = {"web": 0.060, "kb": 0.020, "db": 0.040}


def _searcher(empty_kb: bool = False) -> Searcher:
    legs = {
        leg: FakeLeg(leg, lat, [] if (empty_kb and leg == "kb") else fake_items(leg, 50))
        for leg, lat in LATENCY.items()
    }
    return Searcher(load_settings(records=False), legs=legs)


def _reqs() -> list[SearchRequest]:
    return [SearchRequest(type=leg, query="refund policy", limit=50) for leg in LATENCY]  # type: ignore[arg-type]


async def _time(mode: str, rounds: int, empty_kb: bool = False) -> list[float]:
    out = []
    for _ in range(rounds):
        s = _searcher(empty_kb)
        t0 = time.perf_counter()
        await getattr(s, mode)(_reqs())
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _fusion(rounds: int) -> list[float]:
    s = _searcher()
    res = asyncio.run(s.all(_reqs()))
    out = []
    for i in range(rounds):
        t0 = time.perf_counter()
        refs = s.references(res, request_id=f"r{i}")
        out.append((time.perf_counter() - t0) * 1000)
        assert len(refs.references) + len(refs.omitted) == 150
    return out


def _row(name: str, ms: list[float], ideal: float, budget: float) -> str:
    p50 = statistics.median(ms)
    p95 = sorted(ms)[int(0.95 * (len(ms) - 1))]
    over = p50 - ideal
    verdict = "met" if over <= budget else "MISSED"
    return (
        f"| {name} | {ideal:.1f} | {p50:.2f} | {p95:.2f} | {over:+.2f} | ≤ {budget:g} | {verdict} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=50)
    args = ap.parse_args()
    lat_ms = {k: v * 1000 for k, v in LATENCY.items()}
    rows = [
        "| mode | ideal ms | p50 ms | p95 ms | p50 over ideal | target | |",
        "|---|---|---|---|---|---|---|",
        _row("all (3 legs)", asyncio.run(_time("all", args.rounds)), max(lat_ms.values()), 5),
        _row("race", asyncio.run(_time("race", args.rounds)), min(lat_ms.values()), 2),
        _row("any (kb empty)", asyncio.run(_time("any", args.rounds, True)), lat_ms["db"], 2),
        _row("fuse + references, 3 x 50 items", _fusion(args.rounds), 0.0, 2),
    ]
    print(
        f"fake legs: {', '.join(f'{k} {v:.0f} ms' for k, v in lat_ms.items())}; "
        f"{args.rounds} rounds"
    )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
