"""Citation ids that stay unique across every search made for one request context."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

from unifind.rank.merge import dedupe_key
from unifind.types import Item, evolve


class IdStore(Protocol):
    """Where a request's citation numbers live when several processes must agree on them.

    Without a store a context numbers in its own memory (one process). A shared store
    (``unifind._redis.RedisCitationIds``) lets every worker continue one numbering.
    """

    def assign(self, request_id: str, keys: Sequence[str]) -> list[int] | None:
        """The 1-based number of each (distinct) key, atomically: a known key keeps its
        number, a new one takes the next free number. None when the store can't answer
        (the context then numbers on by itself, in this process only)."""
        ...


class CitationContext:
    """Hands out ``ref_001``, ``ref_002``, ... for one request; never restarts per call.

    The same item (same dedupe key) keeps its id when a later search returns it again, so
    ``request_id + citation_id`` names one reference for the whole conversation turn.
    """

    def __init__(
        self,
        request_id: str,
        *,
        prefix: str = "ref_",
        width: int = 3,
        store: IdStore | None = None,
    ) -> None:
        self.request_id = request_id
        self._prefix, self._width = prefix, width
        self._store = store
        # Numbers this context has handed out; with a store, a mirror of its answers.
        self._ids: dict[str, int] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._ids)

    def index_of(self, citation_id: str) -> int:
        """1-based global index of an id (``ref_007`` → 7)."""
        return int(citation_id.removeprefix(self._prefix))

    def assign(self, items: Sequence[Item]) -> list[Item]:
        """Copies of ``items`` with ``citation_id`` set (existing keys keep theirs)."""
        keys = [dedupe_key(item) for item in items]
        with self._lock:
            self._number([k for k in dict.fromkeys(keys) if k not in self._ids])
            ids = [f"{self._prefix}{self._ids[k]:0{self._width}d}" for k in keys]
        return [evolve(item, citation_id=cid) for item, cid in zip(items, ids, strict=True)]

    def _number(self, new: list[str]) -> None:
        if not new:
            return
        numbers = self._store.assign(self.request_id, new) if self._store else None
        if numbers is None:
            # Per process (no store, or it is down): continue after the highest number
            # seen, so ids already shown for this request are never reused here.
            start = max(self._ids.values(), default=0) + 1
            numbers = list(range(start, start + len(new)))
        self._ids.update(zip(new, numbers, strict=True))
