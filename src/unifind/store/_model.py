"""What a search record holds, and how one is built from a result (pure; no I/O)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from unifind.types import Item, Leg, Overall, Principal, SearchResult, SearchResults, Source

RecordLeg = Literal["web", "kb", "db", "fused"]
JSONDict = dict[str, Any]


class Reference(BaseModel):
    """One reference as it was shown to the LLM, located by ``(request_id, index)``."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    index: int | None = Field(default=None, ge=1)
    """1-based, global within the request (``ref_007`` → 7). ``None`` until saved:
    ``save`` takes it from the citation id, else continues after the request's last one."""
    citation_id: str | None = None
    type: Leg
    title: str = ""
    url: str | None = None
    content: str = ""
    document_id: str | None = None
    collection: str | None = None
    chunk_id: str | None = None
    model: str | None = None
    record_id: str | None = None
    data: JSONDict | None = None
    metadata: JSONDict = Field(default_factory=dict)
    score: float = 0.0
    weight: float = 1.0
    source: Source = "auto"


class SearchRecord(BaseModel):
    """What was searched for one request, what came back and what the LLM was shown."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int | None = None
    """Assigned by the store on save."""
    request_id: str = Field(min_length=1)
    chat_id: str | None = None
    assistant_id: str | None = None
    leg: RecordLeg
    """The leg searched, or ``fused`` when the record spans several."""
    query: str = ""
    source: Source = "hook"
    config: JSONDict = Field(default_factory=dict)
    """The request options used, so the search can be replayed."""
    keywords: tuple[str, ...] = ()
    entities: tuple[JSONDict, ...] = ()
    relations: tuple[JSONDict, ...] = ()
    dsl: JSONDict | list[JSONDict] | None = None
    """The db leg's QueryDSL; a list when several db requests were made."""
    graph: JSONDict | None = None
    """Graph association from the kb leg: ``{"nodes": [...]}``."""
    references: tuple[Reference, ...] = ()
    xml: str = ""
    prompt: str = ""
    status: Overall = Overall.OK
    reports: tuple[JSONDict, ...] = ()
    """Every leg report, as JSON (``LegReport.model_dump(mode="json")``)."""
    duration_ms: float | None = None
    error: str | None = None
    tenant: str | None = None
    owner: str | None = None
    created_at: datetime | None = None
    """UTC; set by the store on save when missing."""
    deleted_at: datetime | None = None


@runtime_checkable
class ReferencesLike(Protocol):
    """What ``unifind.cite.References`` offers (L1 can't import L2, so it is duck-typed)."""

    @property
    def references(self) -> Sequence[Item]: ...
    @property
    def xml(self) -> str: ...
    @property
    def prompt(self) -> str: ...


RefsArg = ReferencesLike | Sequence[Item | Mapping[str, Any]] | None


def _reference(ref: Item | Mapping[str, Any]) -> Reference:
    data = ref.model_dump() if isinstance(ref, Item) else dict(ref)
    return Reference.model_validate(data)


def _unique(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _leg(results: Sequence[SearchResult]) -> RecordLeg:
    legs = {r.type for r in results}
    return next(iter(legs)) if len(legs) == 1 else "fused"


def _computed(results: Sequence[SearchResult]) -> JSONDict:
    """What the legs computed on the way (DESIGN §3), merged across results."""
    dsls = [r.dsl for r in results if r.dsl is not None]
    nodes = [n for r in results for n in (r.graph_nodes or ())]
    return {
        "keywords": _unique([k for r in results for k in (r.keywords or ())]),
        "entities": tuple(e for r in results for e in (r.entities or ())),
        "relations": tuple(e for r in results for e in (r.relations or ())),
        "dsl": dsls[0] if len(dsls) == 1 else (dsls or None),
        "graph": {"nodes": nodes} if nodes else None,
    }


def record_from_result(
    request_id: str,
    result: SearchResult | SearchResults,
    *,
    chat_id: str | None = None,
    assistant_id: str | None = None,
    refs: RefsArg = None,
    principal: Principal | None = None,
    source: Source = "hook",
    config: Mapping[str, Any] | None = None,
    duration_ms: float | None = None,
    error: str | None = None,
) -> SearchRecord:
    """Build the record of one request's search(es).

    ``refs`` is what the LLM was shown: a ``unifind.cite.References`` (its references,
    xml and prompt are kept) or plain items/dicts. Without it, the result's items are
    recorded as the references. ``error`` defaults to the degraded legs' error texts;
    tenant and owner come from ``principal`` only.
    """
    results = list(result.results) if isinstance(result, SearchResults) else [result]
    xml = prompt = ""
    if isinstance(refs, ReferencesLike):
        items: Sequence[Item | Mapping[str, Any]] = refs.references
        xml, prompt = refs.xml, refs.prompt
    else:
        items = refs if refs is not None else [it for r in results for it in r.items]
    reports = [rep for r in results for rep in r.reports]
    errors = [f"{rep.leg}/{rep.backend}: {rep.error}" for rep in reports if rep.error]
    return SearchRecord(
        request_id=request_id,
        chat_id=chat_id,
        assistant_id=assistant_id,
        leg=_leg(results),
        query="\n".join(_unique([r.query for r in results])),
        source=source,
        config=dict(config or {}),
        references=tuple(_reference(it) for it in items),
        xml=xml,
        prompt=prompt,
        status=result.status,
        reports=tuple(rep.model_dump(mode="json", exclude_none=True) for rep in reports),
        duration_ms=duration_ms if duration_ms is not None else result.took_ms,
        error=error if error is not None else ("; ".join(errors) or None),
        tenant=principal.tenant if principal else None,
        owner=principal.user if principal else None,
        **_computed(results),
    )
