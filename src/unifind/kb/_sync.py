"""One event loop on one thread for a blocking facade, started on first use."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """Runs coroutines from sync code on one long-lived loop (stopped by ``close``).

    ``asyncio.run`` per call makes a fresh loop with a fresh worker pool each time; the
    store opens one SQLite connection per worker thread, so every call left one open
    (~500 calls exhausted 1,024 file descriptors, issue #9). One loop keeps one pool.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """``coro``'s result; refused inside a running event loop (await it there)."""
        refuse_inside_loop(coro)
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name=self._name, daemon=True
                )
                self._thread.start()
            loop = self._loop
        return asyncio.run_coroutine_threadsafe(coro, loop).result()

    def close(self, first: Callable[[], Coroutine[Any, Any, None]] | None = None) -> None:
        """Stop the loop and its worker threads (a later ``run`` starts a new one).

        ``first`` runs on the loop before it stops: async clients created on this loop
        (the legs' HTTP clients) must be closed on it.
        """
        with self._lock:
            loop, self._loop = self._loop, None
            thread, self._thread = self._thread, None
        if loop is None or thread is None:
            return
        if first is not None:
            asyncio.run_coroutine_threadsafe(first(), loop).result()
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
    raise RuntimeError("called a *_sync method inside an event loop: await it instead")
