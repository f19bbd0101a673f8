"""The vocabulary every leg speaks: requests, items, leg reports and results (DESIGN §1, §3).

Values are immutable pydantic models; they print as readable JSON with ``model_dump_json``.
This module does no I/O.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

Leg = Literal["web", "kb", "db"]
Source = Literal["user", "hook", "auto"]
KBMode = Literal["auto", "text", "semantic", "hybrid"]

LEGS: tuple[str, ...] = ("web", "kb", "db")
SOURCE_WEIGHTS: dict[str, float] = {"user": 1.0, "hook": 0.8, "auto": 0.6}

#: Longest query accepted as is; longer ones are cut here and the cut is reported.
MAX_QUERY_CHARS = 4096


class Status(StrEnum):
    """What happened to one backend of a request."""

    OK = "ok"
    """It ran and answered (possibly with zero hits)."""
    DEGRADED = "degraded"
    """It is configured but failed; ``reason`` and ``error`` say why."""
    DISABLED = "disabled"
    """It is not configured or provisioned here; not a fault."""
    SKIPPED = "skipped"
    """The request excluded it, or a race/any finished first (reason ``cancelled``)."""


class Reason(StrEnum):
    """Machine-readable cause of a non-ok status."""

    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    AUTH = "auth"
    NO_KEY = "no_key"
    BAD_RESPONSE = "bad_response"
    UNREACHABLE = "unreachable"
    CANCELLED = "cancelled"
    FORBIDDEN = "forbidden"
    NOT_CONFIGURED = "not_configured"
    NOT_REQUESTED = "not_requested"
    NOT_UNDERSTOOD = "not_understood"
    """A database question's words the generator could not use: the answer is partial."""
    ERROR = "error"


class Overall(StrEnum):
    """The status of a whole answer."""

    OK = "ok"
    """Every consulted backend answered."""
    PARTIAL = "partial"
    """Some failed; the items are the survivors'."""
    UNAVAILABLE = "unavailable"
    """Nothing answered; the items are empty and the reports say why."""


class _Value(BaseModel):
    # Built on first use, not at import (#18: start-up): a plan needs few of these.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Match(_Value):
    """One backend's vote for an item: where it ranked it and with what raw score."""

    leg: str
    backend: str
    rank: int
    """1-based rank in that backend's list."""
    score: float
    """The backend's own score (BM25, cosine, logit, ...); scales differ across backends."""


