"""Which support score separates a supporting abstract from a topical one (issue #20)?

    python bench/grounding_support.py [--data DIR] [--no-cross]

For every pair of bench/grounding.py's set (a) (SciFact train claims citing a SUPPORT,
CONTRADICT, NEI or random abstract), the support features that were candidates: the
lexical share and best window cosine of the model in the product
(``unifind.agent._support_model``), the claim embedded as a bge *query* (its prefix), the
ms-marco cross-encoder's best logit over the 3 windows the embedder ranks highest, the
IDF-weighted share of the claim's terms in the abstract (IDF over the SciFact corpus), the
share covered by the 2 best windows, the best single-sentence and the title cosine.
Logistic models are fitted on the claims with *even* ids (positives SUPPORT, negatives NEI
and UNRELATED) and reported on both halves: AUC of SUPPORT against NEI, and the share of NEI
pairs flagged at the cut that flags 5 % of the even half's SUPPORT pairs. Prints a table.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: the machine is shared

import numpy as np
from _datasets import default_root
from grounding import Pair, scifact_pairs

from unifind.agent._support_features import FeatureExtractor
from unifind.agent._support_model import MODELS
from unifind.analysis import get_analyzer
from unifind.embed.base import resolve_embedder, resolve_reranker

LABELS = ("SUPPORT", "CONTRADICT", "NEI", "UNRELATED")
COMBOS: tuple[tuple[str, ...], ...] = (
    ("lexical", "cosine"),
    ("lexical", "cosine", "query"),
    ("lexical", "cosine", "cross"),
    ("lexical", "cosine", "idf"),
    ("lexical", "cosine", "cover2"),
    ("lexical", "cosine", "query", "idf"),
)


def features(pairs: Sequence[Pair], idf: dict[str, float], cross: bool) -> list[dict[str, float]]:
    emb = resolve_embedder("bge-small-en-v1.5")
    reranker = resolve_reranker("cross-encoder") if cross else None
    analyzer = get_analyzer("auto")
    out = []
    for p in pairs:
        fx = FeatureExtractor(emb)
        claim = f"{p.claim.rstrip('.')}."
        f = fx.features(claim, p.abstract, title=p.title)
        ref = fx._reference(p.abstract, p.title)
        wins, sims = ref.windows, fx.cosines(claim, p.abstract, title=p.title)
        assert ref.vectors is not None
        query = ref.vectors @ emb.embed_query(claim)
        order = np.argsort(-sims, kind="stable")
        words = set(analyzer.terms(claim))
        ref_terms = set(analyzer.terms(f"{p.title} {p.abstract}"))
        top2 = {t for j in order[:2] for t in analyzer.terms(wins[j])}
        weight = sum(idf.get(t, 0.0) for t in words) or 1.0
        n = len(ref.sentences)
        row = {
            "lexical": f.lexical,
            "cosine": float(sims.max()),
            "query": float(query.max()),
            "idf": sum(idf.get(t, 0.0) for t in words & ref_terms) / weight,
            "cover2": len(words & top2) / max(1, len(words)),
            "sentence": float(sims[:n].max()) if n else 0.0,
            "title": float(sims[-1]) if p.title else 0.0,
        }
        if reranker is not None:
            row["cross"] = max(reranker.score(claim, [wins[j] for j in order[:3]]))
        out.append(row)
    return out


def corpus_idf(root: Path) -> dict[str, float]:
    analyzer = get_analyzer("auto")
    df: Counter[str] = Counter()
    n = 0
    with gzip.open(root / "scifact-claims" / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            df.update(set(analyzer.terms(f"{d['title']} {' '.join(d['abstract'])}")))
            n += 1
    return {t: math.log((n + 1) / (c + 1)) for t, c in df.items()}


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    gt = (pos[:, None] > neg[None, :]).mean()
    return float(gt + 0.5 * (pos[:, None] == neg[None, :]).mean())


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-2) -> np.ndarray:
    """Logistic regression by Newton steps (L2 on the weights, not the bias)."""
    x = np.c_[np.ones(len(x)), x]
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) / len(y) + l2 * np.r_[0, w[1:]]
        hess = (x.T * (p * (1 - p))) @ x / len(y) + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w


def report(pairs: Sequence[Pair], rows: Sequence[dict[str, float]]) -> list[str]:
    def scores(keys: Sequence[str], w: np.ndarray | None, half: int, label: str) -> np.ndarray:
        mine = [r for p, r in zip(pairs, rows, strict=True)
                if p.claim_id % 2 == half and p.label == label]  # fmt: skip
        x = np.array([[r[k] for k in keys] for r in mine])
        if w is None:  # the model in the product
            m = MODELS["embed"]
            z = m.bias + m.lexical * x[:, 0] + m.embed * x[:, 1]
        else:
            z = np.c_[np.ones(len(x)), x] @ w
        out: np.ndarray = 1 / (1 + np.exp(-z))
        return out

    lines = ["| support score | AUC vs NEI, even | odd | NEI flagged (odd) at 5 % of even "
             "SUPPORT flagged |", "|---|---|---|---|"]  # fmt: skip
    keys_all = set(rows[0])
    candidates: list[tuple[str, tuple[str, ...], np.ndarray | None]] = [
        ("the product's model (lexical + cosine)", ("lexical", "cosine"), None)
    ]
    train = [(p, r) for p, r in zip(pairs, rows, strict=True)
             if p.claim_id % 2 == 0 and p.label in ("SUPPORT", "NEI", "UNRELATED")]  # fmt: skip
    y = np.array([p.label == "SUPPORT" for p, _ in train], float)
    for keys in COMBOS:
        if set(keys) <= keys_all:
            fitted = fit(np.array([[r[k] for k in keys] for _, r in train]), y)
            candidates.append(("refit: " + " + ".join(keys), keys, fitted))
    for name, keys, coef in candidates:
        a = [auc(scores(keys, coef, h, "SUPPORT"), scores(keys, coef, h, "NEI")) for h in (0, 1)]
        cut = float(np.quantile(scores(keys, coef, 0, "SUPPORT"), 0.05))
        nei = float((scores(keys, coef, 1, "NEI") < cut).mean())
        lines.append(f"| {name} | {a[0]:.3f} | {a[1]:.3f} | {nei:.1%} |")
    lines += ["", "Single features, AUC of SUPPORT against NEI (even / odd):"]
    for k in sorted(keys_all):
        got = []
        for h in (0, 1):
            s = [r[k] for p, r in zip(pairs, rows, strict=True)
                 if p.claim_id % 2 == h and p.label == "SUPPORT"]  # fmt: skip
            n = [r[k] for p, r in zip(pairs, rows, strict=True)
                 if p.claim_id % 2 == h and p.label == "NEI"]  # fmt: skip
            got.append(auc(np.array(s), np.array(n)))
        lines.append(f"- {k}: {got[0]:.3f} / {got[1]:.3f}")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=default_root())
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--no-cross", action="store_true", help="leave the cross-encoder out")
    args = ap.parse_args(argv)
    pairs = [p for p in scifact_pairs(args.data, args.seed) if p.label in LABELS]
    rows = features(pairs, corpus_idf(args.data), cross=not args.no_cross)
    print("\n".join(report(pairs, rows)))


if __name__ == "__main__":
    main()
