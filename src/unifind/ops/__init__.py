"""The operation layer (between the engine and the surfaces; DESIGN §12).

Each operation is declared once in :data:`OPERATIONS` (name, summary, input and output
types, whether it is read-only and whether it reaches the open web) and implemented once
in :class:`Operations`; the CLI, HTTP and MCP surfaces map onto these.
"""

from unifind.ops._ask import AskInput, AskOutput, AskPart, AskUses
from unifind.ops.models import (
    CollectionIn,
    CollectionOut,
    DocumentOut,
    FetchInput,
    FetchOutput,
    IngestOutput,
    KBSource,
    ModelOut,
    ProviderOut,
    Readiness,
    SearchInput,
    SearchOutput,
    Sources,
    SourcesOutput,
    TextDocumentIn,
)
from unifind.ops.service import Operations, build_requests, new_request_id
from unifind.ops.spec import OPERATIONS, OpSpec
from unifind.ops.stream import OpEvent

__all__ = [
    "OPERATIONS",
    "AskInput",
    "AskOutput",
    "AskPart",
    "AskUses",
    "CollectionIn",
    "CollectionOut",
    "DocumentOut",
    "FetchInput",
    "FetchOutput",
    "IngestOutput",
    "KBSource",
    "ModelOut",
    "OpEvent",
    "OpSpec",
    "Operations",
    "ProviderOut",
    "Readiness",
    "SearchInput",
    "SearchOutput",
    "Sources",
    "SourcesOutput",
    "TextDocumentIn",
    "build_requests",
    "new_request_id",
]
