"""Searcher: the engine (L4). Runs requests on legs — one, all, any, race — fuses and cites.

A source failure never raises out of here: it becomes a report. Bad input (an invalid
request, an unknown collection or model) raises InputError.
"""

from __future__ import annotations

import asyncio
import importlib
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Coroutine, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from unifind._redis import citation_ids_for
from unifind.cite import CitationCheck, CitationContext, References, build_references
from unifind.cite import check_citations as _check
from unifind.config import Settings, load_settings
from unifind.errors import InputError
from unifind.rank.merge import fuse_results
from unifind.rerankers import rerank as rerank_items
from unifind.trace import Event, Trace
from unifind.types import (
    Item,
    LegReport,
    Overall,
    Principal,
    Reason,
    SearchRequest,
    SearchResult,
    SearchResults,
    Status,
    evolve,
)

if TYPE_CHECKING:  # imported where used: SQLAlchemy and the KB stack cost ~0.2 s at start-up
    from unifind.kb.service import KnowledgeBase
    from unifind.store import RecordStore, SearchRecord

T = TypeVar("T")
Mode = Literal["all", "any", "race"]


class LegRunner(Protocol):
    """What the engine needs from a leg (the kb and db legs also take ``principal=``)."""

    async def search(self, req: SearchRequest) -> SearchResult: ...


#: Where each leg's runner lives; a leg whose module is absent is reported ``disabled``.
_LEG_MODULES = {"web": "unifind.web.leg:WebLeg", "db": "unifind.db.leg:DBLeg"}
#: Per-leg deadline when neither the request nor the config sets one (seconds).
DEFAULT_TIMEOUTS = {"web": 15.0, "kb": 30.0, "db": 15.0}


def new_request_id() -> str:
    """An id for a request that came without one: ``req_`` + 12 hex digits."""
    return f"req_{secrets.token_hex(6)}"


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def _only_report(
    req: SearchRequest, status: Status, reason: Reason, text: str, took_ms: float = 0.0
) -> SearchResult:
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


