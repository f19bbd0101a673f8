"""The blocking facade: one event loop thread per Searcher, never a second copy of a body."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

from unifind.engine.streaming import Streaming
from unifind.kb._sync import refuse_inside_loop
from unifind.types import SearchRequest, SearchResult, SearchResults

T = TypeVar("T")


class SyncFacade(Streaming):
    """``*_sync`` methods for scripts."""

    def search_sync(self, req: SearchRequest, **kw: Any) -> SearchResult:
        """Blocking :meth:`search`."""
        return self._run_sync(self.search(req, **kw))

    def all_sync(self, reqs: Iterable[SearchRequest], **kw: Any) -> SearchResults:
        """Blocking :meth:`all`."""
        return self._run_sync(self.all(reqs, **kw))

    def _run_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run on this Searcher's own loop thread, started once and stopped by close()."""
        return self._sync_loop.run(coro)

    def _stop_loop(self) -> None:
        # The legs' async clients and the worker threads belong to this loop: close them
        # on it, then stop it.
        self._sync_loop.close(first=self._aclose_legs)


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code; refuses inside a running event loop."""
    refuse_inside_loop(coro)
    return asyncio.run(coro)
