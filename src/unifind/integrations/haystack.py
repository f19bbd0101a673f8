"""Haystack: unifind as pipeline components (``pip install "unifind[haystack]"``).

- :class:`UnifindRetriever`: the knowledge base as a retriever, ``query`` → ``documents``,
  with Haystack's filter syntax (``==`` and ``in`` on ``meta.*`` fields, joined by AND).
- :class:`UnifindSearcher`: a fused search over several legs (``kb``, ``web``, ``db``),
  ``query`` → ``documents`` plus every backend's report (``statuses``), the overall
  ``status`` and the ``request_id`` the citation ids belong to.

Each document's ``meta`` carries its citation id, provenance (``matched``) and the
statuses. Both serialise (``to_dict`` / ``from_dict``, YAML through ``Pipeline.dumps`` /
``Pipeline.loads``): what is serialised is the configuration (sources, collections, ``top_k``,
filters, the unifind config file's path), never a live Searcher; a loaded component builds
its Searcher from that configuration in ``warm_up``. Haystack refuses to load classes from
modules it doesn't trust: pass ``allowed_modules=["unifind.integrations.haystack"]`` to
``Pipeline.loads``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

try:
    from haystack import Document, component, default_from_dict, default_to_dict
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from unifind.errors import MissingDependency

    raise MissingDependency("haystack-ai", "haystack") from exc

from unifind import InputError, Searcher
from unifind.integrations._common import (
    SUPPORTED_FILTERS,
    Retrieved,
    Search,
    item_id,
    metadata,
)

__all__ = ["UnifindRetriever", "UnifindSearcher", "as_filters", "to_documents"]

_HOW = (
    "supported: {'field': 'meta.<name>', 'operator': '==' or 'in', 'value': ...}, "
    f"several joined by {{'operator': 'AND', 'conditions': [...]}} ({SUPPORTED_FILTERS})"
)


def as_filters(filters: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Haystack filters (https://docs.haystack.deepset.ai/docs/metadata-filtering) as the
    KB's; any other operator, logical or comparison, is refused naming what is supported."""
    if not filters:
        return None
    out: dict[str, Any] = {}
    for field, value in _conditions(filters):
        if field in out:
            raise InputError(f"two conditions on {field!r}; give one condition per field")
        out[field] = value
    return out


def _conditions(f: Mapping[str, Any]) -> list[tuple[str, Any]]:
    op = f.get("operator")
    if "conditions" in f:
        if op != "AND" or not isinstance(f["conditions"], list):
            raise InputError(f"unsupported logical operator {op!r}; {_HOW}")
        return [c for part in f["conditions"] for c in _conditions(part)]
    field = f.get("field")
    if op not in ("==", "in") or set(f) != {"field", "operator", "value"}:
        raise InputError(f"unsupported filter {dict(f)!r}; {_HOW}")
    if not isinstance(field, str) or not field.startswith("meta.") or field == "meta.":
        raise InputError(f"filter field {field!r} is not document metadata ('meta.<name>'); {_HOW}")
    if op == "in" and not isinstance(f["value"], list):
        raise InputError(f"'in' on {field!r} takes a list, got {type(f['value']).__name__}")
    return [(field.removeprefix("meta."), f["value"])]


def to_documents(retrieved: Retrieved) -> list[Document]:
    """The fused hits as Haystack documents, best first."""
    return [
        Document(id=item_id(it), content=it.content, meta=metadata(it, retrieved), score=it.score)
        for it in retrieved.items
    ]


