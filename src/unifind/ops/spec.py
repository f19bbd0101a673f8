"""The declaration of every operation: one row each, read by every surface."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from unifind.ops import models as m
from unifind.ops._ask import AskInput, AskOutput
from unifind.ops._trace import TraceNode
from unifind.store import SearchRecord


@dataclass(frozen=True)
class OpSpec:
    """What a surface needs to expose an operation without knowing what it does."""

    name: str
    summary: str
    input: type[BaseModel] | None
    output: type[BaseModel] | None
    read_only: bool = True
    open_world: bool = False
    """It may reach the open web (MCP's ``openWorldHint``)."""
    streams: bool = False


_SPECS = (
    OpSpec("search", "Search the knowledge base, the web and databases in one fused, cited list.",
           m.SearchInput, m.SearchOutput, open_world=True, streams=True),
    OpSpec("ask", "Answer a question from searches, citing references; citations checked.",
           AskInput, AskOutput, open_world=True, streams=True),
    OpSpec("fetch", "Readable text of a web page (SSRF-safe), paged by character offset.",
           m.FetchInput, m.FetchOutput, open_world=True),
    OpSpec("sources", "What can be searched: collections, database models, web providers.",
           None, m.SourcesOutput),
    OpSpec("kb.collections", "List the knowledge-base collections the caller can see.",
           None, m.CollectionOut),
    OpSpec("kb.create", "Create a collection owned by the caller's tenant.",
           m.CollectionIn, m.CollectionOut, read_only=False),
    OpSpec("kb.delete", "Delete a collection and every document in it.",
           None, None, read_only=False),
    OpSpec("kb.documents", "List a collection's documents.", None, m.DocumentOut),
    OpSpec("kb.ingest", "Ingest uploaded files, text or URLs into a collection.",
           m.TextDocumentIn, m.IngestOutput, read_only=False, open_world=True),
    OpSpec("kb.crawl", "Crawl one site into a collection: sitemap, links, robots.txt respected.",
           m.CrawlIn, m.IngestOutput, read_only=False, open_world=True),
    OpSpec("kb.remove", "Remove one document from every index.", None, None, read_only=False),
    OpSpec("db.models", "List the database models the DB leg may search.", None, m.ModelOut),
    OpSpec("records.searches", "The recorded searches of a request.", None, SearchRecord),
    OpSpec("records.trace", "The trace tree of a request: its searches, legs, backends, stages.",
           None, TraceNode),
    OpSpec("records.reference", "One reference of a request by its 1-based index.", None, None),
    OpSpec("records.delete", "Delete every recorded search of a chat.",
           None, None, read_only=False),
    OpSpec("health", "Liveness.", None, None),
    OpSpec("ready", "Whether each configured backend can be reached.", None, m.Readiness),
)  # fmt: skip

#: Every operation by name.
OPERATIONS: dict[str, OpSpec] = {s.name: s for s in _SPECS}
