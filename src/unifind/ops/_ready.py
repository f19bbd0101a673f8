"""``/ready``: each backend the server depends on, reachable or not, and what that means.

Two kinds of dependency, because a readiness probe that fails takes the worker out of
service, and every worker shares these backends:

* **required** (the configured KB store, the records store, the database): without it
  most requests fail, so readiness fails (``unavailable``, HTTP 503);
* **soft** (a store one collection was placed on, Redis): requests still answer — the
  other collections are searched and the placed one reports ``degraded``; without Redis
  each worker keeps its own citation numbers, web cache and rate-limit holds
  (``unifind._redis``) — so the check is ``degraded`` and readiness holds (HTTP 200).
  Failing it would take every worker out of service for a partial outage.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from unifind._redis import link_for, redact
from unifind.errors import SourceError
from unifind.kb.routing import RoutingStore
from unifind.kb.stores import describe
from unifind.ops.models import Check, Readiness
from unifind.types import Reason

Status = Literal["ok", "degraded", "unavailable"]
#: Seconds one check may take before it counts as unreachable.
TIMEOUT_S = 5.0
_REDIS_DOWN = (
    "each worker uses its own citation numbers, web cache and rate-limit holds until it "
    "answers (a request_id continued on another worker may number its citations anew)"
)


async def readiness(searcher: Any) -> Readiness:
    """Every configured backend's check; ``ready`` unless a required one is down."""
    checks = [await _run("kb", lambda: _sync(searcher.kb.collections, principal=None))]
    if checks[0].ok:  # the catalog answered: check the stores collections were placed on
        checks += await _placed(searcher.kb.store)
    db = searcher.leg("db")
    if db is not None and not db.disabled:
        checks.append(await _run("db", db.models))
    if searcher.records is not None:
        checks.append(await _run("records", lambda: _sync(searcher.get_searches, "-")))
    link = link_for(searcher.settings)
    if link is not None:
        ping = await _run("redis", lambda: _sync(link.call, lambda c: c.ping()), soft=True)
        if not ping.ok:
            ping = ping.model_copy(update={"detail": f"{ping.detail}; {_REDIS_DOWN}"})
        checks.append(ping.model_copy(update={"target": redact(link.url)}))
    ready = all(c.ok or c.status == "degraded" for c in checks)
    status: Status = "ok" if all(c.ok for c in checks) else "degraded" if ready else "unavailable"
    return Readiness(ready=ready, status=status, checks=checks)


async def _placed(store: Any) -> list[Check]:
    """One soft check per store that holds a placed collection."""
    if not isinstance(store, RoutingStore):
        return []
    specs = sorted({p.spec for p in store.placements().values()})
    out = []
    for spec in specs:

        def listed(spec: str = spec) -> Any:
            return store.store_at(spec).list_collections()

        check = await _run("kb.placed", lambda: _sync(listed), soft=True)
        out.append(check.model_copy(update={"target": describe(spec)}))
    return out


async def _sync(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    return await asyncio.to_thread(fn, *args, **kw)


async def _run(name: str, fn: Callable[[], Awaitable[Any]], *, soft: bool = False) -> Check:
    t0 = time.perf_counter()
    try:
        await asyncio.wait_for(fn(), TIMEOUT_S)
    except Exception as exc:  # readiness reports any failure as data
        if isinstance(exc, TimeoutError):
            reason, detail = Reason.TIMEOUT, f"no answer within {TIMEOUT_S:g} s"
        else:
            why = exc.reason if isinstance(exc, SourceError) else _reason(exc)
            reason, detail = why, f"{type(exc).__name__}: {exc}"
        return Check(
            name=name, ok=False, status="degraded" if soft else "unavailable",
            reason=reason.value, detail=detail, took_ms=_ms(t0),
        )  # fmt: skip
    return Check(name=name, ok=True, took_ms=_ms(t0))


def _reason(exc: BaseException) -> Reason:
    """``unreachable`` for a refused or failed connection anywhere in the chain."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (ConnectionError, OSError)) or "connect" in str(seen).lower():
            return Reason.UNREACHABLE
        seen = seen.__cause__ or seen.__context__
    return Reason.ERROR


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)
