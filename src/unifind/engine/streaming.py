"""A search as a stream of progress events (``loading`` → per-leg → summary → ``done``),
and every search under OpenTelemetry spans when they are on (:mod:`unifind.engine.otel`)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Iterable
from typing import Any

from unifind.engine import otel
from unifind.engine._util import Mode
from unifind.engine.orchestrate import Orchestrating
from unifind.trace import Event, Trace
from unifind.types import SearchRequest, SearchResults


class Streaming(Orchestrating):
    """``stream``: progress events while ``all``/``any``/``race`` runs."""

    async def stream(
        self,
        reqs: Iterable[SearchRequest],
        *,
        mode: Mode = "all",
        locale: str = "en",
        **kw: Any,
    ) -> AsyncIterator[Event]:
        """Run ``all``/``any``/``race`` and yield progress events as they happen.

        The first event is ``loading`` (its ``data`` names the ``request_id`` when the
        caller gave one); the last is ``done``, whose ``data["results"]`` holds the
        SearchResults. Bad input raises from the iterator.
        """
        trace = Trace(locale)
        queue = trace.subscribe()
        task = asyncio.ensure_future(self._gather(mode, reqs, trace=trace, **kw))
        getter: asyncio.Future[Event] | None = None
        try:
            while True:
                if queue.empty() and task.done():
                    task.result()  # bad input raises here
                    return
                getter = asyncio.ensure_future(queue.get())
                await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():
                    getter.cancel()
                    continue
                ev = getter.result()
                if ev.kind == "loading" and kw.get("request_id"):
                    ev = dataclasses.replace(ev, data={**ev.data, "request_id": kw["request_id"]})
                yield ev
                if ev.kind == "done":
                    return
        finally:
            task.cancel()
            if getter is not None:  # a consumer that leaves mid-wait must not leak it
                getter.cancel()

    async def _gather(
        self, mode: Mode, reqs: Iterable[SearchRequest], *, trace: Trace | None = None, **kw: Any
    ) -> SearchResults:
        """``all``/``any``/``race``, its trace exported as spans when they are on."""
        spans = otel.observer(self.settings)
        if spans is None:
            return await super()._gather(mode, reqs, trace=trace, **kw)
        reqs = list(reqs)
        trace = trace or Trace()
        top_k = max((r.limit for r in reqs), default=None)
        trace.root.attrs.update(mode=mode, request_id=kw.get("request_id"), top_k=top_k)
        trace.observers.append(spans)
        try:
            return await super()._gather(mode, reqs, trace=trace, **kw)
        except BaseException as exc:
            trace.root.attrs["error"] = exc
            raise
        finally:
            spans.close(trace)
