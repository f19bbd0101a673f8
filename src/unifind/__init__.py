"""unifind: one search layer for AI agents — web, knowledge base and databases.

The public API is this flat namespace; everything in ``unifind.*`` submodules may change.
Every name is imported lazily so ``import unifind`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unifind.config import Settings, load_settings
    from unifind.engine import Searcher
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
    from unifind.kb.service import IngestReport, KnowledgeBase
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

__version__ = "0.1.0"

# Every name is imported on first use: even pydantic's model building (unifind.types)
# costs ~70 ms, which a CLI's ``--help`` should not pay.
_ERRORS = (
    "ConfigError EmbedderMismatch InputError MissingDependency ModeUnavailable SourceError "
    "StoreError UnifindError UnknownName"
)
_TYPES = "Item LegReport Match Overall Reason SearchRequest SearchResult SearchResults Status"
_LAZY = {
    **dict.fromkeys(_ERRORS.split(), "unifind.errors"),
    **dict.fromkeys(_TYPES.split(), "unifind.types"),
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
