"""Search records (L1): what each request searched, found and cited, in SQL (DESIGN §10)."""

from unifind.store._model import Reference, SearchRecord, record_from_result
from unifind.store.records import RecordStore

__all__ = ["RecordStore", "Reference", "SearchRecord", "record_from_result"]
