"""Operations: every thing a surface can do, written once over the public API (DESIGN §12).

The CLI, the HTTP API and the MCP server are thin mappings of these methods: they parse
their transport's input into the models of :mod:`unifind.ops.models`, pass the caller's
principal, and render the output. No surface holds search logic of its own.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from functools import cached_property
from typing import TYPE_CHECKING, Any

from unifind.cite import citation_template
from unifind.errors import InputError, UnifindError
from unifind.ops.models import (
    FetchInput,
    FetchOutput,
    LegSummary,
    ModelOut,
    ProviderOut,
    Readiness,
    ReferencesOut,
    SearchInput,
    SearchOutput,
    SourcesOutput,
)
from unifind.ops.stream import OpEvent, engine_kw, search_events
from unifind.types import (
    Item,
    LegReport,
    Principal,
    SearchRequest,
    SearchResult,
    SearchResults,
    overall_status,
)

if TYPE_CHECKING:  # imported when used: a search needn't load the agent or the KB writer
    from unifind.ops._ask import AskInput, AskOutput
    from unifind.ops._kb import KBOps
    from unifind.ops._trace import TraceNode

#: Upload names are reduced to this alphabet before they touch the file system.
_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def new_request_id() -> str:
    """A fresh request id for a search whose caller gave none."""
    return f"req_{uuid.uuid4().hex[:12]}"


def build_requests(inp: SearchInput) -> list[SearchRequest]:
    """One engine request per leg named in ``inp.sources`` (the KB alone when none is)."""
    citation_template(inp.citation_format)  # a bad template is a 400 before any leg runs
    common: dict[str, Any] = {
        "query": inp.query,
        "limit": inp.limit,
        "source": inp.source,
        "timeout_s": inp.timeout_s,
    }
    src, reqs = inp.sources, []
    if src.kb is not None or (src.web is None and src.db is None):
        kb = src.kb.model_dump(exclude_none=True) if src.kb else {}
        if "collections" in kb:
            kb["collections"] = tuple(kb["collections"]) or None
        reqs.append(SearchRequest(type="kb", **kb, **common))
    if src.web is not None:
        web = src.web.model_dump(exclude_none=True)
        if "sites" in web:
            web["sites"] = tuple(web["sites"]) or None
        reqs.append(SearchRequest(type="web", **web, **common))
    if src.db is not None:
        db = src.db.model_dump(exclude_none=True)
        if "models" in db:
            db["models"] = tuple(db["models"]) or None
        reqs.append(SearchRequest(type="db", **db, **common))
    return reqs


class Operations:
    """The operation layer over one :class:`~unifind.Searcher` (and its KB, legs, records)."""

    def __init__(self, searcher: Any) -> None:
        self.searcher = searcher

    @cached_property
    def kb(self) -> KBOps:
        """Collections, documents and ingest (``ops.kb.collections(...)``)."""
        from unifind.ops._kb import KBOps

        return KBOps(self)

    @property
    def settings(self) -> Any:
        return self.searcher.settings

    def _principal(self, principal: Principal | None) -> Principal | None:
        return principal if principal is not None else getattr(self.settings, "principal", None)

    # -- search ---------------------------------------------------------------------

    async def search(self, inp: SearchInput, *, principal: Principal | None = None) -> SearchOutput:
        """A fused search: every leg named, run by ``inp.mode``, cited, every status reported."""
        t0 = time.perf_counter()
        reqs = build_requests(inp)
        rid = inp.request_id or new_request_id()
        who = self._principal(principal)
        results = await self.run(inp, reqs, rid, who)
        return await self.finish(inp, results, rid, t0, who)

    def search_stream(
        self, inp: SearchInput, *, principal: Principal | None = None, locale: str = "en"
    ) -> AsyncIterator[OpEvent]:
        """Typed events as the search runs: ``plan``, one ``leg`` per backend report,
        ``items`` (fused so far), ``references``, ``done``. Bad input raises here, before
        anything runs."""
        reqs = build_requests(inp)
        rid = inp.request_id or new_request_id()
        who = self._principal(principal)
        # Named collections are checked now, so an unknown one is an error the transport can
        # still answer as such (a 404), not an event after the stream has started.
        for name in (inp.sources.kb.collections or []) if inp.sources.kb else []:
            self.kb.collection(name, principal=who)
        return search_events(self, inp, reqs, rid, who, locale=locale)

    async def run(
        self, inp: SearchInput, reqs: Sequence[SearchRequest], rid: str, principal: Principal | None
    ) -> SearchResults:
        """The engine call behind :meth:`search` (records only caller-named requests)."""
        gather = getattr(self.searcher, inp.mode)
        results: SearchResults = await gather(reqs, **engine_kw(inp, rid, principal))
        return results

    def fused(
        self,
        results: Sequence[SearchResult],
        rid: str,
        limit: int,
        principal: Principal | None = None,
    ) -> list[Item]:
        """Fused items so far, with citation ids from the caller's request context."""
        ctx = self.searcher.context(rid, principal)
        items: list[Item] = ctx.assign(self.searcher.fuse(results, top_n=limit))
        return items

    async def finish(
        self,
        inp: SearchInput,
        results: SearchResults,
        rid: str,
        t0: float,
        principal: Principal | None = None,
    ) -> SearchOutput:
        """The output of a finished search: fused, optionally reranked, cited, referenced."""
        items = self.fused(results.results, rid, inp.limit, principal)
        reports: list[LegReport] = [r for res in results.results for r in res.reports]
        if inp.rerank and items:
            items, rep = await self.searcher.rerank(items, inp.query, uses=inp.rerank)
            reports.append(rep)
        refs = None
        if inp.references:
            built = self.searcher.references(
                list(results.results),
                request_id=rid,
                principal=principal,
                top_n=inp.limit,
                budget_chars=inp.max_chars,
                citation_format=inp.citation_format,
            )
            refs = ReferencesOut(xml=built.xml, prompt=built.prompt, omitted=list(built.omitted))
        notes = [n for res in results.results for n in res.notes]
        if not items and all(r.status.value != "degraded" for r in reports):
            notes.append("no backend found anything for this query")
        return SearchOutput(
            request_id=rid,
            status=overall_status(reports),
            mode=inp.mode,
            items=items,
            reports=reports,
            legs=[_summary(res) for res in results.results],
            notes=list(dict.fromkeys(notes)),
            took_ms=round((time.perf_counter() - t0) * 1000, 3),
            references=refs,
        )

    # -- ask ------------------------------------------------------------------------

    async def ask(self, inp: AskInput, *, principal: Principal | None = None) -> AskOutput:
        """Plan, search, answer with citations and check them (DESIGN §9)."""
        from unifind.ops._ask import ask_events, ask_kwargs

        out: AskOutput | None = None
        events = ask_events(self, inp, ask_kwargs(self, inp, principal))
        async with aclosing(events):
            async for ev in events:
                if ev.kind == "done":
                    out = ev.data["output"]
        assert out is not None
        return out

    def ask_stream(
        self, inp: AskInput, *, principal: Principal | None = None, locale: str | None = None
    ) -> AsyncIterator[OpEvent]:
        """Events ``plan``, ``leg`` (each backend report), ``references``, ``answer.delta``…,
        ``citations``, ``done`` (the AskOutput), each with a progress line in ``locale``
        (default ``telemetry.lang``). Bad input raises here, before anything runs."""
        from unifind.ops._ask import ask_events, ask_kwargs

        return ask_events(self, inp, ask_kwargs(self, inp, principal, locale))

    # -- web ------------------------------------------------------------------------

    async def fetch(self, inp: FetchInput) -> FetchOutput:
        """Readable text of a page through the SSRF-safe fetcher, paged by ``start``."""
        leg = self.searcher.leg("web")
        if leg is None:
            raise InputError("the web leg is not available in this build")
        res = await leg.fetch(inp.url, max_chars=inp.start + inp.max_chars, provider=inp.provider)
        text = res.text[inp.start :]
        end = inp.start + len(text)
        more = end < res.total_chars
        return FetchOutput(
            url=inp.url,
            status=overall_status([res.report]),
            report=res.report,
            attempts=list(res.attempts),
            final_url=res.final_url,
            title=res.title,
            text=text,
            start=inp.start,
            total_chars=res.total_chars,
            next_start=end if more else None,
        )

    def providers(self) -> list[ProviderOut]:
        """Every web search provider and fetcher, usable or not and why (no network call)."""
        leg = self.searcher.leg("web")
        if leg is None:
            return []
        out = []
        for resolver in (leg.searchers, leg.fetchers):
            choices, _ = resolver.candidates(resolver.pin())
            chosen = choices[0].name if choices else None
            for name in resolver.names():
                info = resolver.info(name)
                out.append(
                    ProviderOut(
                        kind=info.kind,
                        name=name,
                        usable=info.usable,
                        why=info.why,
                        chosen=name == chosen,
                    )
                )
        return out

    # -- databases ------------------------------------------------------------------

    async def models(self) -> list[ModelOut]:
        """The database models the DB leg may search (empty when no database is configured)."""
        leg = self.searcher.leg("db")
        if leg is None or leg.disabled:
            return []
        models = await leg.models()
        return [
            ModelOut(
                name=m.name,
                description=m.description,
                columns={c: (col.description or str(col.type)) for c, col in m.columns.items()},
                schema=m.schema_summary(relations=True),  # what a host LLM writes a DSL from
            )
            for m in models.values()
        ]

    # -- everything searchable --------------------------------------------------------

    async def sources(self, *, principal: Principal | None = None) -> SourcesOutput:
        """What the caller can search: collections, database models, web providers."""
        notes: list[str] = []
        try:
            models = await self.models()
        except (UnifindError, OSError, TimeoutError) as exc:
            models = []
            notes.append(f"database models unavailable: {exc}")
        return SourcesOutput(
            collections=self.kb.collections(principal=principal),
            models=models,
            providers=self.providers(),
            notes=notes,
        )

    # -- records --------------------------------------------------------------------

    def searches(self, request_id: str, *, principal: Principal | None = None) -> list[Any]:
        """The recorded searches of a request, oldest first."""
        return list(self.searcher.get_searches(request_id, principal=self._principal(principal)))

    def trace(self, request_id: str, *, principal: Principal | None = None) -> TraceNode | None:
        """The trace tree of a request from its records (``ops._trace``); None when the
        caller can see no record of it."""
        from unifind.ops._trace import request_trace

        return request_trace(request_id, self.searches(request_id, principal=principal))

    def reference(
        self, request_id: str, index: int, *, principal: Principal | None = None
    ) -> dict[str, Any] | None:
        """The reference with 1-based global ``index`` within a request."""
        ref: dict[str, Any] | None = self.searcher.get_reference(
            request_id, index, principal=self._principal(principal)
        )
        return ref

    def delete_searches(self, chat_id: str, *, principal: Principal | None = None) -> int:
        return int(self.searcher.delete_searches(chat_id, principal=self._principal(principal)))

    # -- health ---------------------------------------------------------------------

    async def ready(self) -> Readiness:
        """Each configured backend's reachability: the KB store and the stores collections
        were placed on, the database, records, Redis (``ops._ready`` says what fails it)."""
        from unifind.ops._ready import readiness  # the KB routing and Redis modules

        return await readiness(self.searcher)


def _summary(res: SearchResult) -> LegSummary:
    return LegSummary(
        type=res.type,
        status=res.status,
        hits=len(res.items),
        total=res.total,
        took_ms=res.took_ms,
        notes=list(res.notes),
        keywords=list(res.keywords) if res.keywords is not None else None,
        dsl=res.dsl,
        sql=list(res.sql) if res.sql is not None else None,
        understood=res.understood,
        confidence=res.confidence,
        entities=list(res.entities) if res.entities is not None else None,
        relations=list(res.relations) if res.relations is not None else None,
        graph_nodes=list(res.graph_nodes) if res.graph_nodes is not None else None,
    )
