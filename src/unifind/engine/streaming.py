"""A search as a stream of progress events (``loading`` → per-leg → summary → ``done``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import Any

from unifind.engine._util import Mode
from unifind.engine.orchestrate import Orchestrating
from unifind.trace import Event, Trace
from unifind.types import SearchRequest


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

        The last event is ``done``; its ``data["results"]`` holds the SearchResults.
        Bad input raises from the iterator.
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
                yield ev
                if ev.kind == "done":
                    return
        finally:
            task.cancel()
            if getter is not None:  # a consumer that leaves mid-wait must not leak it
                getter.cancel()
