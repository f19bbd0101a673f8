"""The flat public namespace is locked: changing it is a decision, not an accident."""

from __future__ import annotations

import subprocess
import sys

import unifind

EXPECTED = [
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


def test_all_is_sorted_and_locked() -> None:
    assert unifind.__all__ == sorted(unifind.__all__)
    assert unifind.__all__ == EXPECTED


def test_every_public_name_resolves() -> None:
    for name in unifind.__all__:
        assert getattr(unifind, name) is not None


def test_import_is_light() -> None:
    code = (
        "import sys, unifind; heavy = [m for m in ('onnxruntime', 'numpy', 'apsw', 'jieba', "
        "'httpx', 'sqlalchemy', 'typer') if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
