"""Small pieces every engine module shares: request ids, timing, one-report results."""

from __future__ import annotations

import secrets
import time
from typing import Literal

from unifind.types import LegReport, Reason, SearchRequest, SearchResult, Status

Mode = Literal["all", "any", "race"]


def new_request_id() -> str:
    """An id for a request that came without one: ``req_`` + 12 hex digits."""
    return f"req_{secrets.token_hex(6)}"


def ms(t0: float) -> float:
    """Milliseconds since ``t0`` (a ``perf_counter`` reading), to the microsecond."""
    return round((time.perf_counter() - t0) * 1000, 3)


def only_report(
    req: SearchRequest, status: Status, reason: Reason, text: str, took_ms: float = 0.0
) -> SearchResult:
    """A result with no items and one ``*`` report saying why."""
    err = text if status is Status.DEGRADED else None
    note = None if err else text
    rep = LegReport(
        leg=req.type,
        backend="*",
        status=status,
        reason=reason,
        error=err,
        note=note,
        took_ms=took_ms,
    )
    return SearchResult(type=req.type, query=req.query, reports=(rep,), took_ms=took_ms)


def won(res: SearchResult | None) -> bool:
    """Whether ``res`` succeeded WITH items (what ``any`` waits for)."""
    return res is not None and bool(res.items) and any(r.status is Status.OK for r in res.reports)
