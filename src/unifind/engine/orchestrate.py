"""Running requests on legs: one, or several as ``all`` / ``any`` / ``race`` (DESIGN §4).

A source failure never raises out of here: it becomes a report. Bad input (an invalid
request, an unknown collection or model) raises InputError.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Any

from unifind.engine._util import Mode, ms, new_request_id, only_report, won
from unifind.engine.records import Recording
from unifind.engine.tracing import summarise, traced
from unifind.errors import InputError
from unifind.trace import Trace
from unifind.types import (
    Principal,
    Reason,
    SearchRequest,
    SearchResult,
    SearchResults,
    Status,
    evolve,
)


class Orchestrating(Recording):
    """``search``, ``all``, ``any`` and ``race``."""

    async def search(
        self,
        req: SearchRequest,
        *,
        principal: Principal | None = None,
        request_id: str | None = None,
    ) -> SearchResult:
        """Run one request under its leg's deadline; every item gets its citation id.

        With ``request_id`` the ids continue that request's numbering (as in :meth:`all`);
        without one a new id is generated and returned in ``SearchResult.request_id``.
        """
        res = await self._search(req, principal)
        return self._cite([res], request_id, principal)[0]

    async def _search(self, req: SearchRequest, principal: Principal | None) -> SearchResult:
        t0 = time.perf_counter()
        runner = self._leg(req.type)
        if runner is None:
            text = f"the {req.type} leg is not available in this build"
            return only_report(req, Status.DISABLED, Reason.NOT_CONFIGURED, text)
        # The kb and db legs scope what they search by who asks (DESIGN §10).
        who = self._who(principal)
        call = runner.search(req, principal=who) if req.type in ("kb", "db") else runner.search(req)
        timeout = self._timeout(req)
        try:
            result: SearchResult = await asyncio.wait_for(call, timeout)
        except InputError:
            raise
        except TimeoutError:
            text = f"{req.type} leg gave no answer within {timeout:g} s"
            return only_report(req, Status.DEGRADED, Reason.TIMEOUT, text, ms(t0))
        except Exception as exc:  # a leg bug must not kill the request (DESIGN §4)
            text = f"{req.type} leg failed: {type(exc).__name__}: {exc}"
            return only_report(req, Status.DEGRADED, Reason.ERROR, text, ms(t0))
        # The request, not the leg, decides who asked and how much that counts.
        stamp = {"source": req.source, "weight": req.effective_weight}
        items = tuple(evolve(it, **stamp) for it in result.items)
        return result.model_copy(update={"items": items})

    async def all(self, reqs: Iterable[SearchRequest], **kw: Any) -> SearchResults:
        """Run concurrently and wait for every request (or the overall ``timeout_s``)."""
        return await self._gather("all", reqs, **kw)

    async def any(self, reqs: Iterable[SearchRequest], **kw: Any) -> SearchResults:
        """Return when the first request succeeds WITH items; the rest are cancelled."""
        return await self._gather("any", reqs, **kw)

    async def race(self, reqs: Iterable[SearchRequest], **kw: Any) -> SearchResults:
        """Return when the first request finishes at all; the rest are cancelled."""
        return await self._gather("race", reqs, **kw)

    async def _gather(
        self,
        mode: Mode,
        reqs: Iterable[SearchRequest],
        *,
        request_id: str | None = None,
        chat_id: str | None = None,
        principal: Principal | None = None,
        timeout_s: float | None = None,
        trace: Trace | None = None,
        record: bool | None = None,
    ) -> SearchResults:
        # ``record`` defaults to "the caller named the request"; a surface that makes an id
        # up for its client (to announce it before the legs run) passes ``record=False``.
        t0 = time.perf_counter()
        reqs = list(reqs)
        if trace is not None:
            trace.start(trace.root)
            trace.emit("loading", "loading", n=len(reqs))
        out = await self._wait(mode, reqs, principal, trace, timeout_s)
        cited = self._cite(out, request_id, principal)
        results = SearchResults(
            request_id=cited[0].request_id if cited else request_id or new_request_id(),
            mode=mode,
            took_ms=ms(t0),
            results=cited,
        )
        if request_id is not None and record is not False:
            await self._save(results, request_id, chat_id, principal, reqs)
        if trace is not None:
            summarise(trace, results, len(self.fuse(results)))
        return results

    async def _wait(
        self,
        mode: Mode,
        reqs: list[SearchRequest],
        principal: Principal | None,
        trace: Trace | None,
        timeout_s: float | None,
    ) -> list[SearchResult]:
        """Every request's result, in order; unfinished ones become reports."""
        tasks = {
            asyncio.ensure_future(self._traced(r, principal, trace)): i for i, r in enumerate(reqs)
        }
        out: list[SearchResult | None] = [None] * len(reqs)
        pending = set(tasks)
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        try:
            while pending:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                done, pending = await asyncio.wait(
                    pending, timeout=left, return_when=asyncio.FIRST_COMPLETED
                )
                if not done:
                    break  # the overall deadline passed
                for task in done:
                    out[tasks[task]] = task.result()  # re-raises InputError: bad input
                if mode == "race" or (mode == "any" and any(won(out[tasks[t]]) for t in done)):
                    break
        finally:
            for task in pending:
                task.cancel()  # losers are cancelled, not awaited (DESIGN §4)
        finished_early = mode != "all" and any(r is not None for r in out)
        return [
            res if res is not None else _unfinished(reqs[i], mode, finished_early, timeout_s)
            for i, res in enumerate(out)
        ]

    async def _traced(
        self, req: SearchRequest, principal: Principal | None, trace: Trace | None
    ) -> SearchResult:
        if trace is None:
            return await self._search(req, principal)
        return await traced(req, lambda: self._search(req, principal), trace)


def _unfinished(
    req: SearchRequest, mode: Mode, finished_early: bool, timeout_s: float | None
) -> SearchResult:
    if finished_early:
        text = f"{mode}: another request finished first"
        return only_report(req, Status.SKIPPED, Reason.CANCELLED, text)
    text = f"no answer within the overall deadline of {timeout_s:g} s"
    return only_report(req, Status.DEGRADED, Reason.TIMEOUT, text)
