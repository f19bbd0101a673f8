"""An in-memory BM25 index derived from the store's file: postings in numpy, scored per query.

Scores are computed at query time from the postings of the query terms only, so adding or
deleting chunks never rescores anything: new chunks land in a small *delta* (Python lists),
deleted ones are tombstoned in a boolean mask, and the follower rebuilds the compact *base*
(CSR arrays sorted by term id) from the file when the delta or the tombstones grow too big.

BM25 is Lucene's ``BM25Similarity`` (the form Anserini and Elasticsearch use)::

    idf(t)      = ln(1 + (N - df + 0.5) / (df + 0.5))
    score(t, c) = idf(t) * tf / (tf + k1 * (1 - b + b * len(c) / avgdl))

summed over query term occurrences. Lucene dropped the classic ``(k1 + 1)`` numerator
factor in 8.0 (LUCENE-8563) since it does not change the ranking. ``N``, ``df`` and
``avgdl`` are exact live statistics (Lucene counts deleted docs until a merge; we don't).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from unifind.kb._topk import top_k
from unifind.kb.base import BM25_B, BM25_K1

Int32s = npt.NDArray[np.int32]
Int64s = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Bools = npt.NDArray[np.bool_]

#: A chunk as the index receives it: rowid, length in terms, postings blob.
Row = tuple[int, int, bytes]

_PAIR = np.dtype("<i4")


def encode_postings(term_tf: Mapping[int, int]) -> bytes:
    """A chunk's postings: little-endian int32 pairs ``(term id, tf)``, sorted by term id."""
    flat = [x for pair in sorted(term_tf.items()) for x in pair]
    return np.asarray(flat, dtype=_PAIR).tobytes()


