"""What every framework adapter shares: one fused search, and an item as a framework document.

Each adapter (LangChain, LlamaIndex, Haystack) is a thin mapping of this: it turns its
framework's query and filters into :class:`SearchRequest`\\ s, runs them with
:meth:`Searcher.all`, fuses them with :meth:`Searcher.fuse` (the same two calls a direct
caller makes, so the ranking through an adapter is the direct call's, exactly), and turns
each fused :class:`Item` into the framework's document with :func:`metadata`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from unifind import InputError, Item, Searcher, SearchRequest, SearchResults

__all__ = ["SOURCES", "Retrieved", "Search", "metadata"]

#: The legs a retriever may search (DESIGN §1).
SOURCES = ("kb", "web", "db")
#: What a framework's filter may say, for the error that refuses anything else.
SUPPORTED_FILTERS = (
    "metadata equality ({'lang': 'en'}) and any-of ({'tag': ['a', 'b']}), "
    "all conditions joined by AND"
)


@dataclass(frozen=True)
class Retrieved:
    """One fused search's answer, as an adapter hands it on."""

    items: list[Item]
    """The fused list, best first, each with its citation id."""
    results: SearchResults
    """Every leg's result, with every backend's report."""

    @property
    def request_id(self) -> str | None:
        return self.results.request_id

    @cached_property
    def status(self) -> str:
        """The search's overall ``ok`` / ``partial`` / ``unavailable``."""
        return self.results.status.value

    @cached_property
    def statuses(self) -> list[dict[str, Any]]:
        """Every backend's report (``leg``, ``backend``, ``status``, ``reason``, ``error``...),
        built once per search: every document of it shares this list."""
        return [
            r.model_dump(mode="json", exclude_none=True)
            for res in self.results.results
            for r in res.reports
        ]


class Search:
    """One configured fused search over a :class:`Searcher` (built from the configuration,
    on first use, when none is given).

    ``sources`` are the legs (``kb``, ``web``, ``db``); ``collections``, ``mode`` and
    ``filters`` apply to the KB leg, ``models`` to the DB leg; ``limit`` is per leg and for
    the fused list.
    """

    def __init__(
        self,
        searcher: Searcher | None = None,
        *,
        sources: Iterable[str] = ("kb",),
        limit: int = 10,
        collections: Sequence[str] | None = None,
        mode: str | None = None,
        filters: Mapping[str, Any] | None = None,
        models: Sequence[str] | None = None,
        config: str | None = None,
    ) -> None:
        self.sources = check_sources(sources)
        if filters and "kb" not in self.sources:
            raise InputError("filters apply to the kb source; add 'kb' to sources")
        self.limit, self.collections, self.mode = limit, collections, mode
        self.filters, self.models, self.config = filters, models, config
        self._searcher, self._owned, self._lock = searcher, False, threading.Lock()

    @property
    def searcher(self) -> Searcher:
        """The given Searcher, or one built from ``config`` (else the discovered config)."""
        with self._lock:
            if self._searcher is None:
                self._searcher, self._owned = Searcher.from_config(self.config), True
            return self._searcher

    def requests(
        self, query: str, *, limit: int | None = None, filters: Mapping[str, Any] | None = None
    ) -> list[SearchRequest]:
        """One request per source; bad input (an empty query, a bad limit) raises InputError.

        ``limit`` and ``filters`` given here replace the configured ones for this call.
        """
        n = self.limit if limit is None else limit
        # A call's filters replace the configured ones (Haystack's default FilterPolicy.REPLACE).
        where = (filters if filters is not None else self.filters) or None
        if where and "kb" not in self.sources:
            raise InputError("filters apply to the kb source; add 'kb' to sources")
        options: dict[str, dict[str, Any]] = {
            "kb": {
                "collections": tuple(self.collections) if self.collections else None,
                "mode": self.mode,
                "filters": where,
            },
            "web": {},
            "db": {"models": tuple(self.models) if self.models else None},
        }
        try:
            return [
                SearchRequest(type=leg, query=query, limit=n, **options[leg])  # type: ignore[arg-type]
                for leg in self.sources
            ]
        except ValueError as exc:  # pydantic's ValidationError: bad input, said plainly
            raise InputError(_first_error(exc)) from exc

    async def arun(self, query: str, **kw: Any) -> Retrieved:
        """The fused search (async)."""
        reqs = self.requests(query, **kw)
        results = await self.searcher.all(reqs)
        return Retrieved(self.searcher.fuse(results, top_n=reqs[0].limit), results)

    def run(self, query: str, **kw: Any) -> Retrieved:
        """The fused search, from synchronous code (on the Searcher's own loop thread)."""
        reqs = self.requests(query, **kw)
        searcher = self.searcher
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            results = searcher.all_sync(reqs)
        else:
            # A sync call inside a running loop (a notebook, a sync tool in an async agent):
            # all_sync refuses there, so wait for it from a thread without a loop.
            with ThreadPoolExecutor(1, thread_name_prefix="unifind-retriever") as pool:
                results = pool.submit(searcher.all_sync, reqs).result()
        return Retrieved(self.searcher.fuse(results, top_n=reqs[0].limit), results)

    def close(self) -> None:
        """Close the Searcher if this object built it (a given one is the caller's)."""
        with self._lock:
            searcher, owned = self._searcher, self._owned
            self._searcher, self._owned = (None, False) if owned else (searcher, False)
        if owned and searcher is not None:
            searcher.close()


