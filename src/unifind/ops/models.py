"""Input and output types of the operations every surface exposes (DESIGN §12).

Inputs are lenient where an agent would stumble (a string where a list is expected is one
element; numbers and booleans may come as strings) and strict where a typo would silently
change the answer (unknown fields are refused, naming the valid ones).
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from unifind._fielddocs import describe_fields
from unifind.types import Item, KBMode, LegReport, Overall, Source, date_problem

SearchMode = Literal["all", "any", "race"]
#: A request id or chat id: what a client may use to name its conversation turn.
ID_PATTERN = r"^[A-Za-z0-9_.:\-]{1,128}$"
#: Default size budget of the ``<references>`` XML (characters).
DEFAULT_MAX_CHARS = 16_000


def _as_list(v: Any) -> Any:
    """``"a"`` → ``["a"]``; ``'["a","b"]'`` → ``["a", "b"]``; ``"a,b"`` → ``["a", "b"]``."""
    if isinstance(v, str):
        text = v.strip()
        if text.startswith("["):
            try:
                return json.loads(text)
            except ValueError:
                return v
        return [p.strip() for p in text.split(",") if p.strip()]
    return v


#: Other search APIs' names for a web option (Tavily, Exa: ``include_domains``) → ours.
WEB_ALIASES = {"include_domains": "sites", "domains": "sites", "exclude_domains": "exclude_sites"}


def fold_aliases(data: Any, aliases: dict[str, str]) -> Any:
    """``data`` with each alias renamed to its field; an alias and its field (or two aliases
    of one field) given with different values is refused rather than one silently winning."""
    if not isinstance(data, dict) or not aliases.keys() & data.keys():
        return data
    out = {k: v for k, v in data.items() if k not in aliases}
    named = {f: f for f in aliases.values() if f in data}
    for alias, field in aliases.items():
        if alias not in data:
            continue
        if field in out and _as_list(out[field]) != _as_list(data[alias]):
            raise ValueError(
                f"{named[field]!r} and {alias!r} name the same option ({field}) with different "
                "values: give one of them"
            )
        out.setdefault(field, data[alias])
        named.setdefault(field, alias)
    return out


class _In(BaseModel):
    # Attribute docstrings become field descriptions in JSON Schema (OpenAPI, MCP tools),
    # read when a schema is built rather than when the class is (unifind._fielddocs).
    # Built at import: FastAPI wraps a request body's model in a TypeAdapter with the
    # field's alias, and a deferred build runs outside the block where FastAPI silences
    # pydantic's warning about that alias (GET /openapi.json failed).
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=describe_fields)


class _Out(BaseModel):
    # Built on first use, not at import (#18: start-up): one command uses a few of them.
    model_config = ConfigDict(defer_build=True)


class KBSource(_In):
    """Options of the knowledge-base leg."""

    collections: list[str] | None = None
    """Collections to search; every collection the caller can see when omitted."""
    mode: KBMode | None = None
    threshold: float | None = Field(default=None, ge=0, le=1)
    """Drop hits scoring below this on the 0-1 scale (1 = best candidate on every arm)."""
    group: Literal["chunk", "document"] | None = None
    """``document``: each document once (its best chunk); ``limit`` then counts documents."""
    filters: dict[str, Any] | None = None
    """Document metadata filters: ``{"lang": "en"}`` or ``{"tag": ["a", "b"]}`` (any of)."""
    rerank: bool | None = None
    """Rerank this leg's hits with the offline cross-encoder."""

    _lists = field_validator("collections", mode="before")(_as_list)


