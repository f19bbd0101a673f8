"""Rank fusion. One small function per method; tested by hand arithmetic."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60
"""Cormack, Clarke & Büttcher (SIGIR 2009), "Reciprocal Rank Fusion outperforms Condorcet
and individual Rank Learning Methods": k=60 was fixed on TREC runs and is the usual default."""


def rrf(
    rankings: Mapping[str, Sequence[K]],
    *,
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[K, float]]:
    """Weighted Reciprocal Rank Fusion: ``score(d) = Σ_r w_r / (k + rank_r(d))``, rank 1-based.

    ``rankings`` maps a backend name to its ranked keys (best first). Ties keep the order
    in which keys were first seen, so the output is deterministic.
    """
    scores: dict[K, float] = {}
    for name, ranked in rankings.items():
        w = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, key in enumerate(ranked, start=1):
            scores[key] = scores.get(key, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])


def minmax(scores: Sequence[float]) -> list[float]:
    """Scale to [0, 1]; all-equal scores map to 1.0."""
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    if hi == lo:
        return [1.0] * len(scores)
    return [(s - lo) / (hi - lo) for s in scores]


def convex(
    runs: Mapping[str, Mapping[K, float]],
    *,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[K, float]]:
    """Min-max normalised convex combination: ``Σ_r w_r · minmax_r(score_r(d))``.

    A key missing from a run contributes 0 for it (Bruch et al., TOIS 2023, "An Analysis
    of Fusion Functions for Hybrid Retrieval", found this competitive with RRF).
    """
    fused: dict[K, float] = {}
    for name, run in runs.items():
        w = 1.0 if weights is None else weights.get(name, 1.0)
        keys = list(run)
        for key, s in zip(keys, minmax([run[x] for x in keys]), strict=True):
            fused[key] = fused.get(key, 0.0) + w * s
    return sorted(fused.items(), key=lambda kv: -kv[1])
