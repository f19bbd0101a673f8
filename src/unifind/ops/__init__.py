"""The operation layer (between the engine and the surfaces; DESIGN §12).

Each operation is declared once in :data:`OPERATIONS` (name, summary, input and output
types, whether it is read-only and whether it reaches the open web) and implemented once
in :class:`Operations`; the CLI, HTTP and MCP surfaces map onto these.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Each name is imported from its module on first use (PEP 562): ``unifind search`` needs
# the search models, not the ask stage's agent nor the records store (#18).
_ASK = "AskInput AskOutput AskPart AskUses"
_MODELS = (
    "CollectionIn CollectionOut DocumentOut FetchInput FetchOutput IngestOutput KBSource "
    "ModelOut ProviderOut Readiness SearchInput SearchOutput Sources SourcesOutput TextDocumentIn"
)
_LAZY = {
    **dict.fromkeys(_ASK.split(), "unifind.ops._ask"),
    **dict.fromkeys(_MODELS.split(), "unifind.ops.models"),
    **dict.fromkeys(("Operations", "build_requests", "new_request_id"), "unifind.ops.service"),
    **dict.fromkeys(("OPERATIONS", "OpSpec"), "unifind.ops.spec"),
    "OpEvent": "unifind.ops.stream",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'unifind.ops' has no attribute {name!r}")


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
