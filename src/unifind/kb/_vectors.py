"""The exact vector index: a float32 matrix of one collection's chunk vectors, scanned by numpy.

Rows are L2-normalised when written, so the dot product is the cosine. The matrix is
derived from the file and follows the change log like the lexical index: new rows are
appended (rowids only grow), deleted ones are tombstoned and compacted away in memory
once they pass a quarter of the rows. It is the ground truth the HNSW accelerator
(``_hnsw.py``) is rescored and reconciled against.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from unifind.kb._topk import top_k

Int64s = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float32]
Bools = npt.NDArray[np.bool_]

#: A vector as the index receives it: chunk rowid and its little-endian float32 blob.
Row = tuple[int, bytes]

_F32 = np.dtype("<f4")


class VectorIndex:
    """Exact cosine search over one collection; positions follow rowids in ascending order."""

    def __init__(self, dim: int, rows: Sequence[Row]) -> None:
        self.dim = dim
        n = len(rows)
        self._ids: Int64s = np.fromiter((r[0] for r in rows), dtype=np.int64, count=n)
        blob = b"".join(r[1] for r in rows)
        self._mat: Floats = np.frombuffer(blob, dtype=_F32).reshape(n, dim).astype(np.float32)
        self._alive: Bools = np.ones(n, dtype=np.bool_)
        self._size = n
        self._live = n

    def arrays(self) -> dict[str, npt.NDArray[np.generic]] | None:
        """Rowids and matrix for a sidecar (``_lexsave``), or None with tombstones pending."""
        if self._live != self._size:
            return None
        return {"ids": self._ids[: self._size], "mat": self._mat[: self._size]}

    @classmethod
    def restore(cls, dim: int, ids: npt.NDArray[np.generic], mat: Floats) -> VectorIndex:
        """An index over rows already unit length (from :meth:`arrays`)."""
        self = cls(dim, [])
        self._ids = np.asarray(ids, dtype=np.int64)
        self._mat = mat  # may be a copy-on-write map of the sidecar (``_lexsave``)
        self._size = self._live = len(self._ids)
        self._alive = np.ones(self._size, dtype=np.bool_)
        return self

    @property
    def live(self) -> int:
        return self._live

    @property
    def max_id(self) -> int:
        return int(self._ids[self._size - 1]) if self._size else 0

    def add(self, rows: Sequence[Row]) -> None:
        """Append vectors whose rowids are all above ``max_id``, in ascending order."""
        need = self._size + len(rows)
        if need > len(self._ids):
            cap = max(need, len(self._ids) + max(1024, len(self._ids) // 2))
            grow = cap - len(self._ids)
            self._ids = np.concatenate([self._ids, np.zeros(grow, np.int64)])
            self._mat = np.concatenate([self._mat, np.zeros((grow, self.dim), np.float32)])
            self._alive = np.concatenate([self._alive, np.zeros(grow, np.bool_)])
        for rowid, blob in rows:
            if rowid <= self.max_id:
                raise ValueError(f"chunk {rowid} arrives out of rowid order")
            pos = self._size
            self._ids[pos] = rowid
            self._mat[pos] = np.frombuffer(blob, dtype=_F32)
            self._alive[pos] = True
            self._size += 1
            self._live += 1

    def delete(self, rowids: Iterable[int]) -> None:
        """Tombstone vectors (unknown rowids are ignored); compact when a quarter is dead."""
        pos = self.positions(np.fromiter(rowids, dtype=np.int64))
        pos = pos[self._alive[pos]]
        self._alive[pos] = False
        self._live -= len(pos)
        if self._size - self._live > max(1024, self._size // 4):
            self._compact()

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive[: self._size])
        self._ids, self._mat = self._ids[keep], self._mat[keep]
        self._alive = np.ones(len(keep), dtype=np.bool_)
        self._size = self._live = len(keep)

    def positions(self, rowids: Int64s) -> Int64s:
        """Positions of the given rowids that the index holds (alive or not)."""
        ids = self._ids[: self._size]
        pos = np.searchsorted(ids, rowids)
        inside = pos < self._size
        pos, rowids = pos[inside], rowids[inside]
        found: Int64s = pos[ids[pos] == rowids].astype(np.int64)
        return found

    def live_ids(self) -> Int64s:
        return self._ids[: self._size][self._alive[: self._size]]

    def vectors_of(self, rowids: Int64s) -> tuple[Int64s, Floats]:
        """The live rowids among ``rowids`` (sorted) and their vectors."""
        pos = self.positions(np.sort(rowids))
        pos = pos[self._alive[pos]]
        return self._ids[pos], self._mat[pos]

    def search(
        self, query: Floats, limit: int, allowed: Int64s | None = None
    ) -> list[tuple[int, float]]:
        """``(rowid, cosine)`` best first, over every live row or the ``allowed`` rowids."""
        if allowed is None:
            scores = self._mat[: self._size] @ query
            # Dead rows sink below every real cosine (>= -1); k never exceeds the live count.
            scores[~self._alive[: self._size]] = -np.inf
            ids = self._ids[: self._size]
            best = top_k(scores, ids, min(limit, self._live))
        else:
            ids, mat = self.vectors_of(allowed)
            scores = mat @ query
            best = top_k(scores, ids, limit)
        return [(int(i), float(s)) for i, s in zip(ids[best], scores[best], strict=True)]

    def rescore(self, rowids: Int64s, query: Floats, limit: int) -> list[tuple[int, float]]:
        """Exact scores for candidate rowids (from HNSW), keeping live ones only."""
        return self.search(query, limit, allowed=rowids)
