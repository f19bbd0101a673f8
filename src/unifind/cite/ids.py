"""Citation ids that stay unique across every search made for one request context."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from unifind.rank.merge import dedupe_key
from unifind.types import Item, evolve


class CitationContext:
    """Hands out ``ref_001``, ``ref_002``, ... for one request; never restarts per call.

    The same item (same dedupe key) keeps its id when a later search returns it again, so
    ``request_id + citation_id`` names one reference for the whole conversation turn.
    """

    def __init__(self, request_id: str, *, prefix: str = "ref_", width: int = 3) -> None:
        self.request_id = request_id
        self._prefix, self._width = prefix, width
        self._ids: dict[str, str] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._ids)

    def index_of(self, citation_id: str) -> int:
        """1-based global index of an id (``ref_007`` → 7)."""
        return int(citation_id.removeprefix(self._prefix))

    def assign(self, items: Sequence[Item]) -> list[Item]:
        """Copies of ``items`` with ``citation_id`` set (existing keys keep theirs)."""
        out = []
        with self._lock:
            for item in items:
                key = dedupe_key(item)
                if key not in self._ids:
                    self._ids[key] = f"{self._prefix}{len(self._ids) + 1:0{self._width}d}"
                out.append(evolve(item, citation_id=self._ids[key]))
        return out
