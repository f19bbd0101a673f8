"""A fake leg with scripted latency, items and failures, for engine tests and benchmarks."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from unifind.types import Item, LegReport, Match, Reason, SearchRequest, SearchResult, Status


@dataclass
class FakeLeg:
    """Answers after ``latency_s`` with ``items`` (or fails, or raises) and records its fate."""

    leg: str = "kb"
    latency_s: float = 0.0
    items: Sequence[Item] = ()
    fail: Reason | None = None
    """Answer ``degraded`` with this reason instead of items."""
    raise_exc: BaseException | None = None
    calls: int = 0
    cancelled: bool = False
    finished: bool = False
    cleaned_up: bool = field(default=False)

    async def search(self, req: SearchRequest, **_: object) -> SearchResult:
        self.calls += 1
        try:
            await asyncio.sleep(self.latency_s)
            if self.raise_exc is not None:
                raise self.raise_exc
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        finally:
            self.cleaned_up = True
        self.finished = True
        if self.fail is not None:
            rep = LegReport(
                leg=req.type,
                backend=f"fake-{self.leg}",
                status=Status.DEGRADED,
                reason=self.fail,
                error=f"fake-{self.leg} failed: {self.fail.value}",
            )
            return SearchResult(type=req.type, query=req.query, reports=(rep,))
        rep = LegReport(
            leg=req.type,
            backend=f"fake-{self.leg}",
            status=Status.OK,
            hits=len(self.items),
            took_ms=self.latency_s * 1000,
        )
        return SearchResult(type=req.type, query=req.query, items=tuple(self.items), reports=(rep,))


def fake_items(leg: str, n: int, *, prefix: str = "x") -> list[Item]:
    """``n`` distinct items of a leg, with provenance."""
    out = []
    for i in range(1, n + 1):
        match = (Match(leg=leg, backend=f"fake-{leg}", rank=i, score=1.0 / i),)
        if leg == "web":
            out.append(
                Item(
                    type="web",
                    title=f"{prefix}{i}",
                    url=f"https://{prefix}{i}.example/",
                    content=f"web {prefix}{i}",
                    matched=match,
                )
            )
        elif leg == "db":
            out.append(
                Item(
                    type="db",
                    model="m",
                    record_id=f"{prefix}{i}",
                    title=f"{prefix}{i}",
                    content=f"row {prefix}{i}",
                    matched=match,
                )
            )
        else:
            out.append(
                Item(
                    type="kb",
                    collection="c",
                    chunk_id=f"{prefix}{i}",
                    title=f"{prefix}{i}",
                    content=f"chunk {prefix}{i}",
                    matched=match,
                )
            )
    return out
