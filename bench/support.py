"""Citation support check (issue #10): does a reference support a cited sentence?

    python bench/support.py [--data DIR] [--cross-claims 150] [--proxy cranfield]
                            [--proxy-queries 100] [--speed-pairs 40]

SciFact (Wadden et al., EMNLP 2020; ../shared/datasets/scifact) pairs a claim with the
abstracts that support or contradict it. For every claim:

* positive: claim + a judged-relevant abstract (test: the BEIR qrels; train: the abstracts
  named as evidence in queries.jsonl's metadata);
* hard negative: claim + the best BM25-ranked abstract that is not relevant (bm25s, Lucene
  k1=0.9 b=0.4, English stemming, over title + text);
* easy negative: claim + a random abstract (seeded).

The logistic models of ``unifind.agent._support_model`` are fitted on the TRAIN claims (the
queries outside the test qrels that carry evidence) and their thresholds chosen there
(max F1, negatives pooled); everything reported is on the TEST claims (the 300 of the BEIR
qrels), which nothing was fitted on. The cross-encoder reads ``--cross-claims`` claims of
each split (it costs ~30 ms a window on one core). The report uses the coefficients stored
in the code and prints freshly fitted ones next to them; paste those into
``_support_model.py`` when they differ. ``--proxy`` repeats the test on another collection
(queries + qrels, not claims + evidence: a weaker proxy) with the SciFact-fitted models.
Writes bench/results/support.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: the machine is shared

import numpy as np
from _datasets import Dataset, Doc, default_root, load_dataset, require_root
from _rerank import CachedReranker

from unifind.agent._support_features import FeatureExtractor, Features, split_sentences
from unifind.agent._support_model import MODELS, MODES, LogisticModel, SupportMode
from unifind.embed.base import Embedder, Reranker, resolve_embedder, resolve_reranker
from unifind.embed.cached import CachedEmbedder

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".cache"
RESULTS = ROOT / "bench" / "results" / "support.md"
KINDS = ("pos", "hard", "easy")


@dataclass(frozen=True)
class Claim:
    qid: str
    text: str
    relevant: dict[str, str]
    """Abstract id → SUPPORT / CONTRADICT / NEI (cited in the qrels without a rationale)."""


@dataclass(frozen=True)
class Pair:
    claim: Claim
    doc: Doc
    kind: str
    """pos, hard or easy."""

    @property
    def label(self) -> str:
        return self.claim.relevant.get(self.doc.doc_id, "-")


# -- data ----------------------------------------------------------------------------------


def scifact(root: Path) -> tuple[Dataset, list[Claim], list[Claim]]:
    """The corpus, the TRAIN claims (evidence in metadata) and the TEST claims (qrels)."""
    ds = load_dataset(root, "scifact")
    train, test = [], []
    with (root / "scifact" / "queries.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            qid, meta = str(row["_id"]), row.get("metadata") or {}
            labels = {d: ev[0]["label"] for d, ev in meta.items() if ev}
            if qid in ds.qrels:
                rel = {d: labels.get(d, "NEI") for d, g in ds.qrels[qid].items() if g > 0}
                test.append(Claim(qid, row["text"], rel))
            elif labels:
                train.append(Claim(qid, row["text"], labels))
    return ds, train, test


def proxy_claims(ds: Dataset, n: int) -> list[Claim]:
    """A retrieval collection's queries as 'claims', their relevant documents as evidence."""
    out = []
    for qid in list(ds.queries)[:n]:
        rel = {d: "REL" for d, g in ds.qrels[qid].items() if g > 0}
        if rel:
            out.append(Claim(qid, ds.queries[qid], rel))
    return out