class Item(_Value):
    """One hit, from any leg."""

    type: Leg
    title: str = ""
    content: str = ""
    """Text to show an LLM: a snippet, a chunk, or a row rendered as one line."""
    score: float = 0.0
    """The fused score within its result (higher is better)."""
    source: Source = "auto"
    weight: float = 1.0
    """The source weight times any per-leg weight."""
    citation_id: str | None = None
    """Set once the item becomes a reference (``ref_001``...)."""
    url: str | None = None
    document_id: str | None = None
    collection: str | None = None
    chunk_id: str | None = None
    span: tuple[int, int] | None = None
    """Character offsets ``[start, end)`` of this chunk inside its document's text."""
    model: str | None = None
    record_id: str | None = None
    data: dict[str, Any] | None = None
    """The whole DB row, for db items."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    matched: tuple[Match, ...] = ()
    """Provenance: every backend that returned this item."""

    @property
    def key(self) -> str:
        """Identity used for dedupe: canonical URL, chunk id, or model + record id."""
        if self.type == "kb" and self.chunk_id:
            return f"kb:{self.collection}:{self.chunk_id}"
        if self.type == "db" and self.record_id is not None:
            return f"db:{self.model}:{self.record_id}"
        return f"{self.type}:{self.url or self.title}"


def evolve(item: Item, **update: Any) -> Item:
    """A copy of ``item`` with some fields replaced, unvalidated (the caller's values are
    already the right types). ~2x faster than ``model_copy``; fusion copies every hit."""
    new = object.__new__(Item)
    object.__setattr__(new, "__dict__", {**item.__dict__, **update})
    object.__setattr__(new, "__pydantic_fields_set__", item.__pydantic_fields_set__ | update.keys())
    object.__setattr__(new, "__pydantic_extra__", None)
    object.__setattr__(new, "__pydantic_private__", None)
    return new


class LegReport(_Value):
    """What one backend did for a request. Every considered backend gets one."""

    leg: Leg
    backend: str
    """Provider (``duckduckgo``), collection (``docs``) or model (``products``)."""
    stage: str | None = None
    """For multi-stage legs: ``lexical``, ``vector``, ``rerank``, ``graph``."""
    status: Status
    reason: Reason | None = None
    error: str | None = None
    """Human text for non-ok statuses, naming the backend."""
    hits: int = 0
    took_ms: float = 0.0
    note: str | None = None
    """Why this backend was chosen, a cache hit, a truncation: facts worth showing."""

    @model_validator(mode="after")
    def _non_ok_has_reason(self) -> LegReport:
        if self.status is not Status.OK and self.reason is None:
            raise ValueError(f"a {self.status.value} report needs a reason")
        if self.status is Status.DEGRADED and not self.error:
            raise ValueError("a degraded report needs an error text")
        return self


def overall_status(reports: tuple[LegReport, ...] | list[LegReport]) -> Overall:
    """Overall status: consulted = ok or degraded; disabled/skipped do not count as faults."""
    ok = any(r.status is Status.OK for r in reports)
    failed = any(r.status is Status.DEGRADED for r in reports)
    if ok and not failed:
        return Overall.OK
    if ok and failed:
        return Overall.PARTIAL
    return Overall.UNAVAILABLE


_LEG_ONLY_OPTIONS: dict[str, str] = {
    "collections": "kb",
    "mode": "kb",
    "filters": "kb",
    "group": "kb",
    "provider": "web",
    "sites": "web",
    "time_range": "web",
    "engine": "web",
    "exclude_sites": "web",
    "start_date": "web",
    "end_date": "web",
    "language": "web",
    "country": "web",
    "topic": "web",
    "safe_search": "web",
    "page": "web",
    "models": "db",
    "uses": "db",
    "strict": "db",
    "min_confidence": "db",
    "dsl": "db",
    "explain": "db",
}


def date_problem(start: date | None, end: date | None, time_range: str | None) -> str | None:
    """Why a web date filter can't be honoured (reversed, future, doubled), or None."""
    if start and end and start > end:
        return f"start_date {start} is after end_date {end}: swap them"
    if start and start > date.today():
        return f"start_date {start} is in the future: nothing is published yet"
    if time_range and (start or end):
        return "give either time_range or start_date/end_date, not both"
    return None


class Principal(_Value):
    """Who is asking, from the authenticated caller, never from a request field (DESIGN §10)."""

    tenant: str | None = None
    user: str | None = None
    roles: tuple[str, ...] = ()


