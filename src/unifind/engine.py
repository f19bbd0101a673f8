"""Searcher: the engine (L4). Dispatches requests to legs; never raises for a source failure."""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Coroutine, Iterable
from typing import Any, Protocol, TypeVar

from unifind.config import Settings, load_settings
from unifind.errors import InputError
from unifind.kb.service import KnowledgeBase
from unifind.types import LegReport, Principal, Reason, SearchRequest, SearchResult, Status

T = TypeVar("T")


class LegRunner(Protocol):
    """What the engine needs from a leg."""

    async def search(self, req: SearchRequest) -> SearchResult: ...


#: Where each leg's runner lives; a leg whose module is absent is reported ``disabled``.
_LEG_MODULES = {"web": "unifind.web.leg:WebLeg", "db": "unifind.db.leg:DBLeg"}


class Searcher:
    """One entry point for web, KB and DB searches. Async core; ``*_sync`` for scripts."""

    def __init__(self, settings: Settings | None = None, *, kb: KnowledgeBase | None = None) -> None:
        self.settings = settings or load_settings()
        self._kb = kb
        self._legs: dict[str, Any] = {}

    @classmethod
    def from_config(cls, path: str | None = None, **overrides: Any) -> Searcher:
        """Build from a YAML file (or ``UNIFIND_CONFIG``, or zero-config defaults)."""
        return cls(load_settings(path, **overrides))

    @property
    def kb(self) -> KnowledgeBase:
        """The knowledge base on the configured store (opened on first use)."""
        if self._kb is None:
            self._kb = KnowledgeBase.open(self.settings)
        return self._kb

    def close(self) -> None:
        if self._kb is not None:
            self._kb.close()

    def _leg(self, leg: str) -> Any:
        if leg == "kb":
            return self.kb
        if leg not in self._legs:
            module, _, attr = _LEG_MODULES[leg].partition(":")
            try:
                cls = getattr(importlib.import_module(module), attr)
            except ModuleNotFoundError:
                self._legs[leg] = None
            else:
                self._legs[leg] = cls.from_settings(self.settings)
        return self._legs[leg]

    async def search(
        self, req: SearchRequest, *, principal: Principal | None = None
    ) -> SearchResult:
        """Run one request. Bad input raises InputError; a failing source is a report."""
        t0 = time.perf_counter()
        runner = self._leg(req.type)
        if runner is None:
            err = f"the {req.type} leg is not available in this build"
            rep = LegReport(leg=req.type, backend="*", status=Status.DISABLED,
                            reason=Reason.NOT_CONFIGURED, note=err)  # fmt: skip
            return SearchResult(type=req.type, query=req.query, reports=(rep,))
        try:
            if req.type == "db":
                result: SearchResult = await runner.search(req, principal=principal)
            else:
                result = await runner.search(req)
        except InputError:
            raise
        except Exception as exc:  # a leg bug must not kill the request (DESIGN §4)
            err = f"{req.type} leg failed: {type(exc).__name__}: {exc}"
            rep = LegReport(leg=req.type, backend="*", status=Status.DEGRADED,
                            reason=Reason.ERROR, error=err)  # fmt: skip
            ms = round((time.perf_counter() - t0) * 1000, 3)
            return SearchResult(type=req.type, query=req.query, reports=(rep,), took_ms=ms)
        return result

    async def all(
        self, reqs: Iterable[SearchRequest], *, principal: Principal | None = None
    ) -> list[SearchResult]:
        """Run requests concurrently and wait for all (like ``Promise.all``, minus the throw)."""
        return list(await asyncio.gather(*(self.search(r, principal=principal) for r in reqs)))

    def search_sync(self, req: SearchRequest, *, principal: Principal | None = None) -> SearchResult:
        """Blocking :meth:`search`."""
        return run_sync(self.search(req, principal=principal))

    def all_sync(
        self, reqs: Iterable[SearchRequest], *, principal: Principal | None = None
    ) -> list[SearchResult]:
        """Blocking :meth:`all`."""
        return run_sync(self.all(reqs, principal=principal))


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code; refuses inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()
    raise RuntimeError("called a *_sync method inside an event loop: await the async one instead")
