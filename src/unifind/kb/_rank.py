"""Fusing a KB query's runs into one list whose head never depends on how deep it was asked.

Scores are on one documented 0-1 scale whatever the mode (``KBSettings.fusion``):

* ``adaptive`` / ``convex``: each run is min-max scaled over its candidates (1 = that run's
  best, 0 = its weakest candidate) and the runs are mixed with weights summing to 1;
* ``rrf``: ``Σ 1/(k + rank)`` divided by its maximum, so 1 = first in every run;
* one run alone (``text`` or ``semantic`` mode, or an empty arm) is min-max scaled the same way.

**Tiers.** Fusion is computed on each run's first ``candidates`` hits (tier 0); a request
that needs more results adds tier 1 (the first ``2 * candidates``), and so on, each tier
contributing only the keys no earlier tier placed, below them. So page 2 continues page 1
exactly and the top 10 are the same whether 10 or 500 results were asked for (min-max and
RRF scores both move with depth, which used to reorder the head, issue #9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from unifind.kb.base import Hit
from unifind.rank import adaptive
from unifind.rank.fusion import convex, minmax, rrf

Key = tuple[str, str]  # (collection, chunk_id)


@dataclass
class Run:
    """One backend's ranked hits for one collection."""

    collection: str
    stage: str
    hits: list[Hit] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.collection}/{self.stage}"

    @property
    def kind(self) -> str:
        return "lexical" if self.stage.startswith("lexical") else "dense"


def fuse(runs: Sequence[Run], *, method: str, k: int) -> list[tuple[Key, float]]:
    """One fusion of whole runs, scores in [0, 1], best first."""
    live = [r for r in runs if r.hits]
    if len(live) == 1:
        run = live[0]
        scaled = minmax([h.score for h in run.hits])
        return [((run.collection, h.chunk_id), s) for h, s in zip(run.hits, scaled, strict=True)]
    scored = {r.name: {(r.collection, h.chunk_id): h.score for h in r.hits} for r in live}
    if method == "adaptive":
        return adaptive.fuse(scored)
    if method == "convex":
        share = 1.0 / max(1, len(live))
        return [(key, s * share) for key, s in convex(scored)]
    top = len(live) / (k + 1)
    ranked = {r.name: [(r.collection, h.chunk_id) for h in r.hits] for r in live}
    return [(key, s / top) for key, s in rrf(ranked, k=k)]


def tiered(
    runs: Sequence[Run], *, method: str, k: int, candidates: int, need: int
) -> list[tuple[Key, float]]:
    """Fused keys, tier by tier (module docstring), until ``need`` are placed or runs end."""
    out: list[tuple[Key, float]] = []
    seen: set[Key] = set()
    floor, scale = 1.0, 1.0
    depth = candidates
    longest = max((len(r.hits) for r in runs), default=0)
    while True:
        cut = [Run(r.collection, r.stage, r.hits[:depth]) for r in runs]
        for key, score in fuse(cut, method=method, k=k):
            if key not in seen:
                seen.add(key)
                # A later tier is squeezed below the last score placed: never outranks it.
                floor = min(floor, score * scale)
                out.append((key, floor))
        scale = floor
        if len(out) >= need or depth >= longest:
            return out
        depth += candidates


def depth_for(need: int, candidates: int) -> int:
    """Hits each run must fetch so the tiers can place ``need`` keys (each adds >= candidates)."""
    tiers = max(1, -(-need // candidates))
    return tiers * candidates
