"""A request's citation numbers in the records database: every process continues one
numbering when there is no Redis (issue #20: two CLI searches with one ``--request-id``
both started at ``ref_001`` and gave that id to different chunks).

Implements ``unifind.cite.ids.IdStore`` for one tenant: the tenant is part of every row's
key, so a request id another tenant used is a fresh numbering here and says nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

# One definition of the key, scope and race rules for both stores (the sqlite3 one serves a
# local records file without SQLAlchemy: issue #18).
from unifind.store._citation_ids_sqlite import BATCH as _BATCH
from unifind.store._citation_ids_sqlite import RACE as _RACE
from unifind.store._citation_ids_sqlite import numbered, scope_of

__all__ = ["RecordCitationIds", "scope_of"]


def _raced(exc: Exception) -> bool:
    """Another process took those numbers first, holds SQLite's write lock or created the
    table a moment ago: read again. Other faults are real."""
    if isinstance(exc, sa.exc.IntegrityError):
        return True
    return isinstance(exc, sa.exc.OperationalError) and bool(_RACE.search(str(exc)))


class RecordCitationIds:
    """Citation numbers of one tenant's requests in the records tables."""

    def __init__(self, engine: sa.Engine, table: sa.Table, tenant: str | None,
                 ready: Callable[[], None]) -> None:  # fmt: skip
        self.engine, self.table, self.scope = engine, table, scope_of(tenant)
        self._ready = ready

    def assign(self, request_id: str, keys: Sequence[str]) -> list[int] | None:
        """The number of each key (a known key keeps its own, a new one takes the next);
        None when the database can't answer (the caller numbers in its own process)."""

        def attempt(digests: list[str]) -> list[int]:
            self._ready()
            return self._assign(request_id, digests)

        return numbered(request_id, keys, attempt, _raced)

    def _assign(self, request_id: str, digests: list[str]) -> list[int]:
        t = self.table
        mine = sa.and_(t.c.scope == self.scope, t.c.request_id == request_id)
        with self.engine.begin() as conn:
            known: dict[str, int] = {}
            wanted = list(dict.fromkeys(digests))
            for i in range(0, len(wanted), _BATCH):
                q = sa.select(t.c.item_key, t.c.number).where(
                    mine, t.c.item_key.in_(wanted[i : i + _BATCH])
                )
                known.update({str(k): int(n) for k, n in conn.execute(q)})
            new = [d for d in wanted if d not in known]
            if new:
                last = conn.execute(sa.select(sa.func.max(t.c.number)).where(mine)).scalar()
                now = datetime.now(UTC)
                rows: list[dict[str, Any]] = [
                    {"scope": self.scope, "request_id": request_id, "item_key": d,
                     "number": (last or 0) + n, "created_at": now}
                    for n, d in enumerate(new, start=1)
                ]  # fmt: skip
                conn.execute(t.insert(), rows)
                known.update({r["item_key"]: r["number"] for r in rows})
        return [known[d] for d in digests]