def check_sources(sources: Iterable[str]) -> tuple[str, ...]:
    """``sources`` as a tuple of legs; anything else is refused, naming the valid ones."""
    if isinstance(sources, str):
        sources = [s.strip() for s in sources.split(",") if s.strip()]
    out = tuple(dict.fromkeys(sources))
    unknown = [s for s in out if s not in SOURCES]
    if unknown or not out:
        got = ", ".join(map(repr, unknown)) if unknown else "none"
        raise InputError(f"unknown source {got}; valid sources: {', '.join(SOURCES)}")
    return out


def mongo_filters(filters: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Filters in the form vector stores take (LangChain's Chroma, PGVector...) as the KB's.

    ``{"lang": "en"}``, ``{"tag": ["a", "b"]}``, ``{"lang": {"$eq": "en"}}``,
    ``{"tag": {"$in": [...]}}`` and ``{"$and": [{...}, {...}]}`` are supported; any other
    operator (``$gt``, ``$or``, ``$ne``...) is refused, naming what is supported, never
    dropped (a dropped filter widens the search silently).
    """
    out: dict[str, Any] = {}
    for key, value in (filters or {}).items():
        if key == "$and" and isinstance(value, list):
            for part in value:
                if not isinstance(part, Mapping):
                    raise InputError(f"$and takes a list of filter objects; {SUPPORTED_FILTERS}")
                _merge(out, mongo_filters(part) or {})
            continue
        if not isinstance(key, str) or key.startswith("$"):
            raise InputError(f"unsupported filter operator {key!r}; supported: {SUPPORTED_FILTERS}")
        if isinstance(value, Mapping):
            if len(value) != 1 or next(iter(value)) not in ("$eq", "$in"):
                ops = ", ".join(map(str, value)) or "an empty object"
                raise InputError(
                    f"unsupported filter on {key!r}: {ops}; supported: $eq, $in and "
                    f"{SUPPORTED_FILTERS}"
                )
            op, value = next(iter(value.items()))
            if op == "$in" and not isinstance(value, list | tuple):
                raise InputError(f"filter {key!r}: $in takes a list, got {type(value).__name__}")
        _merge(out, {key: value})
    return out or None


def _merge(into: dict[str, Any], more: Mapping[str, Any]) -> None:
    for key, value in more.items():
        if key in into and into[key] != value:
            # Two conditions on one field ANDed: expressible only when they agree.
            raise InputError(
                f"two different conditions on {key!r} joined by AND; give one condition per field"
            )
        into[key] = value


_WHERE = ("url", "collection", "document_id", "chunk_id", "model", "record_id", "data")


def metadata(item: Item, retrieved: Retrieved) -> dict[str, Any]:
    """An item's metadata for a framework document: where it came from, its citation id,
    its provenance (``matched``) and every backend's status for the search that found it.

    The document's own metadata is kept under ``metadata``, never merged into the top
    level (a document could otherwise overwrite ``citation_id``).
    """
    out: dict[str, Any] = {
        "citation_id": item.citation_id,
        "request_id": retrieved.request_id,
        "leg": item.type,
        "title": item.title,
        "score": item.score,
        "source": item.source,
        "weight": item.weight,
        # Plain dicts, not model_dump: ~10x faster, and this runs for every document.
        "matched": [
            {"leg": m.leg, "backend": m.backend, "rank": m.rank, "score": m.score}
            for m in item.matched
        ],
        "statuses": retrieved.statuses,
        "status": retrieved.status,
    }
    for name in _WHERE:
        if (value := getattr(item, name)) is not None:
            out[name] = value
    if item.metadata:
        out["metadata"] = dict(item.metadata)
    return out


def item_id(item: Item) -> str:
    """A stable identifier of the hit: its chunk, its record or its URL."""
    return item.key


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        msg = str(first.get("msg", exc)).removeprefix("Value error, ")
        return f"{where}: {msg}" if where else msg
    return str(exc)