class LexicalIndex:
    """BM25 postings of one collection; positions follow chunk rowids in ascending order."""

    def __init__(self, rows: Sequence[Row]) -> None:
        n = len(rows)
        self._ids: Int64s = np.fromiter((r[0] for r in rows), dtype=np.int64, count=n)
        self._lengths: Floats = np.fromiter((r[1] for r in rows), dtype=np.float64, count=n)
        self._alive: Bools = np.ones(n, dtype=np.bool_)
        self._size = n
        self.base_size = n
        self._live = n
        self._total_length = float(self._lengths.sum())
        self._build_base([r[2] for r in rows])
        self._delta: dict[int, tuple[list[int], list[float]]] = {}
        self._delta_cache: dict[int, tuple[Int32s, Float32s]] = {}
        self._norms: Floats | None = None

    def _build_base(self, blobs: list[bytes]) -> None:
        pairs = np.frombuffer(b"".join(blobs), dtype=_PAIR).reshape(-1, 2)
        counts = np.fromiter((len(b) // 8 for b in blobs), dtype=np.int64, count=len(blobs))
        # Postings arrive in position order, so a stable sort by term keeps each term's
        # positions ascending: a CSR layout with no second sort key.
        order = np.argsort(pairs[:, 0], kind="stable")
        terms = pairs[:, 0][order]
        self._post_pos: Int32s = np.repeat(np.arange(len(blobs), dtype=np.int32), counts)[order]
        self._post_tf: Float32s = pairs[:, 1][order].astype(np.float32)
        bounds = np.flatnonzero(terms[1:] != terms[:-1]) + 1
        self._terms: Int32s = terms[np.concatenate([[0], bounds])] if len(terms) else terms
        self._starts: Int64s = np.concatenate([[0], bounds, [len(terms)]]).astype(np.int64)

    # ---- persistence (``_lexsave``) -------------------------------------------------

    def arrays(self) -> dict[str, npt.NDArray[np.generic]] | None:
        """The base's arrays, or None while a delta or tombstones are pending."""
        if self._size != self.base_size or self._live != self._size:
            return None
        return {
            "ids": self._ids[: self._size], "lengths": self._lengths[: self._size],
            "post_pos": self._post_pos, "post_tf": self._post_tf,
            "terms": self._terms, "starts": self._starts,
        }  # fmt: skip

    @classmethod
    def restore(cls, a: Mapping[str, npt.NDArray[np.generic]]) -> LexicalIndex:
        """An index from :meth:`arrays` output (shapes checked by the caller)."""
        self = cls.__new__(cls)
        self._ids = np.asarray(a["ids"], dtype=np.int64)
        self._lengths = np.asarray(a["lengths"], dtype=np.float64)
        n = len(self._ids)
        self._alive = np.ones(n, dtype=np.bool_)
        self._size = self.base_size = self._live = n
        self._total_length = float(self._lengths.sum())
        self._post_pos = np.asarray(a["post_pos"], dtype=np.int32)
        self._post_tf = np.asarray(a["post_tf"], dtype=np.float32)
        self._terms = np.asarray(a["terms"], dtype=np.int32)
        self._starts = np.asarray(a["starts"], dtype=np.int64)
        self._delta, self._delta_cache, self._norms = {}, {}, None
        return self

    # ---- maintenance ---------------------------------------------------------------

    @property
    def live(self) -> int:
        return self._live

    @property
    def max_id(self) -> int:
        return int(self._ids[self._size - 1]) if self._size else 0

    def needs_rebuild(self) -> bool:
        """True when the delta or the tombstones outgrow the base (rebuild from the file)."""
        delta = self._size - self.base_size
        dead = self._size - self._live
        return delta > max(2_000, self.base_size // 5) or dead > max(2_000, self._size // 4)

    def add(self, rows: Iterable[Row]) -> None:
        """Append chunks whose rowids are all above ``max_id``, in ascending order."""
        for rowid, length, blob in rows:
            if rowid <= self.max_id:
                raise ValueError(f"chunk {rowid} arrives out of rowid order")
            pos = self._append(rowid, length)
            pairs = np.frombuffer(blob, dtype=_PAIR).reshape(-1, 2)
            for term, tf in pairs.tolist():
                plist, tlist = self._delta.setdefault(term, ([], []))
                plist.append(pos)
                tlist.append(float(tf))
                self._delta_cache.pop(term, None)

    def _append(self, rowid: int, length: int) -> int:
        if self._size == len(self._ids):
            grow = max(1024, self._size // 2)
            self._ids = np.concatenate([self._ids, np.zeros(grow, np.int64)])
            self._lengths = np.concatenate([self._lengths, np.zeros(grow, np.float64)])
            self._alive = np.concatenate([self._alive, np.zeros(grow, np.bool_)])
        pos = self._size
        self._ids[pos], self._lengths[pos], self._alive[pos] = rowid, length, True
        self._size += 1
        self._live += 1
        self._total_length += length
        self._norms = None
        return pos

    def delete(self, rowids: Iterable[int]) -> None:
        """Tombstone chunks; rowids the index doesn't hold are ignored."""
        for pos in self.positions(np.fromiter(rowids, dtype=np.int64)).tolist():
            if self._alive[pos]:
                self._alive[pos] = False
                self._live -= 1
                self._total_length -= float(self._lengths[pos])
                self._norms = None

    def positions(self, rowids: Int64s) -> Int64s:
        """Positions of the given rowids that the index holds (alive or not)."""
        ids = self._ids[: self._size]
        pos = np.searchsorted(ids, rowids)
        inside = pos < self._size
        pos, rowids = pos[inside], rowids[inside]
        found: Int64s = pos[ids[pos] == rowids].astype(np.int64)
        return found

    def mask(self, rowids: Int64s) -> Bools:
        """A position mask that is True for the given rowids."""
        out = np.zeros(self._size, dtype=np.bool_)
        out[self.positions(np.sort(rowids))] = True
        return out

    # ---- query ---------------------------------------------------------------------

    def _length_norms(self) -> Floats:
        """``k1 * (1 - b + b * len / avgdl)`` per position, recomputed when avgdl moves."""
        if self._norms is None:
            avgdl = self._total_length / self._live
            lengths = self._lengths[: self._size]
            self._norms = BM25_K1 * (1.0 - BM25_B + BM25_B * lengths / avgdl)
        return self._norms

    def _postings(self, term: int) -> tuple[Int32s, Float32s]:
        k = int(np.searchsorted(self._terms, term))
        if k < len(self._terms) and self._terms[k] == term:
            s, e = self._starts[k], self._starts[k + 1]
            pos, tf = self._post_pos[s:e], self._post_tf[s:e]
        else:
            pos, tf = self._post_pos[:0], self._post_tf[:0]
        if term not in self._delta:
            return pos, tf
        if term not in self._delta_cache:
            dpos, dtf = self._delta[term]
            self._delta_cache[term] = (np.asarray(dpos, np.int32), np.asarray(dtf, np.float32))
        dpos_a, dtf_a = self._delta_cache[term]
        return np.concatenate([pos, dpos_a]), np.concatenate([tf, dtf_a])

    def search(
        self, query: Mapping[int, int], limit: int, allowed: Bools | None = None
    ) -> list[tuple[int, float]]:
        """``(rowid, score)`` best first; ``query`` maps term id → occurrences in the query.

        ``allowed`` (a position mask) restricts the results, never the statistics.
        """
        if self._live == 0 or limit <= 0:
            return []
        lists = self._term_lists(query, allowed)
        if not lists:
            return []
        norms = self._length_norms()
        if sum(len(t.pos) for t in lists) * 8 < self._size:
            # Few postings: sum per chunk through a sort instead of a dense accumulator.
            pos = np.concatenate([t.pos for t in lists])
            contrib = np.concatenate([t.scores(norms) for t in lists])
            cand, inverse = np.unique(pos, return_inverse=True)
            scores = cast(Floats, np.bincount(inverse.ravel(), weights=contrib))
            return self._best(cand, scores, limit)
        return self._max_score(lists, norms, limit)

    def score_rowids(self, query: Mapping[int, int], rowids: Int64s) -> Floats:
        """BM25 of the given rowids (0 for those matching no term, or not held).

        Each term's positions are sorted, so a chunk's tf is a binary search, not a scan:
        the cost follows ``len(rowids)``, not the terms' document frequencies.
        """
        out: Floats = np.zeros(len(rowids), dtype=np.float64)
        if self._live == 0 or not len(rowids):
            return out
        ids = self._ids[: self._size]
        at = np.searchsorted(ids, rowids)
        held = at < self._size
        held[held] = ids[at[held]] == rowids[held]
        held[held] = self._alive[at[held]]
        want = at[held]
        norms = self._length_norms()
        for t in self._term_lists(query, None):  # live postings, positions ascending
            i = np.searchsorted(t.pos, want)
            hit = i < len(t.pos)
            hit[hit] = t.pos[i[hit]] == want[hit]
            tf = t.tf[i[hit]].astype(np.float64)
            part = out[held]
            part[hit] += t.bound * tf / (tf + norms[want[hit]])
            out[held] = part
        return out

    def _term_lists(self, query: Mapping[int, int], allowed: Bools | None) -> list[_TermList]:
        n = self._live
        tombstones = self._live < self._size
        lists = []
        for term, qtf in query.items():
            pos, tf = self._postings(term)
            if tombstones:
                keep = self._alive[pos]
                pos, tf = pos[keep], tf[keep]
            df = len(pos)
            if df == 0:
                continue
            idf = float(np.log(1.0 + (n - df + 0.5) / (df + 0.5)))
            if allowed is not None:
                keep = allowed[pos]
                pos, tf = pos[keep], tf[keep]
            if len(pos):
                lists.append(_TermList(qtf * idf, pos, tf))
        return lists

    def _max_score(
        self, lists: list[_TermList], norms: Floats, limit: int
    ) -> list[tuple[int, float]]:
        """Exact top-k that skips chunks matching only frequent terms (MaxScore).

        Turtle & Flood 1995: a term adds less than ``qtf * idf`` to any chunk (the tf part
        is below 1), so once the k-th best partial score exceeds the summed bounds of the
        terms still to come, no chunk unseen so far can enter the top k: those terms only
        update the chunks already scored. Rare (high-bound) terms go first.
        """
        lists = sorted(lists, key=lambda t: -t.bound)
        acc = np.zeros(self._size, dtype=np.float64)
        rest = sum(t.bound for t in lists)
        theta, pruned = -np.inf, False
        for t in lists:
            rest -= t.bound
            pos, tf = t.pos, t.tf
            if pruned:
                seen = acc[pos] > 0
                pos, tf = pos[seen], tf[seen]
            acc[pos] += _TermList(t.bound, pos, tf).scores(norms)  # unique within a list
            if not pruned and len(pos) >= limit:
                # The k-th best among this term's chunks bounds the overall k-th from below.
                partial = acc[pos]
                theta = max(theta, float(np.partition(partial, len(pos) - limit)[-limit]))
            pruned = pruned or rest < theta
        cand = np.flatnonzero(acc)
        return self._best(cand, acc[cand], limit)

    def _best(
        self, cand: npt.NDArray[np.integer], scores: Floats, limit: int
    ) -> list[tuple[int, float]]:
        ids = self._ids[cand]
        best = top_k(scores, ids, limit)
        return [(int(i), float(s)) for i, s in zip(ids[best], scores[best], strict=True)]


@dataclass(frozen=True, slots=True)
class _TermList:
    """One query term's live postings and its weight ``qtf * idf`` (an upper bound)."""

    bound: float
    pos: Int32s
    tf: Float32s

    def scores(self, norms: Floats) -> Floats:
        tf = self.tf.astype(np.float64)
        out: Floats = self.bound * tf / (tf + norms[self.pos])
        return out