class SearchRequest(_Value):
    """One search on one leg. Options that don't apply to ``type`` are refused."""

    type: Leg
    query: str
    limit: int = Field(default=10, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    source: Source = "hook"
    weight: float | None = Field(default=None, ge=0)
    """Per-request weight; defaults to the source weight."""
    timeout_s: float | None = Field(default=None, gt=0)
    # kb
    collections: tuple[str, ...] | None = None
    mode: KBMode | None = None
    threshold: float | None = None
    """Drop hits scoring below this on the KB's 0-1 scale (1 = best candidate on every arm)."""
    group: Literal["chunk", "document"] | None = None
    """KB: ``document`` returns each document once (its best chunk); ``limit`` counts documents."""
    filters: dict[str, Any] | None = None
    """Document metadata filters: ``{"lang": "en"}`` or ``{"tag": ["a", "b"]}`` (any of)."""
    rerank: bool | str | None = None
    # web
    provider: str | None = None
    sites: tuple[str, ...] | None = None
    time_range: Literal["day", "week", "month", "year"] | None = None
    engine: str | None = None
    exclude_sites: tuple[str, ...] | None = None
    """Leave out these domains (wildcards like ``*.example.com`` allowed)."""
    start_date: date | None = None
    """Only results published on or after this day."""
    end_date: date | None = None
    language: str | None = Field(default=None, pattern=r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$")
    """ISO 639-1 code: ``en``, ``de``, ``zh``."""
    country: str | None = Field(default=None, pattern=r"^[A-Za-z]{2}$")
    """ISO 3166-1 alpha-2 code: ``us``, ``de``."""
    topic: Literal["general", "news"] | None = None
    safe_search: Literal["off", "moderate", "strict"] | None = None
    page: int | None = Field(default=None, ge=1, le=1000)
    """1-based page of ``limit`` results (instead of ``offset``)."""
    # db
    models: tuple[str, ...] | None = None
    uses: str | None = None
    strict: bool | None = None
    min_confidence: float | None = Field(default=None, ge=0, le=1)
    """db: refuse a generated answer that used less than this share of the question's
    content words (default ``db.min_confidence``); ``strict`` refuses any word unused."""
    dsl: dict[str, Any] | None = None
    """Preset QueryDSL parts (``select``, ``wheres``, ``orders``) combined with the generated;
    with ``uses="dsl"`` the whole query, run as written (an agent wrote it; docs/db.md)."""
    explain: bool | None = None
    """Return the SQL each model's query compiled to (placeholders, never the values) and its
    bound parameters, in the result's ``sql``."""

    @field_validator("query")
    @classmethod
    def _query_not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the query is empty: say what to search for")
        return v

    @model_validator(mode="after")
    def _options_fit_leg(self) -> SearchRequest:
        for name, leg in _LEG_ONLY_OPTIONS.items():
            if getattr(self, name) is not None and leg != self.type:
                raise ValueError(f"option {name!r} applies to {leg} requests, not {self.type}")
        return self

    @model_validator(mode="after")
    def _web_options_agree(self) -> SearchRequest:
        problem = date_problem(self.start_date, self.end_date, self.time_range)
        if problem:
            raise ValueError(problem)
        if self.page is not None and self.offset:
            raise ValueError("give either page or offset, not both")
        return self

    @property
    def effective_weight(self) -> float:
        return self.weight if self.weight is not None else SOURCE_WEIGHTS[self.source]


class SearchResult(_Value):
    """The answer to one request: items, one report per considered backend, overall status."""

    type: Leg
    query: str
    items: tuple[Item, ...] = ()
    reports: tuple[LegReport, ...] = ()
    took_ms: float = 0.0
    total: int | None = None
    """Hits before ``limit``/``offset`` when the backend knows it."""
    notes: tuple[str, ...] = ()
    """Request-level facts: a truncated query, an ignored option."""
    keywords: tuple[str, ...] | None = None
    dsl: dict[str, Any] | None = None
    sql: tuple[dict[str, Any], ...] | None = None
    """db, when the request asked to ``explain``: per model ``{model, sql, params}``, the SQL
    text with placeholders and the values bound to them."""
    understood: dict[str, str] | None = None
    """db: each content word of the question → what the query used it for (``value of
    city``, ``column age``, ``not used: …``); a word not used makes the status partial."""
    confidence: float | None = None
    """db: the share of the question's content words the query used (1.0: every one)."""
    entities: tuple[dict[str, Any], ...] | None = None
    relations: tuple[dict[str, Any], ...] | None = None
    graph_nodes: tuple[dict[str, Any], ...] | None = None
    request_id: str | None = None
    """The request this answer belongs to: its items' citation ids are unique within it
    (set by ``Searcher``; generated as ``req_…`` when the caller gave none)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> Overall:
        """``ok`` / ``partial`` / ``unavailable``, derived from the reports."""
        return overall_status(self.reports)

    @property
    def ok(self) -> bool:
        return self.status is Overall.OK

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the overall status included)."""
        return self.model_dump(mode="json", exclude_none=True)


class SearchResults(_Value):
    """The answers to several requests run together (``all`` / ``any`` / ``race``)."""

    request_id: str | None = None
    mode: Literal["search", "all", "any", "race"] = "all"
    results: tuple[SearchResult, ...] = ()
    """One per request, in request order; cancelled ones carry ``skipped/cancelled``."""
    took_ms: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> Overall:
        """Overall status across every request's reports."""
        return overall_status([r for res in self.results for r in res.reports])

    @property
    def items(self) -> tuple[Item, ...]:
        """Every result's items, in request order (unfused: see ``Searcher.fuse``)."""
        return tuple(it for res in self.results for it in res.items)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (statuses included)."""
        return self.model_dump(mode="json", exclude_none=True)
