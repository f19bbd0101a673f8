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

if TYPE_CHECKING:
    from unifind.analysis import Analyzer
    from unifind.kb.service import KnowledgeBase
    from unifind.types import SearchRequest

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
    req: SearchRequest,
    query: str,
    runs: Sequence[Run],
    head: Sequence[Key],
    qvecs: Mapping[str, npt.NDArray[np.float32]],
    analyzers: Mapping[str, Analyzer],
    depth: int,
) -> list[Run]:
    """Each collection's runs re-run once with its feedback query (module docstring).

    ``head`` is the first fused keys, best first; ``qvecs`` / ``analyzers`` give each
    collection's query vector and analyser. Runs of a collection with no chunk in the
    head are kept as they are.
    """
    cfg = kb.settings.kb
    out: list[Run] = []
    for run in runs:
        mine = [cid for coll, cid in head if coll == run.collection]
        if run.stage == "vector" and run.collection in qvecs:
            ids = mine[: cfg.feedback_docs]
            got = kb.store.chunk_vectors(run.collection, ids) if ids else {}
            vecs = [got[c] for c in ids if c in got]
            if vecs:
                vec = rocchio(qvecs[run.collection], vecs, cfg.feedback_weight)
                hits = kb.store.vector_search(run.collection, vec, limit=depth, filters=req.filters)
                out.append(Run(run.collection, run.stage, hits))
                continue
        # A lexical run that matched nothing stays empty: expanding it with the words of
        # chunks only the dense arm found would invent lexical evidence for them.
        lexical = run.stage == "lexical" and bool(run.hits) and run.collection in analyzers
        if lexical and cfg.feedback_terms > 0:
            ids = mine[: cfg.feedback_lexical_docs]
            recs = kb.store.get_chunks(run.collection, ids) if ids else {}
            analyzer = analyzers[run.collection]
            docs = [
                analyzer.terms(recs[c].title) + analyzer.terms(recs[c].text)
                for c in ids
                if c in recs
            ]
            terms = rm3(analyzer.terms(query), docs, terms=cfg.feedback_terms, lam=cfg.feedback_lam)
            if docs:
                hits = kb.store.lexical_search(
                    run.collection, terms, limit=depth, filters=req.filters
                )
                out.append(Run(run.collection, run.stage, hits))
                continue
        out.append(run)
    return out
