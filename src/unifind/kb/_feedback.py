"""Pseudo-relevance feedback: the first fused chunks refine each arm's query once.

* Dense arm, Rocchio (1971): ``q' = q + beta * mean(vectors of the top fused chunks)``,
  renormalised. The vectors are the store's own (``KBStore.chunk_vectors``); a store that
  can't give them gets no dense feedback.
* Lexical arm, RM3 (Abdul-Jaleel et al., TREC 2004): the feedback chunks' term
  distributions, weighted by rank, give ``terms`` expansion terms mixed with the query
  (``lam`` for the original). Stores take analysed terms where a repeated term counts
  once per occurrence, so weights travel as repetitions (1/``SCALE`` resolution).

Feedback reads the head of tier 0 only (``_rank``), so it is the same at every page depth.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from unifind.kb._rank import Key, Run
from unifind.kb.base import Hit
from unifind.kb.graph import query_terms

if TYPE_CHECKING:
    from unifind.analysis import Analyzer
    from unifind.kb.service import KnowledgeBase

SCALE = 100


def rocchio(
    query: npt.NDArray[np.float32], vectors: Sequence[npt.NDArray[np.float32]], beta: float
) -> npt.NDArray[np.float32]:
    """The query moved towards the mean of ``vectors``, unit length again."""
    if not vectors or beta <= 0:
        return query
    moved = np.asarray(query, dtype=np.float32) + beta * np.mean(vectors, axis=0)
    norm = float(np.linalg.norm(moved))
    out: npt.NDArray[np.float32] = (moved / norm).astype(np.float32) if norm else query
    return out


def rm3(
    query: Sequence[str], docs: Sequence[Sequence[str]], *, terms: int, lam: float
) -> list[str]:
    """The expanded query as repeated terms (weights ≈ repetitions / SCALE)."""
    if not query or not docs or terms <= 0:
        return list(query)
    model: dict[str, float] = {}
    for rank, doc in enumerate(docs):
        if doc:
            weight = 1.0 / (rank + 1) / len(doc)  # rank-decayed P(t|D): fused scores vary
            for term, tf in Counter(doc).items():
                model[term] = model.get(term, 0.0) + weight * tf
    best = sorted(model.items(), key=lambda kv: -kv[1])[:terms]
    total = sum(w for _, w in best) or 1.0
    counts = Counter(query)
    mixed = {t: lam * c / len(query) for t, c in counts.items()}
    for term, w in best:
        mixed[term] = mixed.get(term, 0.0) + (1 - lam) * w / total
    out: list[str] = []
    for term, w in mixed.items():
        out.extend([term] * max(1, round(w * SCALE)))
    return out


def refine(
    kb: KnowledgeBase,
    query: str,
    runs: Sequence[Run],
    head: Sequence[Key],
    qvecs: Mapping[str, npt.NDArray[np.float32]],
    analyzers: Mapping[str, Analyzer],
    candidates: int,
) -> list[Run]:
    """Each collection's runs rescored once with its feedback query (module docstring).

    Only the *pool* is rescored: the chunks of the collection's first ``candidates`` hits
    on every arm (tier 0 of the first pass, so the same at every page depth). Deeper hits
    follow in their first-pass order, below the pool. Rescoring the pool instead of
    searching again measured the same nDCG@10 (BENCHMARKS.md) at a fraction of the cost:
    a search per arm costs milliseconds at 200k chunks, the pool's scores well under one.
    ``head`` is the first fused keys, best first; runs of a collection with no chunk in it
    are kept as they are.
    """
    cfg = kb.settings.kb
    pools: dict[str, list[str]] = {}
    for run in runs:
        pool = pools.setdefault(run.collection, [])
        pool.extend(h.chunk_id for h in run.hits[:candidates])
    out: list[Run] = []
    for run in runs:
        coll = run.collection
        mine = [cid for c, cid in head if c == coll]
        pool = list(dict.fromkeys(pools[coll]))
        scored: dict[str, float] | None = None
        if run.stage == "vector" and coll in qvecs and mine:
            got = kb.store.chunk_vectors(
                coll, list(dict.fromkeys(mine[: cfg.feedback_docs] + pool))
            )
            vecs = [got[c] for c in mine[: cfg.feedback_docs] if c in got]
            if vecs:
                vec = rocchio(qvecs[coll], vecs, cfg.feedback_weight)
                scored = {c: float(got[c] @ vec) for c in pool if c in got}
        # A lexical run that matched nothing stays empty: expanding it with the words of
        # chunks only the dense arm found would invent lexical evidence for them.
        elif run.stage == "lexical" and run.hits and coll in analyzers and cfg.feedback_terms:
            ids = mine[: cfg.feedback_lexical_docs]
            recs = kb.store.get_chunks(coll, ids) if ids else {}
            analyzer = analyzers[coll]
            docs = [
                analyzer.terms(recs[c].title) + analyzer.terms(recs[c].text)
                for c in ids
                if c in recs
            ]
            if docs:
                terms = rm3(
                    query_terms(analyzer, query),
                    docs,
                    terms=cfg.feedback_terms,
                    lam=cfg.feedback_lam,
                )
                scored = kb.store.lexical_scores(coll, terms, pool)
        out.append(run if scored is None else _rescored(run, scored))
    return out


def _rescored(run: Run, scored: Mapping[str, float]) -> Run:
    """The pool by its new scores, then the run's deeper hits in order, below them."""
    top = sorted(scored.items(), key=lambda kv: (-kv[1], int(kv[0]) if kv[0].isdigit() else 0))
    floor = min((s for _, s in top), default=0.0)
    rest = [h for h in run.hits if h.chunk_id not in scored]
    step = 1e-6 * (abs(floor) or 1.0)
    hits = [Hit(c, s) for c, s in top] + [
        Hit(h.chunk_id, floor - step * (i + 1)) for i, h in enumerate(rest)
    ]
    return Run(run.collection, run.stage, hits)