class _Base:
    """What both components share: their serialised configuration and their Searcher."""

    _legs: tuple[str, ...] = ("kb",)

    def __init__(
        self,
        *,
        sources: list[str] | None = None,
        top_k: int = 10,
        collections: list[str] | None = None,
        mode: str | None = None,
        filters: dict[str, Any] | None = None,
        models: list[str] | None = None,
        config: str | None = None,
        searcher: Searcher | None = None,
    ) -> None:
        self.sources = list(sources or self._legs)
        self.top_k, self.collections, self.mode = top_k, collections, mode
        self.filters, self.models, self.config = filters, models, config
        self._search = Search(
            searcher,
            sources=self.sources,
            limit=top_k,
            collections=collections,
            mode=mode,
            filters=as_filters(filters),
            models=models,
            config=config,
        )

    def warm_up(self) -> None:
        """Open the Searcher now (Haystack calls this before the first run)."""
        _ = self._search.searcher

    def close(self) -> None:
        """Close the Searcher this component built (a given one stays open)."""
        self._search.close()

    def to_dict(self) -> dict[str, Any]:
        """The configuration, not the live Searcher."""
        return default_to_dict(
            self,
            sources=self.sources,
            top_k=self.top_k,
            collections=self.collections,
            mode=self.mode,
            filters=self.filters,
            models=self.models,
            config=self.config,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        return default_from_dict(cls, data)

    def _kw(self, top_k: int | None, filters: dict[str, Any] | None) -> dict[str, Any]:
        return {"limit": top_k, "filters": as_filters(filters)}


@component
class UnifindRetriever(_Base):
    """The knowledge base as a Haystack retriever: ``query`` → ``documents``.

    ``filters`` given to ``run`` replace the init filters for that run (Haystack's default
    ``FilterPolicy.REPLACE``).
    """

    def __init__(
        self,
        *,
        top_k: int = 10,
        collections: list[str] | None = None,
        mode: str | None = None,
        filters: dict[str, Any] | None = None,
        config: str | None = None,
        searcher: Searcher | None = None,
    ) -> None:
        # @component rebuilds the class, so zero-argument super() can't find it.
        _Base.__init__(
            self,
            top_k=top_k,
            collections=collections,
            mode=mode,
            filters=filters,
            config=config,
            searcher=searcher,
        )

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            top_k=self.top_k,
            collections=self.collections,
            mode=self.mode,
            filters=self.filters,
            config=self.config,
        )

    @component.output_types(documents=list[Document])
    def run(
        self, query: str, filters: dict[str, Any] | None = None, top_k: int | None = None
    ) -> dict[str, Any]:
        return {"documents": to_documents(self._search.run(query, **self._kw(top_k, filters)))}

    @component.output_types(documents=list[Document])
    async def run_async(
        self, query: str, filters: dict[str, Any] | None = None, top_k: int | None = None
    ) -> dict[str, Any]:
        retrieved = await self._search.arun(query, **self._kw(top_k, filters))
        return {"documents": to_documents(retrieved)}


_FUSED_OUTPUTS: dict[str, Any] = {
    "documents": list[Document],
    "statuses": list[dict[str, Any]],
    "status": str,
    "request_id": str,
}


@component
class UnifindSearcher(_Base):
    """A fused search over ``sources`` (default ``kb`` and ``web``): ``query`` →
    ``documents`` (fused, cited), ``statuses`` (every backend's report), ``status``
    (``ok`` / ``partial`` / ``unavailable``) and ``request_id``."""

    _legs = ("kb", "web")

    def _outputs(self, retrieved: Retrieved) -> dict[str, Any]:
        return {
            "documents": to_documents(retrieved),
            "statuses": retrieved.statuses,
            "status": retrieved.status,
            "request_id": retrieved.request_id,
        }

    @component.output_types(**_FUSED_OUTPUTS)
    def run(
        self, query: str, filters: dict[str, Any] | None = None, top_k: int | None = None
    ) -> dict[str, Any]:
        return self._outputs(self._search.run(query, **self._kw(top_k, filters)))

    @component.output_types(**_FUSED_OUTPUTS)
    async def run_async(
        self, query: str, filters: dict[str, Any] | None = None, top_k: int | None = None
    ) -> dict[str, Any]:
        return self._outputs(await self._search.arun(query, **self._kw(top_k, filters)))
