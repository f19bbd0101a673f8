"""Fusion across legs, rerank and citation ids: unique within a request, never restarting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unifind._redis import citation_ids_for
from unifind.cite import CitationCheck, CitationContext, References, build_references
from unifind.cite import check_citations as _check
from unifind.cite.ids import IdStore
from unifind.engine._base import SearcherBase
from unifind.engine._util import new_request_id
from unifind.errors import ConfigError
from unifind.rank.merge import fuse_results
from unifind.rerankers import rerank as rerank_items
from unifind.types import Item, LegReport, Principal, SearchResult, SearchResults


class Citing(SearcherBase):
    """Fuse, rerank, cite and render references."""

    def fuse(
        self, results: SearchResults | Sequence[SearchResult], *, top_n: int | None = None
    ) -> list[Item]:
        """One ranked, deduplicated list across legs (weighted RRF), provenance merged.

        With items from one request only there is nothing to fuse: its own order and its
        own scores (the KB's documented 0-1 scale) are kept, not replaced by RRF's ~0.016.
        """
        seq = results.results if isinstance(results, SearchResults) else results
        answered = [r for r in seq if r.items]
        if len(answered) == 1:
            return list(answered[0].items[:top_n] if top_n is not None else answered[0].items)
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

    def context(self, request_id: str, principal: Principal | None = None) -> CitationContext:
        """The citation context of a request of the caller's tenant: ids continue across
        every call for it, in every process (Redis when ``redis_url`` is set, else the
        records database); another tenant's request of the same id is another context."""
        tenant = getattr(self._who(principal), "tenant", None)
        ctx = self._contexts.get((tenant, request_id))
        if ctx is None:
            ctx = CitationContext(request_id, store=self._id_store(tenant))
            self._contexts[(tenant, request_id)] = ctx
            while len(self._contexts) > 1024:  # bounded: the store keeps the numbering
                self._contexts.popitem(last=False)
        return ctx

    def _id_store(self, tenant: str | None) -> IdStore | None:
        shared = citation_ids_for(self.settings, tenant)
        if shared is not None:
            return shared
        if self._records is None and self.settings.records:
            # The default local records file: numbered through sqlite3, without opening
            # the SQLAlchemy store (half a second of every CLI search, issue #18).
            from unifind.store._citation_ids_sqlite import SqliteCitationIds, sqlite_file

            try:
                path = sqlite_file(self.settings)
            except ConfigError:  # no usable home: numbered here, as an unusable records URL
                return None
            if path is not None:
                return SqliteCitationIds(path, tenant)
        records = self.records
        return records.citation_ids(tenant) if records is not None else None

    def references(
        self,
        results: SearchResults | Sequence[SearchResult],
        *,
        request_id: str | None = None,
        top_n: int | None = None,
        principal: Principal | None = None,
        **options: Any,
    ) -> References:
        """Fuse, cite (ids unique within the caller's request) and render ``<references>`` +
        prompt.

        Items cited by the search for this same request keep their ids.
        """
        own = results.request_id if isinstance(results, SearchResults) else None
        rid = request_id or own
        fused = self.fuse(results, top_n=top_n)
        if rid is not None and rid == own and all(it.citation_id for it in fused):
            return build_references(fused, **options)
        ctx = self.context(rid, principal) if rid else CitationContext("adhoc")
        return build_references(ctx.assign(fused), **options)

    def _cite(
        self,
        results: Sequence[SearchResult],
        request_id: str | None,
        principal: Principal | None = None,
    ) -> tuple[SearchResult, ...]:
        """Give every item its citation id, unique within the request, in fused order.

        A caller's ``request_id`` continues its stored context (ids never restart across
        calls); without one, a new id and a context of its own that nothing keeps.
        """
        if request_id:
            ctx = self.context(request_id, principal)
        else:
            ctx = CitationContext(new_request_id())
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