class Searcher:
    """One entry point for web, KB and DB searches. Async core; ``*_sync`` for scripts."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        kb: KnowledgeBase | None = None,
        legs: Mapping[str, LegRunner] | None = None,
        records: RecordStore | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        self._kb = kb
        self._records = records
        self._legs: dict[str, Any] = dict(legs or {})
        self._contexts: OrderedDict[str, CitationContext] = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None  # the sync facade's loop
        self._loop_thread: threading.Thread | None = None
        self._loop_lock = threading.Lock()

    @classmethod
    def from_config(cls, path: str | None = None, **overrides: Any) -> Searcher:
        """Build from a YAML file (or ``UNIFIND_CONFIG``, or zero-config defaults)."""
        return cls(load_settings(path, **overrides))

    @property
    def kb(self) -> KnowledgeBase:
        """The knowledge base on the configured store (opened on first use)."""
        if self._kb is None:
            from unifind.kb.service import KnowledgeBase

            self._kb = KnowledgeBase.open(self.settings)
        return self._kb

    @property
    def records(self) -> RecordStore | None:
        """Where search records go (None when ``settings.records`` is off)."""
        if self._records is None and self.settings.records:
            from unifind.store import RecordStore

            self._records = RecordStore.from_settings(self.settings)
        return self._records

    def close(self) -> None:
        """Release the store, the records database, the legs' connections and the sync
        facade's event loop thread."""
        self._stop_loop()
        if self._kb is not None:
            self._kb.close()
        if self._records is not None:
            self._records.close()
        for leg in self._legs.values():
            closer = getattr(leg, "close", None)
            if callable(closer):
                closer()

    async def aclose(self) -> None:
        """:meth:`close`, plus the legs' async clients (the web leg's HTTP pool)."""
        await self._aclose_legs()
        self.close()

    def leg(self, name: str) -> Any:
        """The runner of leg ``name`` (``web``, ``kb``, ``db``), built on first use; None when
        this build lacks it."""
        return self._leg(name)

    def _leg(self, leg: str) -> Any:
        if leg in self._legs:
            return self._legs[leg]
        if leg == "kb":
            return self.kb
        module, _, attr = _LEG_MODULES[leg].partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            self._legs[leg] = None
        else:
            self._legs[leg] = cls.from_settings(self.settings)
        return self._legs[leg]

    def _who(self, principal: Principal | None) -> Principal | None:
        """The caller's principal, else the configured local one (``settings.principal``)."""
        return principal if principal is not None else self.settings.principal

    def _timeout(self, req: SearchRequest) -> float:
        configured = self.settings.timeouts
        return req.timeout_s or float(configured.get(req.type, DEFAULT_TIMEOUTS[req.type]))

    # -- one request ------------------------------------------------------------------

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
        return self._cite([res], request_id)[0]

    async def _search(self, req: SearchRequest, principal: Principal | None) -> SearchResult:
        t0 = time.perf_counter()
        runner = self._leg(req.type)
        if runner is None:
            text = f"the {req.type} leg is not available in this build"
            return _only_report(req, Status.DISABLED, Reason.NOT_CONFIGURED, text)
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
            return _only_report(req, Status.DEGRADED, Reason.TIMEOUT, text, _ms(t0))
        except Exception as exc:  # a leg bug must not kill the request (DESIGN §4)
            text = f"{req.type} leg failed: {type(exc).__name__}: {exc}"
            return _only_report(req, Status.DEGRADED, Reason.ERROR, text, _ms(t0))
        # The request, not the leg, decides who asked and how much that counts.
        stamp = {"source": req.source, "weight": req.effective_weight}
        items = tuple(evolve(it, **stamp) for it in result.items)
        return result.model_copy(update={"items": items})

    # -- several requests -------------------------------------------------------------

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
                if mode == "race" or (mode == "any" and any(_won(out[tasks[t]]) for t in done)):
                    break
        finally:
            for task in pending:
                task.cancel()  # losers are cancelled, not awaited (DESIGN §4)
        finished_early = mode != "all" and any(r is not None for r in out)
        for i, res in enumerate(out):
            if res is None:
                out[i] = self._unfinished(reqs[i], mode, finished_early, timeout_s)
        cited = self._cite([r for r in out if r is not None], request_id)
        results = SearchResults(
            request_id=cited[0].request_id if cited else request_id or new_request_id(),
            mode=mode,
            took_ms=_ms(t0),
            results=cited,
        )
        if request_id is not None and record is not False:
            await self._save(results, request_id, chat_id, principal, reqs)
        if trace is not None:
            self._summarise(trace, results)
        return results

    async def _save(
        self,
        results: SearchResults,
        request_id: str,
        chat_id: str | None,
        principal: Principal | None,
        reqs: Sequence[SearchRequest],
    ) -> None:
        """Record the search; a failed save is logged, never fails the search (DESIGN §10)."""
        store = self.records
        if store is None:
            return
        from unifind.store import record_from_result

        refs = self.references(results, request_id=request_id)
        config = {"requests": [r.model_dump(mode="json", exclude_none=True) for r in reqs]}
        record = record_from_result(
            request_id,
            results,
            chat_id=chat_id,
            refs=refs,
            principal=self._who(principal),
            config=config,
            source=reqs[0].source if reqs else "hook",
        )
        await store.atry_save(record)

    def get_searches(
        self, request_id: str, *, principal: Principal | None = None
    ) -> list[SearchRecord]:
        """The records of a request, oldest first (empty when records are off)."""
        store = self.records
        return store.get_searches(request_id, principal=self._who(principal)) if store else []

    def get_reference(
        self, request_id: str, index: int, *, principal: Principal | None = None
    ) -> dict[str, Any] | None:
        """The reference with 1-based global ``index`` within a request, as recorded."""
        store = self.records
        who = self._who(principal)
        return store.get_reference(request_id, index, principal=who) if store else None

    def delete_searches(self, chat_id: str, *, principal: Principal | None = None) -> int:
        """Soft-delete every record of a chat; returns how many."""
        store = self.records
        return store.delete_searches(chat_id, principal=self._who(principal)) if store else 0

    async def _traced(
        self, req: SearchRequest, principal: Principal | None, trace: Trace | None
    ) -> SearchResult:
        if trace is None:
            return await self._search(req, principal)
        node = trace.child(req.type)
        trace.start(node)
        trace.emit("leg", "leg_running", data={"leg": req.type, "status": "running"}, leg=req.type)
        try:
            res = await self._search(req, principal)
        except BaseException as exc:
            trace.finish(node, ok=False, text=f"{type(exc).__name__}: {exc}")
            raise
        failed = [r for r in res.reports if r.status is Status.DEGRADED]
        ok = res.status is not Overall.UNAVAILABLE or not failed
        reason = ", ".join(sorted({r.reason.value for r in failed if r.reason})) or "none"
        key = "leg_completed" if ok else "leg_failed"
        data = {"leg": req.type, "status": res.status.value, "hits": len(res.items), "result": res}
        ev = trace.emit("leg", key, data=data, leg=req.type, hits=len(res.items), reason=reason)
        trace.finish(node, ok=ok, text=ev.message)
        return res

    def _summarise(self, trace: Trace, results: SearchResults) -> None:
        n = len(self.fuse(results))
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
        trace.finish(trace.root, ok=ok, text=results.status.value)
        trace.emit("done", "done", data={**data, "results": results})

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

    @staticmethod
    def _unfinished(
        req: SearchRequest, mode: Mode, finished_early: bool, timeout_s: float | None
    ) -> SearchResult:
        if finished_early:
            text = f"{mode}: another request finished first"
            return _only_report(req, Status.SKIPPED, Reason.CANCELLED, text)
        text = f"no answer within the overall deadline of {timeout_s:g} s"
        return _only_report(req, Status.DEGRADED, Reason.TIMEOUT, text)

    # -- fusion and citations ---------------------------------------------------------

    def fuse(
        self, results: SearchResults | Sequence[SearchResult], *, top_n: int | None = None
    ) -> list[Item]:
        """One ranked, deduplicated list across legs (weighted RRF), provenance merged."""
        seq = results.results if isinstance(results, SearchResults) else results
        weights = self.settings.leg_weights or None
        return fuse_results(seq, leg_weights=weights, top_n=top_n)

    async def rerank(
        self, items: Sequence[Item], query: str, *, uses: str = "builtin", top_n: int | None = None
    ) -> tuple[list[Item], LegReport]:
        """Rerank a fused list by a ``uses`` string: ``builtin`` (score × weight),
        ``cross-encoder``, ``agent:<name>`` or ``mcp:<server>.<tool>``.

        Never drops or invents items; a failing mode keeps the order and says so in the
        report. An unknown ``uses`` raises InputError.
        """
        return await rerank_items(items, query, uses=uses, settings=self.settings, top_n=top_n)

    def context(self, request_id: str) -> CitationContext:
        """The citation context of a request: ids continue across every call for it."""
        ctx = self._contexts.get(request_id)
        if ctx is None:
            # Redis when settings.redis_url is set, so every worker continues one numbering.
            store = citation_ids_for(self.settings)
            ctx = self._contexts[request_id] = CitationContext(request_id, store=store)
            while len(self._contexts) > 1024:  # bounded: old turns are in the records
                self._contexts.popitem(last=False)
        return ctx

    def references(
        self,
        results: SearchResults | Sequence[SearchResult],
        *,
        request_id: str | None = None,
        top_n: int | None = None,
        **options: Any,
    ) -> References:
        """Fuse, cite (ids unique within the request) and render ``<references>`` + prompt.

        Items cited by the search for this same request keep their ids.
        """
        own = results.request_id if isinstance(results, SearchResults) else None
        rid = request_id or own
        fused = self.fuse(results, top_n=top_n)
        if rid is not None and rid == own and all(it.citation_id for it in fused):
            return build_references(fused, **options)
        ctx = self.context(rid) if rid else CitationContext("adhoc")
        return build_references(ctx.assign(fused), **options)

    def _cite(
        self, results: Sequence[SearchResult], request_id: str | None
    ) -> tuple[SearchResult, ...]:
        """Give every item its citation id, unique within the request, in fused order.

        A caller's ``request_id`` continues its stored context (ids never restart across
        calls); without one, a new id and a context of its own that nothing keeps.
        """
        ctx = self.context(request_id) if request_id else CitationContext(new_request_id())
        ctx.assign(self.fuse(results))  # ref_001 is the best fused item
        return tuple(
            res.model_copy(
                update={"items": tuple(ctx.assign(res.items)), "request_id": ctx.request_id}
            )
            for res in results
        )

    @staticmethod
    def check_citations(text: str, refs: References) -> CitationCheck:
        """Which citations in an LLM answer exist, were cut by the budget, or are unknown."""
        return _check(text, refs)

    # -- sync facade ------------------------------------------------------------------

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
        _refuse_inside_loop(coro)
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

    async def _aclose_legs(self) -> None:
        for leg in self._legs.values():
            closer = getattr(leg, "aclose", None)
            if callable(closer):
                await closer()


def _won(res: SearchResult | None) -> bool:
    return res is not None and bool(res.items) and any(r.status is Status.OK for r in res.reports)


def _refuse_inside_loop(coro: Coroutine[Any, Any, Any]) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    coro.close()
    raise RuntimeError("called a *_sync method inside an event loop: await the async one instead")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code; refuses inside a running event loop."""
    _refuse_inside_loop(coro)
    return asyncio.run(coro)
