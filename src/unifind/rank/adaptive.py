"""Query-adaptive convex fusion: each arm weighted by how much the other arms confirm it.

Equal weights let a weak arm drag a strong one down: when a query's words are not the
documents' words, BM25's head is a handful of chunks that share one common term, and
min-max scaling still gives them the full [0, 1] range. So per query, each arm's weight
grows with its *agreement*: the share of its head (top ``head``) that some other arm
also retrieved (anywhere in its candidate list). An arm whose head nobody else finds
is down-weighted, never to zero (``floor``), since a rare exact match is sometimes right.
Scores are min-max scaled per arm, as in :func:`unifind.rank.fusion.convex`, and the
weights sum to 1, so the fused score lies in [0, 1].
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

from unifind.rank.fusion import minmax

K = TypeVar("K", bound=Hashable)

HEAD = 10
FLOOR = 0.2


def agreement(
    runs: Mapping[str, Mapping[K, float]], *, head: int = HEAD, against: int | None = None
) -> dict[str, float]:
    """Per arm, the share of its top ``head`` keys that another arm also returned
    (within that arm's top ``against``, or anywhere when None)."""
    out: dict[str, float] = {}
    tops = {n: sorted(r, key=lambda k: -r[k]) for n, r in runs.items()}
    for name in runs:
        top = tops[name][:head]
        others = [set(tops[n][:against]) for n in runs if n != name]
        if not top or not others:
            out[name] = 1.0
            continue
        out[name] = sum(any(k in r for r in others) for k in top) / len(top)
    return out


def weights(
    runs: Mapping[str, Mapping[K, float]],
    *,
    base: Mapping[str, float] | None = None,
    head: int = HEAD,
    floor: float = FLOOR,
    gamma: float = 1.0,
    against: int | None = None,
) -> dict[str, float]:
    """Normalised per-arm weights: ``base_r · max(floor, agreement_r) ** gamma``."""
    agree = agreement(runs, head=head, against=against)
    raw = {
        n: (1.0 if base is None else base.get(n, 1.0)) * max(floor, agree[n]) ** gamma for n in runs
    }
    total = sum(raw.values()) or 1.0
    return {n: w / total for n, w in raw.items()}


def fuse(
    runs: Mapping[str, Mapping[K, float]],
    *,
    base: Mapping[str, float] | None = None,
    head: int = HEAD,
    floor: float = FLOOR,
    gamma: float = 1.0,
    against: int | None = None,
) -> list[tuple[K, float]]:
    """Convex fusion with :func:`weights`; scores in [0, 1], best first."""
    live = {n: r for n, r in runs.items() if r}
    w = weights(live, base=base, head=head, floor=floor, gamma=gamma, against=against)
    fused: dict[K, float] = {}
    for name, run in live.items():
        keys = list(run)
        for key, s in zip(keys, minmax([run[x] for x in keys]), strict=True):
            fused[key] = fused.get(key, 0.0) + w[name] * s
    return sorted(fused.items(), key=lambda kv: -kv[1])
