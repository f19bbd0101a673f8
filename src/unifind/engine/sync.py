"""The blocking facade: one event loop thread per Searcher, never a second copy of a body."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

from unifind.engine.streaming import Streaming
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
        """Run on this Searcher's own loop thread, started once and stopped by close().

        A fresh loop per call (asyncio.run) also made a fresh worker pool, whose threads
        each opened a store connection that outlived them: ~500 calls exhausted the files.
        """
        refuse_inside_loop(coro)
        with self._loop_lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._loop_thread = threading.Thread(
                    target=self._loop.run_forever, name="unifind-sync", daemon=True
                )
                self._loop_thread.start()
            loop = self._loop
        return asyncio.run_coroutine_threadsafe(coro, loop).result()

    def _stop_loop(self) -> None:
        with self._loop_lock:
            loop, self._loop = self._loop, None
            thread, self._loop_thread = self._loop_thread, None
        if loop is None or thread is None:
            return
        # The legs' async clients and the worker threads belong to this loop: close them
        # on it, then stop it.
        asyncio.run_coroutine_threadsafe(self._aclose_legs(), loop).result()
        asyncio.run_coroutine_threadsafe(loop.shutdown_default_executor(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


def refuse_inside_loop(coro: Coroutine[Any, Any, Any]) -> None:
    """Raise (closing ``coro``) when called from inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    coro.close()
    raise RuntimeError("called a *_sync method inside an event loop: await the async one instead")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code; refuses inside a running event loop."""
    refuse_inside_loop(coro)
    return asyncio.run(coro)
