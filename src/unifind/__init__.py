"""unifind: one search layer for AI agents — web, knowledge base and databases.

The public API is this flat namespace; everything in ``unifind.*`` submodules may change.
Heavy names are imported lazily so ``import unifind`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from unifind.errors import (
    ConfigError,
    EmbedderMismatch,
    InputError,
    MissingDependency,
    ModeUnavailable,
    SourceError,
    StoreError,
    UnifindError,
    UnknownName,
)
from unifind.types import (
    Item,
    LegReport,
    Match,
    Overall,
    Reason,
    SearchRequest,
    SearchResult,
    SearchResults,
    Status,
)

if TYPE_CHECKING:
    from unifind.config import Settings, load_settings
    from unifind.engine import Searcher
    from unifind.kb.service import IngestReport, KnowledgeBase

__version__ = "0.1.0"

_LAZY = {
    "Searcher": "unifind.engine",
    "KnowledgeBase": "unifind.kb.service",
    "IngestReport": "unifind.kb.service",
    "Settings": "unifind.config",
    "load_settings": "unifind.config",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'unifind' has no attribute {name!r}")


__all__ = [
    "ConfigError",
    "EmbedderMismatch",
    "IngestReport",
    "InputError",
    "Item",
    "KnowledgeBase",
    "LegReport",
    "Match",
    "MissingDependency",
    "ModeUnavailable",
    "Overall",
    "Reason",
    "SearchRequest",
    "SearchResult",
    "SearchResults",
    "Searcher",
    "Settings",
    "SourceError",
    "Status",
    "StoreError",
    "UnifindError",
    "UnknownName",
    "__version__",
    "load_settings",
]
