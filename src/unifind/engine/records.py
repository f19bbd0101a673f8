"""Search records: saved per request, looked up by request and by ``(request_id, index)``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from unifind.engine.citations import Citing
from unifind.types import Principal, SearchRequest, SearchResults

if TYPE_CHECKING:
    from unifind.store import SearchRecord


class Recording(Citing):
    """Save and read the records of searches."""

    async def _save(
        self,
        results: SearchResults,
        request_id: str,
        chat_id: str | None,
        principal: Principal | None,
        reqs: Sequence[SearchRequest],
    ) -> None:
        """Record the search; a failed save is logged, never fails the search (DESIGN §10)."""
        store = self.records
        if store is None:
            return
        from unifind.store import record_from_result

        refs = self.references(results, request_id=request_id, principal=principal)
        config = {"requests": [r.model_dump(mode="json", exclude_none=True) for r in reqs]}
        record = record_from_result(
            request_id,
            results,
            chat_id=chat_id,
            refs=refs,
            principal=self._who(principal),
            config=config,
            source=reqs[0].source if reqs else "hook",
        )
        await store.atry_save(record)

    def get_searches(
        self, request_id: str, *, principal: Principal | None = None
    ) -> list[SearchRecord]:
        """The records of a request, oldest first (empty when records are off)."""
        store = self.records
        return store.get_searches(request_id, principal=self._who(principal)) if store else []

    def get_reference(
        self, request_id: str, index: int, *, principal: Principal | None = None
    ) -> dict[str, Any] | None:
        """The reference with 1-based global ``index`` within a request, as recorded."""
        store = self.records
        who = self._who(principal)
        return store.get_reference(request_id, index, principal=who) if store else None

    def delete_searches(self, chat_id: str, *, principal: Principal | None = None) -> int:
        """Soft-delete every record of a chat; returns how many."""
        store = self.records
        return store.delete_searches(chat_id, principal=self._who(principal)) if store else 0
