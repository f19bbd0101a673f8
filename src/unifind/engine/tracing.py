"""Progress of a search as trace events: one node per leg, then a localised summary.

The nodes also carry what the trace's observers export (:mod:`unifind.engine.otel`): the
request on each leg node, its result once finished, and the whole results on the root.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from unifind.trace import Trace
from unifind.types import Overall, SearchRequest, SearchResult, SearchResults, Status


async def traced(
    req: SearchRequest, run: Callable[[], Awaitable[SearchResult]], trace: Trace
) -> SearchResult:
    """Run one request as a child node of ``trace``, emitting ``leg`` events around it."""
    node = trace.child(req.type)
    node.attrs.update(leg=req.type, top_k=req.limit, source=req.source)
    trace.start(node)
    trace.emit("leg", "leg_running", data={"leg": req.type, "status": "running"}, leg=req.type)
    try:
        with trace.scope(node):
            res = await run()
    except BaseException as exc:
        node.attrs["error"] = exc
        trace.finish(node, ok=False, text=f"{type(exc).__name__}: {exc}")
        raise
    failed = [r for r in res.reports if r.status is Status.DEGRADED]
    ok = res.status is not Overall.UNAVAILABLE or not failed
    reasons = sorted({r.reason.value for r in failed if r.reason}) or ["none"]
    key = "leg_completed" if ok else "leg_failed"
    data = {"leg": req.type, "status": res.status.value, "hits": len(res.items), "result": res}
    ev = trace.emit("leg", key, data=data, leg=req.type, hits=len(res.items), reason=reasons)
    node.attrs["result"] = res
    trace.finish(node, ok=ok, text=ev.message)
    return res


def summarise(trace: Trace, results: SearchResults, n: int) -> None:
    """Emit the summary (found / partial / failed / none) and ``done``; ``n`` references."""
    # Counted per request (a "source" in the progress text), like the loading message.
    consulted = [
        res
        for res in results.results
        if any(r.status in (Status.OK, Status.DEGRADED) for r in res.reports)
    ]
    failed = sum(any(r.status is Status.DEGRADED for r in res.reports) for res in consulted)
    data: dict[str, Any] = {"status": results.status.value, "references": n}
    if results.status is Overall.UNAVAILABLE:
        trace.emit("failed", "failed", data=data, total=len(consulted))
    elif results.status is Overall.PARTIAL:
        trace.emit("partial", "partial", data=data, n=n, failed=failed, total=len(consulted))
    elif n:
        trace.emit("found", "found", data=data, n=n)
    else:
        trace.emit("none", "none", data=data)
    ok = results.status is not Overall.UNAVAILABLE
    trace.root.attrs.update(result=results, references=n)
    trace.finish(trace.root, ok=ok, text=results.status.value)
    trace.emit("done", "done", data={**data, "results": results})
