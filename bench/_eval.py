"""Scoring runs with a real evaluator, and the bm25s reference run.

A *run* maps query id → document id → score (higher first), the TREC run shape that
``ir-measures`` (MacAvaney et al., ECIR 2022) reads; it hands the work to trec_eval's
code (pytrec_eval), so nDCG/MAP match what the published anchors used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from _datasets import Dataset

Run = dict[str, dict[str, float]]

#: The README asks for nDCG@10 and R@100 on every set and MAP on the classic ones.
MEASURES = ("nDCG@10", "R@100", "AP")
LABELS = {"nDCG@10": "nDCG@10", "R@100": "R@100", "AP": "MAP"}

#: Lucene/Anserini BM25 parameters (the README's anchors and our stores use the same).
K1, B = 0.9, 0.4


@dataclass(frozen=True)
class Scores:
    """Mean measures of one run, and nDCG@10 per query (for paired comparisons)."""

    means: dict[str, float]
    ndcg_per_query: dict[str, float]


def ranked_run(ranked: Mapping[str, Sequence[str]]) -> Run:
    """A run from ranked id lists: scores fall with rank so the evaluator keeps our order.

    trec_eval sorts by score and breaks ties by document id, not by the order given, so
    equal scores would silently reorder a list; strictly decreasing scores prevent that.
    """
    return {q: {d: float(len(ids) - i) for i, d in enumerate(ids)} for q, ids in ranked.items()}


def first_occurrence(doc_ids: Iterable[str], depth: int) -> list[str]:
    """Distinct documents in order of their first chunk, cut at ``depth``.

    A document ranks where its best-ranked chunk ranks (MaxP, Dai & Callan, SIGIR 2019).
    """
    out: dict[str, None] = {}
    for d in doc_ids:
        if d not in out:
            out[d] = None
            if len(out) == depth:
                break
    return list(out)


def evaluate(ds: Dataset, run: Run) -> Scores:
    """nDCG@10, R@100 and MAP (the latter reported for classic sets only) over judged queries.

    A query the run left out scores 0, as trec_eval's ``-c`` does: skipping it would
    flatter a system that returns nothing for hard queries.
    """
    import ir_measures

    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    qrels = [ir_measures.Qrel(q, d, rel) for q, docs in ds.qrels.items() for d, rel in docs.items()]
    scored = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    sums = dict.fromkeys(MEASURES, 0.0)
    ndcg: dict[str, float] = dict.fromkeys(ds.qrels, 0.0)
    for m in ir_measures.iter_calc(measures, qrels, scored):
        if m.query_id in ndcg:
            sums[str(m.measure)] += m.value
            if str(m.measure) == "nDCG@10":
                ndcg[m.query_id] = m.value
    n = len(ds.qrels)
    return Scores({k: v / n for k, v in sums.items()}, ndcg)


def bm25s_run(ds: Dataset, depth: int = 100) -> Run:
    """BM25 by ``bm25s`` (Lù, 2024) with Lucene's formula and parameters over title + text.

    English Snowball stemming (PyStemmer) and bm25s's English stopwords, as the README's
    "bm25s BM25" row was measured.
    """
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    corpus = [d.full_text for d in ds.docs]
    index = bm25s.BM25(method="lucene", k1=K1, b=B)
    index.index(bm25s.tokenize(corpus, stopwords="en", stemmer=stemmer, show_progress=False),
                show_progress=False)  # fmt: skip
    qids = list(ds.queries)
    # Tokens as strings (return_ids=False): retrieve maps them onto the index vocabulary;
    # terms the corpus never saw simply score nothing.
    qtok = bm25s.tokenize([ds.queries[q] for q in qids], stopwords="en", stemmer=stemmer,
                          return_ids=False, show_progress=False)  # fmt: skip
    k = min(depth, len(corpus))
    idx, _ = index.retrieve(qtok, k=k, show_progress=False, n_threads=1)
    ids = [d.doc_id for d in ds.docs]
    return ranked_run({q: [ids[int(i)] for i in row] for q, row in zip(qids, idx, strict=True)})


def paired_p(a: dict[str, float], b: dict[str, float]) -> float:
    """Two-sided paired t-test p-value of per-query scores (Smucker et al., CIKM 2007)."""
    from scipy import stats

    qs = sorted(a.keys() & b.keys())
    if len(qs) < 2 or all(a[q] == b[q] for q in qs):
        return 1.0
    return float(stats.ttest_rel([a[q] for q in qs], [b[q] for q in qs]).pvalue)
