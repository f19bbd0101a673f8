"""Search records (L1): what each request searched, found and cited, in SQL (DESIGN §10).

The names load on first use (issue #18): a CLI search that only keeps citation numbers in a
local records file (``store._citation_ids_sqlite``) must not import SQLAlchemy or pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unifind.store._model import Reference, SearchRecord, record_from_result
    from unifind.store.records import RecordStore

__all__ = ["RecordStore", "Reference", "SearchRecord", "record_from_result"]

_WHERE = {
    "RecordStore": "unifind.store.records",
    "Reference": "unifind.store._model",
    "SearchRecord": "unifind.store._model",
    "record_from_result": "unifind.store._model",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