class WebSource(_In):
    """Options of the web leg."""

    provider: str | None = None
    """Pin a provider (``tavily``, ``duckduckgo``, ...); resolved automatically when omitted."""
    sites: list[str] | None = None
    """Only these domains (``docs.python.org``, wildcards like ``*.gov``); subdomains included.
    Also read as ``include_domains`` or ``domains`` (Tavily's and Exa's names)."""
    exclude_sites: list[str] | None = None
    """Leave out these domains (same forms as ``sites``); also read as ``exclude_domains``."""
    time_range: Literal["day", "week", "month", "year"] | None = None
    start_date: date | None = None
    """Only results published on or after this day (``YYYY-MM-DD``)."""
    end_date: date | None = None
    """Only results published on or before this day."""
    # The same patterns as SearchRequest's: a bad code is a 422 here, not a 500 later.
    language: str | None = Field(default=None, pattern=r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$")
    """ISO 639-1 code of the results' language: ``en``, ``de``, ``zh``."""
    country: str | None = Field(default=None, pattern=r"^[A-Za-z]{2}$")
    """ISO 3166-1 alpha-2 code: results for that country (``us``, ``de``)."""
    topic: Literal["general", "news"] | None = None
    safe_search: Literal["off", "moderate", "strict"] | None = None
    page: int | None = Field(default=None, ge=1, le=1000)
    """1-based page of results."""
    engine: str | None = None

    _lists = field_validator("sites", "exclude_sites", mode="before")(_as_list)

    @model_validator(mode="before")
    @classmethod
    def _domain_aliases(cls, data: Any) -> Any:
        return fold_aliases(data, WEB_ALIASES)

    @model_validator(mode="after")
    def _dates_agree(self) -> WebSource:
        problem = date_problem(self.start_date, self.end_date, self.time_range)
        if problem:
            raise ValueError(problem)
        return self


class DBSource(_In):
    """Options of the database leg."""

    models: list[str] | None = None
    """Declared models to search; chosen from the question when omitted."""
    strict: bool | None = None
    min_confidence: float | None = Field(default=None, ge=0, le=1)
    """Refuse a generated answer that used less than this share of the question's content
    words (default ``db.min_confidence``, 0: none); the refusal names the words it could not map."""
    dsl: dict[str, Any] | None = None
    """A QueryDSL the caller wrote (an agent's LLM, from the schema ``sources`` gives): run as
    written, validated against the declared models and permission-checked like a generated
    one. It names its model (``dsl.model``, or one ``models`` entry). See docs/db.md."""
    uses: str | None = None
    """Who writes the query: ``builtin``, ``agent:<name>``, or ``dsl`` (the default when
    ``dsl`` is given: run it as written)."""
    explain: bool | None = None
    """Also return the SQL behind the rows: per model the statement with placeholders and
    its bound parameters (the leg's ``sql``), as ``unifind db search --explain`` shows."""

    _lists = field_validator("models", mode="before")(_as_list)

    @model_validator(mode="before")
    @classmethod
    def _dsl_runs_as_written(cls, data: Any) -> Any:
        # A JSON string is what a shell or a form sends; the object is what a client builds.
        if isinstance(data, dict) and isinstance(data.get("dsl"), str):
            try:
                data = {**data, "dsl": json.loads(data["dsl"])}
            except ValueError as exc:
                raise ValueError(f"dsl is not valid JSON: {exc}") from exc
        if isinstance(data, dict) and data.get("dsl") is not None and data.get("uses") is None:
            data = {**data, "uses": "dsl"}
        return data


class Sources(_In):
    """Which legs to search, each with its options. An empty object means the KB alone."""

    kb: KBSource | None = None
    web: WebSource | None = None
    db: DBSource | None = None

    @field_validator("kb", "web", "db", mode="before")
    @classmethod
    def _true_is_defaults(cls, v: Any) -> Any:
        # {"web": true} is the natural way to say "the web, with defaults".
        if v is True or v == "true":
            return {}
        if v is False or v == "false":
            return None
        return v


class SearchInput(_In):
    """One fused search over one or more legs."""

    query: str = Field(max_length=100_000)
    sources: Sources = Field(default_factory=lambda: Sources(kb=KBSource()))
    mode: SearchMode = "all"
    """``all`` waits for every leg; ``any`` returns at the first leg with results; ``race``
    at the first leg to finish."""
    limit: int = Field(default=10, ge=1, le=100)
    """Results per leg and in the fused list."""
    rerank: str | None = None
    """Rerank the fused list: ``builtin``, ``cross-encoder``, ``agent:<name>``, ``mcp:<s>.<t>``."""
    request_id: str | None = Field(default=None, pattern=ID_PATTERN)
    """Citation ids continue across every search with the same id; one is made when omitted.
    A search with a caller-given id is recorded."""
    chat_id: str | None = Field(default=None, pattern=ID_PATTERN)
    timeout_s: float | None = Field(default=None, gt=0, le=300)
    """Overall deadline; each leg also has its own."""
    source: Source = "hook"
    references: bool = False
    """Also return the ``<references>`` XML and the citation prompt."""
    max_chars: int = Field(default=DEFAULT_MAX_CHARS, ge=200, le=1_000_000)
    """Size budget of the references XML."""
    citation_format: str = "[{id}]"
    """How the prompt asks the LLM to cite (default ``[ref_001]``, the form ``ask``, MCP and the
    citation check use): ``{id}`` and/or ``{index}`` in at most 64 characters, no other
    braces (``[{id}]``, ``#ref:{id}``, ``[^{index}]``); else 400."""

    @field_validator("query")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the query is empty: say what to search for")
        return v


class LegSummary(_Out):
    """What one request (one leg) computed, besides its items and reports."""

    type: str
    status: Overall
    hits: int
    total: int | None = None
    took_ms: float = 0.0
    notes: list[str] = Field(default_factory=list)
    keywords: list[str] | None = None
    dsl: dict[str, Any] | None = None
    sql: list[dict[str, Any]] | None = None
    """db, when asked to ``explain``: per model ``{model, sql, params}``: the SQL text with
    placeholders and the values bound to them."""
    understood: dict[str, str] | None = None
    """db: each content word of the question → what the query used it for."""
    confidence: float | None = None
    """db: the share of the question's content words the query used (1.0: all)."""
    entities: list[dict[str, Any]] | None = None
    relations: list[dict[str, Any]] | None = None
    graph_nodes: list[dict[str, Any]] | None = None


class ReferencesOut(_Out):
    """What an LLM is given: ``<references>`` XML (escaped, within budget) and the prompt."""

    xml: str
    prompt: str
    omitted: list[str] = Field(default_factory=list)
    """Citation ids cut by the size budget (the XML announces them)."""


class SearchOutput(_Out):
    """The result contract of a fused search: items with citation ids, every backend's report."""

    request_id: str
    status: Overall
    """``ok`` every consulted backend answered · ``partial`` some failed · ``unavailable`` none."""
    mode: SearchMode
    items: list[Item]
    """Fused across legs (weighted RRF, deduplicated), each with its ``citation_id``."""
    reports: list[LegReport]
    """One per backend considered: ok, degraded (why), disabled or skipped."""
    legs: list[LegSummary]
    notes: list[str] = Field(default_factory=list)
    took_ms: float
    references: ReferencesOut | None = None


class FetchInput(_In):
    """Readable text of one web page."""

    url: str = Field(min_length=1, max_length=8192)
    max_chars: int = Field(default=8000, ge=100, le=1_000_000)
    start: int = Field(default=0, ge=0)
    """Character offset to start from (page through a long text)."""
    provider: str | None = None


class FetchOutput(_Out):
    """A fetched page (or the honest report of why not)."""

    url: str
    status: Overall
    report: LegReport
    attempts: list[LegReport] = Field(default_factory=list)
    final_url: str | None = None
    title: str | None = None
    text: str = ""
    start: int = 0
    total_chars: int = 0
    next_start: int | None = None
    """Offset of the next page of text; None when this page reaches the end."""


class CollectionOut(_Out):
    """A KB collection as the caller may see it."""

    name: str
    description: str = ""
    documents: int = 0
    chunks: int = 0
    embedder: str | None = None
    analyzer: str = "auto"
    owner: str | None = None
    """The owning tenant; None = shared with every caller."""
    created_at: str = ""


class CollectionIn(_In):
    """A collection to create (owned by the caller's tenant when the caller has one)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.\-]{1,64}$")
    description: str = ""
    embedder: str | None = "default"
    """``default`` (configured embedder), a spec, or null for lexical only."""
    roles: list[str] | None = None
    users: list[str] | None = None
    exist_ok: bool = False


class DocumentOut(_Out):
    """A stored document."""

    document_id: str
    title: str
    source: str
    mime: str
    chunks: int
    text_chars: int
    updated_at: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class TextDocumentIn(_In):
    """A document given as text, or as a URL fetched through the SSRF-safe fetcher."""

    document_id: str | None = Field(default=None, min_length=1, max_length=1024)
    """Defaults to the URL for URL documents; required for text."""
    text: str | None = Field(default=None, max_length=10_000_000)
    url: str | None = Field(default=None, max_length=8192)
    title: str = ""
    metadata: dict[str, Any] | None = None


class CrawlIn(_In):
    """Where a crawl of one site starts and how far it may go."""

    url: str = Field(min_length=1, max_length=8192)
    """An http(s) URL; only pages on its scheme and host are followed."""
    max_pages: int = Field(default=50, ge=1, le=1000)
    """Pages fetched at most (robots.txt and the sitemap not counted)."""


class IngestOutcome(_Out):
    """What happened to one document of an ingest."""

    name: str
    document_id: str | None = None
    status: str
    """``added``, ``replaced``, ``unchanged``, ``failed`` or ``skipped`` (not a file to read)."""
    chunks: int = 0
    error: str | None = None


class IngestOutput(_Out):
    """An ingest batch: every document's outcome; failures never hide the rest."""

    collection: str
    added: int
    replaced: int
    unchanged: int
    failed: int
    skipped: int = 0
    outcomes: list[IngestOutcome]
    stopped: str | None = None
    """Why the batch stopped before its end (the disk is full); None when it ran through."""
    not_tried: list[str] = Field(default_factory=list)


class ModelOut(_Out):
    """A database model the DB leg may search."""

    name: str
    description: str = ""
    columns: dict[str, str] = Field(default_factory=dict)
    """Column name → its description (or type when undescribed)."""
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    """What a host LLM needs to write a QueryDSL for it: columns with types, units,
    sampled values; relations (``Model.schema_summary``)."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class ProviderOut(_Out):
    """A web search provider or fetcher, and whether it can run here."""

    kind: Literal["search", "fetch"]
    name: str
    usable: bool
    why: str = ""
    chosen: bool = False
    """The one automatic resolution picks."""


def _dsl_schema() -> dict[str, Any]:
    from unifind.db.dsl import dsl_json_schema  # SQLAlchemy: only when sources are listed

    return dsl_json_schema()


class SourcesOutput(_Out):
    """Everything the caller can search, and whether each piece is usable now."""

    collections: list[CollectionOut]
    models: list[ModelOut]
    providers: list[ProviderOut]
    notes: list[str] = Field(default_factory=list)
    dsl_schema: dict[str, Any] = Field(default_factory=_dsl_schema)
    """The JSON Schema of the QueryDSL (``sources.db.dsl``): with ``models`` a host LLM
    writes a database query in one shot (docs/db.md)."""


class Check(_Out):
    """One backend's readiness."""

    name: str
    """``kb`` (the configured store), ``kb.placed`` (a store collections were placed on),
    ``db``, ``records``, ``redis``."""
    ok: bool
    status: Literal["ok", "degraded", "unavailable"] = "ok"
    """``degraded``: down, but requests still answer without it (a placed store, Redis);
    ``unavailable``: down, and readiness fails."""
    reason: str | None = None
    """Why it is down: ``unreachable``, ``timeout``, ``error``."""
    detail: str = ""
    """The error, naming the backend without its password."""
    target: str | None = None
    """Which store or server, without its password (placed stores, Redis)."""
    took_ms: float = 0.0


class Readiness(_Out):
    """Whether each configured backend can be reached; ``ready`` unless a required one
    (the KB store, the records store, the database) is down (HTTP 503 then)."""

    ready: bool
    status: Literal["ok", "degraded", "unavailable"] = "ok"
    """``degraded``: ready, with a soft dependency down (see each check)."""
    checks: list[Check]