class BM25:
    """bm25s with the Lucene formula and parameters over title + text (as bench/_eval.py)."""

    def __init__(self, docs: Sequence[Doc]) -> None:
        import bm25s
        import Stemmer

        self.docs, self.stemmer = list(docs), Stemmer.Stemmer("english")
        corpus = [d.full_text for d in self.docs]
        self.index = bm25s.BM25(method="lucene", k1=0.9, b=0.4)
        tokens = bm25s.tokenize(corpus, stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.index.index(tokens, show_progress=False)

    def top(self, texts: Sequence[str], k: int = 20) -> list[list[Doc]]:
        import bm25s

        q = bm25s.tokenize(list(texts), stopwords="en", stemmer=self.stemmer, return_ids=False,
                           show_progress=False)  # fmt: skip
        k = min(k, len(self.docs))  # bm25s refuses a k above the corpus size
        idx, _ = self.index.retrieve(q, k=k, show_progress=False, n_threads=1)
        return [[self.docs[int(i)] for i in row] for row in idx]


def build_pairs(docs: Sequence[Doc], bm25: BM25, claims: Sequence[Claim], seed: int) -> list[Pair]:
    """Positives, one hard and one easy negative per claim."""
    by_id = {d.doc_id: d for d in docs}
    rng = random.Random(seed)
    tops = bm25.top([c.text for c in claims])
    out: list[Pair] = []
    for claim, top in zip(claims, tops, strict=True):
        out += [Pair(claim, by_id[d], "pos") for d in claim.relevant if d in by_id]
        hard = next((d for d in top if d.doc_id not in claim.relevant), None)
        if hard is not None:
            out.append(Pair(claim, hard, "hard"))
        easy = rng.choice(docs)
        while easy.doc_id in claim.relevant or (hard is not None and easy is hard):
            easy = rng.choice(docs)
        out.append(Pair(claim, easy, "easy"))
    return out


def long_pairs(pairs: Sequence[Pair], fillers: int, seed: int) -> list[Pair]:
    """Each pair's abstract at a random place among ``fillers`` other abstracts of the set:
    a long reference (a web page, a big chunk) of which only a part is the evidence."""
    rng = random.Random(seed)
    pool = list({p.doc.doc_id: p.doc for p in pairs}.values())
    out = []
    for p in pairs:
        skip = {*p.claim.relevant, p.doc.doc_id}
        parts = [d for d in rng.sample(pool, fillers + 4) if d.doc_id not in skip][:fillers]
        parts.insert(rng.randrange(len(parts) + 1), p.doc)
        text = "\n".join(f"{d.title}\n{d.text}" for d in parts)
        out.append(Pair(p.claim, Doc(p.doc.doc_id, "", text), p.kind))
    return out


# -- features ------------------------------------------------------------------------------


@dataclass
class Row:
    pair: Pair
    f: Features
    singles: float
    """Best cosine over single sentences only (the ablation of pair windows and title)."""
    doc_cos: float | None = None
    """Cosine with the whole abstract embedded as one passage (subsample only)."""


def featurise(
    pairs: Sequence[Pair], emb: Embedder, cross: Reranker | None, cross_qids: set[str],
    whole_doc: bool = False,
) -> list[Row]:  # fmt: skip
    plain, with_cross = FeatureExtractor(emb), FeatureExtractor(emb, cross)
    rows = []
    t0 = time.perf_counter()
    for i, p in enumerate(pairs):
        ex = with_cross if cross is not None and p.claim.qid in cross_qids else plain
        f = ex.features(p.claim.text, p.doc.text, title=p.doc.title)
        n = len(split_sentences(p.doc.text))
        sims = ex.cosines(p.claim.text, p.doc.text, title=p.doc.title)
        row = Row(p, f, float(sims[: max(n, 1)].max()))
        if whole_doc and p.claim.qid in cross_qids:
            vec = emb.embed_documents([p.doc.full_text])[0]
            row.doc_cos = float(vec @ emb.embed_documents([p.claim.text])[0])
        rows.append(row)
        if (i + 1) % 200 == 0:
            print(f"  {i + 1}/{len(pairs)} pairs, {time.perf_counter() - t0:.0f} s", flush=True)
    return rows


def matrix(rows: Sequence[Row], mode: SupportMode) -> np.ndarray:
    cols = {"lexical": ["lexical"], "embed": ["lexical", "embed"],
            "cross": ["lexical", "embed", "cross"]}[mode]  # fmt: skip
    return np.array([[float(getattr(r.f, c) or 0.0) for c in cols] for r in rows])


# -- statistics ----------------------------------------------------------------------------


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """ROC AUC as the Mann-Whitney statistic (ties count one half)."""
    if not pos or not neg:
        return float("nan")
    ranks = _ranks(np.array([*pos, *neg]))
    r_pos = ranks[: len(pos)].sum()
    return float((r_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def _ranks(x: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return np.asarray(rankdata(x, method="average"))


def bootstrap_auc(
    rows: Sequence[Row], p: np.ndarray, neg: str, n: int = 1000
) -> tuple[float, float]:
    """95 % interval of AUC pos vs ``neg``, resampling claims with replacement (seeded)."""
    rng = np.random.default_rng(11)
    by_claim: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_claim.setdefault(r.pair.claim.qid, []).append(i)
    groups = list(by_claim.values())
    kinds = np.array([r.pair.kind for r in rows])
    stats = []
    for _ in range(n):
        idx = np.concatenate([groups[g] for g in rng.integers(0, len(groups), len(groups))])
        stats.append(auc(list(p[idx][kinds[idx] == "pos"]), list(p[idx][kinds[idx] == neg])))
    lo, hi = np.nanpercentile(stats, [2.5, 97.5])
    return float(lo), float(hi)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Bias and weights by Newton's method (IRLS) with a small ridge for stability."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(xb @ w, -60, 60)))
        grad = xb.T @ (p - y) + l2 * np.r_[0, w[1:]]
        hess = xb.T @ (xb * (p * (1 - p))[:, None]) + l2 * np.diag(np.r_[0, np.ones(len(w) - 1)])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def best_f1_threshold(p: np.ndarray, y: np.ndarray) -> float:
    best, best_t = -1.0, 0.5
    for t in np.unique(np.round(p, 3)):
        pred = p >= t
        tp = float((pred & (y == 1)).sum())
        f1 = 2 * tp / max(1.0, pred.sum() + (y == 1).sum())
        if f1 > best:
            best, best_t = f1, float(t)
    return best_t


def prf(p: np.ndarray, y: np.ndarray, t: float) -> tuple[float, float, float]:
    pred = p >= t
    tp = float((pred & (y == 1)).sum())
    prec = tp / max(1.0, float(pred.sum()))
    rec = tp / max(1.0, float((y == 1).sum()))
    return prec, rec, 2 * prec * rec / max(1e-9, prec + rec)


def pr_points(p: np.ndarray, y: np.ndarray, recalls: Sequence[float]) -> list[float]:
    """Best precision at each recall level or above (the interpolated PR curve)."""
    order = np.argsort(-p, kind="stable")
    hits = np.cumsum(y[order] == 1)
    prec = hits / np.arange(1, len(p) + 1)
    rec = hits / max(1, int((y == 1).sum()))
    return [float(prec[rec >= r].max()) if (rec >= r).any() else 0.0 for r in recalls]


def average_precision(p: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(-p, kind="stable")
    hits = np.cumsum(y[order] == 1)
    prec = hits / np.arange(1, len(p) + 1)
    return float((prec * (y[order] == 1)).sum() / max(1, int((y == 1).sum())))


# -- evaluation ----------------------------------------------------------------------------

RECALLS = (0.5, 0.7, 0.8, 0.9, 0.95)


def _labels(rows: Sequence[Row]) -> np.ndarray:
    return np.array([1 if r.pair.kind == "pos" else 0 for r in rows])


def _rows_for(rows: Sequence[Row], mode: SupportMode) -> list[Row]:
    return [r for r in rows if mode != "cross" or r.f.cross is not None]


def fit_modes(train: Sequence[Row]) -> dict[SupportMode, LogisticModel]:
    """A fresh fit of every mode on the train rows (threshold: max F1 there)."""
    out: dict[SupportMode, LogisticModel] = {}
    for mode in MODES:
        rows = _rows_for(train, mode)
        x, y = matrix(rows, mode), _labels(rows)
        w = fit_logistic(x, y)
        names = ["lexical", "embed", "cross"][: x.shape[1]]
        model = LogisticModel(
            float(w[0]), **{n: float(v) for n, v in zip(names, w[1:], strict=True)}
        )
        p = np.array([model.probability(r.f) for r in rows])
        out[mode] = LogisticModel(**{**model.__dict__, "threshold": best_f1_threshold(p, y)})
    return out


def feature_aucs(rows: Sequence[Row]) -> list[tuple[str, int, float, float, float, float]]:
    """ROC AUC of each raw feature: (name, pairs, then as :func:`_aucs`)."""
    feats = {
        "lexical overlap (today's check)": lambda r: r.f.lexical,
        "embed: best window (sentences, pairs, title)": lambda r: r.f.embed,
        "embed: best single sentence": lambda r: r.singles,
        "embed: whole reference as one passage": lambda r: r.doc_cos,
        "cross-encoder: best of top-3 windows": lambda r: r.f.cross,
    }
    out = []
    for name, get in feats.items():
        have = [r for r in rows if get(r) is not None]
        if have:
            out.append((name, len(have), *_aucs(have, [float(get(r)) for r in have])))
    return out


def _aucs(rows: Sequence[Row], scores: Sequence[float]) -> tuple[float, float, float, float]:
    """AUC pos vs hard, pos vs easy, then pos vs hard with only the positives SciFact gives
    rationale sentences for (SUPPORT or CONTRADICT), and with SUPPORT positives only."""
    by = {k: [s for r, s in zip(rows, scores, strict=True) if r.pair.kind == k] for k in KINDS}
    pos = [(r.pair.label, s) for r, s in zip(rows, scores, strict=True) if r.pair.kind == "pos"]
    rationale = [s for lab, s in pos if lab in ("SUPPORT", "CONTRADICT", "REL")]
    supports = [s for lab, s in pos if lab in ("SUPPORT", "REL")]
    hard = by["hard"]
    return (
        auc(by["pos"], hard),
        auc(by["pos"], by["easy"]),
        auc(rationale, hard),
        auc(supports, hard),
    )


@dataclass
class ModeResult:
    mode: str
    pairs: int
    claims: int
    auc_hard: float
    auc_easy: float
    auc_hard_rationale: float
    auc_hard_support: float
    ap: float
    prf: tuple[float, float, float]
    pr_hard: list[float]
    pr_easy: list[float]
    brier: float
    by_label: dict[str, tuple[int, float]]
    ci_hard: tuple[float, float] = (float("nan"), float("nan"))
    ci_easy: tuple[float, float] = (float("nan"), float("nan"))


def evaluate(rows: Sequence[Row], mode: SupportMode, model: LogisticModel) -> ModeResult:
    rows = _rows_for(rows, mode)
    p = np.array([model.probability(r.f) for r in rows])
    y = _labels(rows)
    hard = np.array([r.pair.kind != "easy" for r in rows])
    easy = np.array([r.pair.kind != "hard" for r in rows])
    labels: dict[str, tuple[int, float]] = {}
    for lab in sorted({r.pair.label for r in rows if r.pair.kind == "pos"}):
        sel = np.array([r.pair.kind == "pos" and r.pair.label == lab for r in rows])
        labels[lab] = (int(sel.sum()), float((p[sel] >= model.threshold).mean()))
    return ModeResult(
        mode, len(rows), len({r.pair.claim.qid for r in rows}),
        *_aucs(rows, list(p)), average_precision(p, y), prf(p, y, model.threshold),
        pr_points(p[hard], y[hard], RECALLS), pr_points(p[easy], y[easy], RECALLS),
        float(((p - y) ** 2).mean()), labels,
        bootstrap_auc(rows, p, "hard"), bootstrap_auc(rows, p, "easy"),
    )  # fmt: skip


def train_cv(rows: Sequence[Row], k: int = 5) -> list[tuple[str, int, float, float]]:
    """Out-of-fold AUCs of logistic models on feature subsets, folds by claim (train only)."""
    sets: list[tuple[str, tuple[str, ...], bool]] = [
        ("lexical", ("lexical",), False), ("embed", ("embed",), False),
        ("lexical + embed", ("lexical", "embed"), False),
        ("lexical + embed (cross subset)", ("lexical", "embed"), True),
        ("cross (cross subset)", ("cross",), True),
        ("lexical + embed + cross (cross subset)", ("lexical", "embed", "cross"), True),
    ]  # fmt: skip
    out = []
    for name, cols, sub in sets:
        use = [r for r in rows if not sub or r.f.cross is not None]
        qids = sorted({r.pair.claim.qid for r in use})
        fold = {q: i % k for i, q in enumerate(qids)}
        x = np.array([[float(getattr(r.f, c) or 0.0) for c in cols] for r in use])
        y, score = _labels(use), np.zeros(len(use))
        for f in range(k):
            test = np.array([fold[r.pair.claim.qid] == f for r in use])
            w = fit_logistic(x[~test], y[~test])
            score[test] = np.hstack([np.ones((int(test.sum()), 1)), x[test]]) @ w
        out.append((name, len(use), *_aucs(use, list(score))[:2]))
    return out


# -- speed ---------------------------------------------------------------------------------


def speed(pairs: Sequence[Pair], n: int) -> dict[str, tuple[float, float]]:
    """ms p50 per cited sentence for each mode: cold (the reference's windows embedded for
    this sentence) and warm (a second sentence citing the same reference)."""
    emb = resolve_embedder("bge-small-en-v1.5")
    cross = resolve_reranker("cross-encoder")
    emb.embed_documents(["warm up"]), cross.score("warm", ["up"])
    sample = [p for p in pairs if p.kind == "pos"][:n]
    others = [p.claim.text for p in pairs if p.kind == "easy"][:n]
    out = {}
    for mode in MODES:
        cold, warm = [], []
        for p, other in zip(sample, others, strict=False):
            ex = FeatureExtractor(emb if mode != "lexical" else None,
                                  cross if mode == "cross" else None)  # fmt: skip
            t = time.perf_counter()
            MODELS[mode].probability(ex.features(p.claim.text, p.doc.text, title=p.doc.title))
            cold.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            MODELS[mode].probability(ex.features(other, p.doc.text, title=p.doc.title))
            warm.append((time.perf_counter() - t) * 1000)
        out[mode] = (statistics.median(cold), statistics.median(warm))
    return out


# -- report --------------------------------------------------------------------------------


def _f(x: float) -> str:
    return "—" if x != x else f"{x:.3f}"


def render(
    args: argparse.Namespace, counts: dict[str, dict[str, int]],
    feats: list[tuple[str, int, float, float, float, float]],
    fitted: dict[SupportMode, LogisticModel], results: list[ModeResult],
    speeds: dict[str, tuple[float, float]], proxy: list[ModeResult],
    cv: list[tuple[str, int, float, float]],
    long: tuple[list[tuple[str, int, float, float, float, float]], ModeResult],
) -> str:  # fmt: skip
    cmd = "python bench/support.py " + " ".join(sys.argv[1:])
    out = [
        "# Citation support check (issue #10)", "",
        f"`{cmd.strip()}` ({time.strftime('%Y-%m-%d')}, one core, OMP_NUM_THREADS=1).", "",
        "Pairs (claims): " + "; ".join(
            f"{split} {c['pos']} pos / {c['hard']} hard / {c['easy']} easy ({c['claims']} claims)"
            for split, c in counts.items()
        ) + f". Cross-encoder on {args.cross_claims} claims of each split.", "",
        "## Raw features, SciFact test (ROC AUC; not fitted)", "",
        "Positives as the issue defines them: every BEIR-qrels abstract of the claim. "
        f"{results[0].by_label.get('NEI', (0, 0))[0]} of the {counts['test']['pos']} are "
        "abstracts SciFact cites for the claim but gives no rationale sentence "
        "for (NEI): on topic, no evidence. The last two columns keep only the positives with "
        "rationale (SUPPORT or CONTRADICT), then only SUPPORT.", "",
        "| feature | pairs | AUC hard | AUC easy | AUC hard, rationale pos "
        "| AUC hard, SUPPORT pos |",
        "|---|---|---|---|---|---|",
        *[f"| {n} | {k} | {_f(h)} | {_f(e)} | {_f(hr)} | {_f(hs)} |"
          for n, k, h, e, hr, hs in feats], "",
        "5-fold cross-validation on TRAIN (folds by claim), the feature sets compared before "
        "choosing (AUC hard / easy):", "",
        "| features | pairs | AUC hard | AUC easy |", "|---|---|---|---|",
        *[f"| {n} | {k} | {_f(h)} | {_f(e)} |" for n, k, h, e in cv], "",
        "## Calibrated models (coefficients in code), SciFact test", "",
        "Threshold chosen on train (max F1). P/R/F1: positives vs hard + easy negatives "
        "pooled. [a, b]: 95 % bootstrap interval, claims resampled (1,000 times).", "",
        "| mode | pairs | AUC hard | AUC easy | AUC hard, rationale / SUPPORT pos | AP "
        "| P / R / F1 at threshold | Brier |",
        "|---|---|---|---|---|---|---|---|",
        *[f"| {r.mode} | {r.pairs} | {_f(r.auc_hard)} [{_f(r.ci_hard[0])}, {_f(r.ci_hard[1])}] "
          f"| {_f(r.auc_easy)} [{_f(r.ci_easy[0])}, {_f(r.ci_easy[1])}] | "
          f"{_f(r.auc_hard_rationale)} / {_f(r.auc_hard_support)} | {_f(r.ap)} | "
          f"{' / '.join(_f(v) for v in r.prf)} | {_f(r.brier)} |" for r in results], "",
        "PR curve points (best precision at recall ≥ r), test:", "",
        "| mode | negatives | " + " | ".join(f"r={x}" for x in RECALLS) + " |",
        "|---|---|" + "---|" * len(RECALLS),
        *[f"| {r.mode} | {neg} | " + " | ".join(_f(v) for v in pts) + " |"
          for r in results for neg, pts in (("hard", r.pr_hard), ("easy", r.pr_easy))], "",
        "Positives kept (probability ≥ threshold) by SciFact label, test:", "",
        "| mode | " + " | ".join(f"{lab} (n)" for lab in results[0].by_label) + " |",
        "|---|" + "---|" * len(results[0].by_label),
        *[f"| {r.mode} | " + " | ".join(f"{_f(v)} ({n})" for n, v in r.by_label.values()) + " |"
          for r in results], "",
        "## Coefficients", "",
        "| mode | stored (bias, lexical, embed, cross; threshold) | fitted now on train |",
        "|---|---|---|",
        *[f"| {m} | {_coef(MODELS[m])} | {_coef(fitted[m])} |" for m in MODES], "",
        "## Speed per cited sentence (ms p50, real models, no cache)", "",
        "cold: the cited reference's windows are embedded for this sentence; warm: a second "
        "sentence citing the same reference (windows kept for the answer).", "",
        "| mode | cold | warm |", "|---|---|---|",
        *[f"| {m} | {c:.1f} | {w:.1f} |" for m, (c, w) in speeds.items()],
    ]  # fmt: skip
    feats_long, embed_long = long
    out += [
        "", f"## Long references: the abstract among 3 random others ({embed_long.claims} test "
        "claims)", "",
        "The cited reference is ~4 abstracts long (a page, a big chunk); the embedder reads "
        "512 tokens, so one vector of the whole reference may not even see the evidence.", "",
        "| feature | pairs | AUC hard | AUC easy |", "|---|---|---|---|",
        *[f"| {n} | {k} | {_f(h)} | {_f(e)} |" for n, k, h, e, _, _ in feats_long
          if not n.startswith("cross")],
        f"| calibrated `embed` | {embed_long.pairs} | {_f(embed_long.auc_hard)} | "
        f"{_f(embed_long.auc_easy)} |",
    ]  # fmt: skip
    if proxy:
        out += [
            "", f"## Weaker proxy: {args.proxy} (queries + qrels, SciFact-fitted models)", "",
            "| mode | pairs | queries | AUC hard | AUC easy | P / R / F1 at threshold |",
            "|---|---|---|---|---|---|",
            *[f"| {r.mode} | {r.pairs} | {r.claims} | {_f(r.auc_hard)} | {_f(r.auc_easy)} | "
              f"{' / '.join(_f(v) for v in r.prf)} |" for r in proxy],
        ]  # fmt: skip
    return "\n".join(out) + "\n"


def _coef(m: LogisticModel) -> str:
    return f"{m.bias:.3f}, {m.lexical:.3f}, {m.embed:.3f}, {m.cross:.3f}; {m.threshold:.3f}"


def _counts(pairs: Sequence[Pair]) -> dict[str, int]:
    c = {k: sum(p.kind == k for p in pairs) for k in KINDS}
    return {**c, "claims": len({p.claim.qid for p in pairs})}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=default_root())
    ap.add_argument("--cross-claims", type=int, default=150)
    ap.add_argument("--proxy", default="cranfield", help="another set, or '' for none")
    ap.add_argument("--proxy-queries", type=int, default=100)
    ap.add_argument("--speed-pairs", type=int, default=40)
    ap.add_argument("--max-claims", type=int, default=None, help="a quick run (not reported)")
    ap.add_argument("--long-claims", type=int, default=100, help="claims in the long-ref test")
    args = ap.parse_args(argv)
    require_root(args.data, ["scifact"])
    ds, train, test = scifact(args.data)
    train, test = train[: args.max_claims], test[: args.max_claims]
    bm25 = BM25(ds.docs)
    train_pairs = build_pairs(ds.docs, bm25, train, seed=1)
    test_pairs = build_pairs(ds.docs, bm25, test, seed=2)
    emb = CachedEmbedder(resolve_embedder("bge-small-en-v1.5"), CACHE / "support-vectors.sqlite")
    cross = CachedReranker(resolve_reranker("cross-encoder"), CACHE / "support-cross.sqlite")
    rng = random.Random(7)
    pick = lambda cs: {c.qid for c in rng.sample(cs, min(args.cross_claims, len(cs)))}  # noqa: E731
    print(f"train {_counts(train_pairs)}, test {_counts(test_pairs)}", flush=True)
    train_rows = featurise(train_pairs, emb, cross, pick(train))
    test_rows = featurise(test_pairs, emb, cross, pick(test), whole_doc=True)
    fitted = fit_modes(train_rows)
    results = [evaluate(test_rows, m, MODELS[m]) for m in MODES]
    proxy: list[ModeResult] = []
    if args.proxy:
        pds = load_dataset(args.data, args.proxy)
        pairs = build_pairs(pds.docs, BM25(pds.docs), proxy_claims(pds, args.proxy_queries), 3)
        rows = featurise(pairs, emb, None, set())
        proxy = [evaluate(rows, m, MODELS[m]) for m in ("lexical", "embed")]
    long_qids = {c.qid for c in random.Random(5).sample(test, min(args.long_claims, len(test)))}
    longs = long_pairs([p for p in test_pairs if p.claim.qid in long_qids], 3, seed=4)
    long_rows = featurise(longs, emb, None, long_qids, whole_doc=True)
    speeds = speed(test_pairs, args.speed_pairs)
    counts = {"train": _counts(train_pairs), "test": _counts(test_pairs)}
    md = render(args, counts, feature_aucs(test_rows), fitted, results, speeds, proxy,
                train_cv(train_rows), (feature_aucs(long_rows), evaluate(long_rows, "embed",
                MODELS["embed"])))  # fmt: skip
    RESULTS.write_text(md, encoding="utf-8")
    print(md)


if __name__ == "__main__":
    main()
