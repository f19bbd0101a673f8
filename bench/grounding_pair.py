"""Does a learned pair classifier on the sentence embeddings separate support, contradiction
and flips (issue #20, round 5)?

    python bench/grounding_pair.py [--data DIR] [--cache FILE] [--verdicts FILE] [--out FILE]

No NLI model runs offline (../shared/models.md). The support score in the product is a
logistic model over two numbers (lexical share, best bge-small window cosine). This tries
the vectors themselves: InferSent-style features of the claim's vector u and the vector v of
the reference window the embedder ranks highest — ``[u, v, |u − v|, u ⊙ v]`` (4 × 384), with
and without the product's two numbers — in an L2-regularised logistic regression (the
penalty chosen by 5-fold cross-validation grouped by claim, inside the training half only).

Data: bench/grounding.py's set (a) (SciFact TRAIN claims citing a SUPPORT, CONTRADICT, NEI
or random abstract) and flips of every SUPPORT claim by bench/_grounding_sets.py's generator
(number, unit, negation, direction, entity; the flipped claim cites the same abstract).
Every model is fitted on the claims of one half (even ids) and scored on the other (odd
ids), and the reverse. Tasks:

1. SUPPORT against NEI + UNRELATED (the support score's job); reported: AUC of SUPPORT
   against NEI, and SUPPORT flagged at the NEI-flagged rate of the product's cut;
2. CONTRADICT against SUPPORT (the dataset's own contradictions);
3. flipped against original claims. A classifier fitted on flips may learn the generator
   (an inserted "not", an odd word), so (3) is always shown next to (2): a model trained on
   flips is scored on the real contradictions too.

With ``--verdicts`` the rules' verdicts of every pair (bench/grounding.py's ``judge``, the
product as it is) are computed once and kept in that file; the report then gives the
combined figure: CONTRADICT flagged and SUPPORT called contradicted when a pair the
classifier scores above a cut (chosen on the training half: the cut at which it flags 1 %
of that half's SUPPORT pairs the rules pass) is called contradicted too.

Writes the report to ``--out`` (default bench/results/gnli-grounding-pair.md). Vectors are those
of the product (``FeatureExtractor``); ``--cache`` keeps them on disk between runs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: the machine is shared

import numpy as np
from _datasets import default_root
from _grounding_sets import flip
from grounding import Pair, scifact_pairs
from scipy.optimize import minimize

from unifind.agent._support_features import FeatureExtractor
from unifind.agent._support_model import MODELS
from unifind.embed.base import Embedder, resolve_embedder
from unifind.embed.cached import CachedEmbedder

ROOT = Path(__file__).resolve().parent.parent
LABELS = ("SUPPORT", "CONTRADICT", "NEI", "UNRELATED")
FLIP_KINDS = ("number", "unit", "negation", "direction", "entity")
LAMBDAS = (1e-4, 1e-3, 1e-2, 1e-1, 0.3, 1.0, 3.0, 10.0, 30.0)


@dataclass
class Row:
    pair: Pair
    u: np.ndarray
    """The claim's vector (bge-small, as the product embeds it)."""
    v: np.ndarray
    """The vector of the reference window with the best cosine to the claim."""
    lexical: float
    cosine: float
    product: float
    """The product's support probability from these two numbers."""
    verdict: str | None = None
    """The rules' verdict of the pair (bench/grounding.py's judge), when computed."""
    window: str = ""
    """That window's text."""
    gold: np.ndarray | None = None
    """The vector of the pair's first rationale (its evidence sentences joined: SUPPORT and
    CONTRADICT pairs, and the flips of a SUPPORT pair); None for NEI and UNRELATED."""
    gold_text: tuple[str, ...] = ()


def key(p: Pair) -> str:
    return hashlib.sha256(f"{p.claim}\x00{p.title}\x00{p.abstract}".encode()).hexdigest()[:24]


def build_pairs(root: Path, seed: int) -> tuple[list[Pair], list[Pair]]:
    pairs = [p for p in scifact_pairs(root, seed) if p.label in LABELS]
    donors = [p.abstract for p in pairs if p.label != "NEI"]  # as set (b) of grounding.py
    flips = [Pair(text, p.title, p.abstract, kind, p.claim_id)
             for p in pairs if p.label == "SUPPORT"
             for kind, text in flip(p.claim, p.abstract, donors, seed)]  # fmt: skip
    return pairs, flips


def embed_rows(pairs: Sequence[Pair], emb: Embedder) -> list[Row]:
    fx = FeatureExtractor(emb)
    model = MODELS["embed"]
    out = []
    for p in pairs:
        claim = f"{p.claim.rstrip('.')}."  # as bench/grounding.py's judge writes it
        f = fx.features(claim, p.abstract, title=p.title)
        sims = fx.cosines(claim, p.abstract, title=p.title)
        ref = fx._reference(p.abstract, p.title)
        assert ref.vectors is not None and fx._claim is not None
        j = int(np.argmax(sims))
        out.append(Row(p, fx._claim[1].astype(np.float64), ref.vectors[j].astype(np.float64),
                       f.lexical, float(f.embed or 0.0), model.probability(f),
                       window=ref.windows[j]))  # fmt: skip
    return out


def add_gold(rows: Sequence[Row], root: Path, emb: Embedder) -> None:
    """Each SUPPORT / CONTRADICT pair's (and its flips') first rationale, embedded."""
    import gzip

    folder = root / "scifact-claims"
    with gzip.open(folder / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        corpus = {d["doc_id"]: d for d in map(json.loads, f)}
    gold: dict[tuple[int, str], tuple[str, ...]] = {}
    for line in (folder / "claims_train.jsonl").read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        for doc_id, rationales in c["evidence"].items():
            doc = corpus[int(doc_id)]
            sents = tuple(doc["abstract"][i].strip() for i in rationales[0]["sentences"])
            gold[(c["id"], doc["title"])] = sents
    for r in rows:
        if r.pair.label not in ("NEI", "UNRELATED") and (r.pair.claim_id, r.pair.title) in gold:
            r.gold_text = gold[(r.pair.claim_id, r.pair.title)]
            r.gold = emb.embed_documents([" ".join(r.gold_text)])[0].astype(np.float64)


def window_holds_evidence(rows: Sequence[Row]) -> list[str]:
    """How often the best window (what the classifier reads) holds a rationale sentence."""
    out = []
    for label in ("SUPPORT", "CONTRADICT"):
        mine = [r for r in rows if r.pair.label == label and r.gold_text]
        hit = sum(any(g[:80] in r.window for g in r.gold_text) for r in mine)
        out.append(f"{label} {rate(hit, len(mine))}")
    return ["The best window holds a sentence of the pair's first rationale: " + "; ".join(out)]


def pair_features(rows: Sequence[Row], kind: str, fitting: bool = False) -> np.ndarray:
    """``kind``: base, claim, pair, pair+base, diff+base; "/pcaK" or "/mlpK" after it says
    how it is fitted; "gold:" before it reads each pair's rationale instead of its best
    window (an oracle: the product never knows it), "goldfit:" only when fitting."""
    gold = kind.startswith("gold:") or (fitting and kind.startswith("goldfit:"))
    kind = kind.split(":")[-1].split("/")[0]
    u = np.array([r.u for r in rows])
    v = np.array([r.gold if gold and r.gold is not None else r.v for r in rows])
    base = np.array([[r.lexical, r.cosine] for r in rows])
    if kind == "base":
        return base
    if kind == "claim":  # the claim alone: what a pair model must beat to be reading the pair
        return u
    vecs = np.concatenate([u, v, np.abs(u - v), u * v], axis=1)
    if kind == "pair":
        return vecs
    if kind == "pair+base":
        return np.concatenate([vecs, base], axis=1)
    if kind == "diff+base":  # the smaller set: only what differs between claim and window
        return np.concatenate([np.abs(u - v), u * v, base], axis=1)
    raise ValueError(kind)


# -- the classifier -------------------------------------------------------------------------


@dataclass
class Logistic:
    mean: np.ndarray
    scale: np.ndarray
    w: np.ndarray
    b: float
    l2: float
    proj: np.ndarray | None = None
    """PCA of the vector columns (all but the last :data:`KEEP`), fitted on the training rows."""
    hidden: np.ndarray | None = None
    """A tiny MLP's first layer (inputs × units, bias last row); None: linear."""

    def inputs(self, x: np.ndarray) -> np.ndarray:
        xs = (x - self.mean) / self.scale
        if self.proj is not None:
            xs = np.c_[xs[:, : self.proj.shape[0]] @ self.proj, xs[:, self.proj.shape[0] :]]
        if self.hidden is not None:
            xs = np.tanh(np.c_[xs, np.ones(len(xs))] @ self.hidden)
        return xs

    def score(self, x: np.ndarray) -> np.ndarray:
        z = self.inputs(x) @ self.w + self.b
        out: np.ndarray = 1 / (1 + np.exp(-np.clip(z, -60, 60)))
        return out


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float, how: str = "") -> Logistic:
    """L2-regularised logistic regression on standardised features, classes weighted to
    balance (L-BFGS). ``how``: "" linear; "pcaK" the vector columns reduced to their K
    first principal components first; "mlpK" one hidden layer of K tanh units."""
    mean, scale = x.mean(0), x.std(0) + 1e-6
    model = Logistic(mean, scale, np.zeros(0), 0.0, l2)
    xs = (x - mean) / scale
    if how.startswith("pca"):
        k, vec = int(how[3:]), x.shape[1] - KEEP.get(x.shape[1], 0)
        _, _, vt = np.linalg.svd(xs[:, :vec], full_matrices=False)
        model.proj = vt[:k].T
        xs = model.inputs(x)
    pos = y.mean()
    sw = np.where(y == 1, 0.5 / pos, 0.5 / (1 - pos))
    n, d = xs.shape
    units = int(how[3:]) if how.startswith("mlp") else 0
    rng = np.random.default_rng(3)
    size = (d + 1) * units

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        if units:
            w1 = theta[:size].reshape(d + 1, units)
            xb = np.c_[xs, np.ones(n)]
            h = np.tanh(xb @ w1)
            rest = theta[size:]
        else:
            h, rest = xs, theta
        w, b = rest[:-1], rest[-1]
        z = h @ w + b
        p = 1 / (1 + np.exp(-np.clip(z, -60, 60)))
        ll = sw * (np.logaddexp(0, z) - y * z)
        g = sw * (p - y) / n
        f = ll.sum() / n + 0.5 * l2 * (w @ w)
        grad_rest = np.r_[h.T @ g + l2 * w, g.sum()]
        if not units:
            return float(f), grad_rest
        f += 0.5 * l2 * float((w1[:-1] ** 2).sum())
        dh = np.outer(g, w) * (1 - h**2)
        g1 = xb.T @ dh
        g1[:-1] += l2 * w1[:-1]
        return float(f), np.r_[g1.ravel(), grad_rest]

    start = np.zeros(size + units + 1 if units else d + 1)
    if units:
        start[:size] = rng.normal(0, 1 / np.sqrt(d), size)
        start[size:-1] = rng.normal(0, 1 / np.sqrt(units), units)
    res = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    if units:
        model.hidden = res.x[:size].reshape(d + 1, units)
        model.w, model.b = res.x[size:-1], float(res.x[-1])
    else:
        model.w, model.b = res.x[:-1], float(res.x[-1])
    return model


#: Feature widths whose last columns are scalar features kept out of a PCA (``pair+base``).
KEEP = {4 * 384 + 2: 2}


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    if not len(pos) or not len(neg):
        return float("nan")
    gt = (pos[:, None] > neg[None, :]).mean()
    return float(gt + 0.5 * (pos[:, None] == neg[None, :]).mean())


def choose_l2(
    x: np.ndarray, y: np.ndarray, groups: np.ndarray, how: str = ""
) -> tuple[float, np.ndarray]:
    """The penalty with the best mean AUC over 5 folds of claims (training half only), and
    each row's out-of-fold score at that penalty (a cut is chosen on those, never on the
    scores of the rows a model was fitted on)."""
    ids = np.unique(groups)
    rng = np.random.default_rng(7)
    fold_of = dict(zip(ids, rng.permutation(len(ids)) % 5, strict=True))
    folds = np.array([fold_of[g] for g in groups])
    best, best_auc, best_oof = LAMBDAS[0], -1.0, np.zeros(len(y))
    for l2 in LAMBDAS:
        got, oof = [], np.zeros(len(y))
        for k in range(5):
            tr, te = folds != k, folds == k
            if len(set(y[tr])) < 2 or len(set(y[te])) < 2:
                continue
            s = fit_logistic(x[tr], y[tr], l2, how).score(x[te])
            oof[te] = s
            got.append(auc(s[y[te] == 1], s[y[te] == 0]))
        if got and float(np.mean(got)) > best_auc:
            best, best_auc, best_oof = l2, float(np.mean(got)), oof
    return best, best_oof


# -- the report -----------------------------------------------------------------------------

TASKS: dict[str, tuple[Callable[[Row], bool], Callable[[Row], bool]]] = {
    # name: (positive, negative) among set (a) rows and flips
    "support": (lambda r: r.pair.label == "SUPPORT",
                lambda r: r.pair.label in ("NEI", "UNRELATED")),
    "contradict": (lambda r: r.pair.label == "CONTRADICT", lambda r: r.pair.label == "SUPPORT"),
    "flips": (lambda r: r.pair.label in FLIP_KINDS, lambda r: r.pair.label == "SUPPORT"),
    "contradict+flips": (lambda r: r.pair.label in ("CONTRADICT", *FLIP_KINDS),
                         lambda r: r.pair.label == "SUPPORT"),
}  # fmt: skip


def half(rows: Sequence[Row], h: int) -> list[Row]:
    return [r for r in rows if r.pair.claim_id % 2 == h]


_FITTED: dict[tuple[str, str, int], tuple[Logistic, dict[str, float]]] = {}


def train(rows: Sequence[Row], task: str, feats: str, h: int) -> Logistic:
    return trained(rows, task, feats, h)[0]


def trained(
    rows: Sequence[Row], task: str, feats: str, h: int
) -> tuple[Logistic, dict[str, float]]:
    """The model of ``task`` fitted on half ``h``, and the out-of-fold score of each of that
    half's rows (by :func:`key`)."""
    if (task, feats, h) not in _FITTED:
        pos, neg = TASKS[task]
        mine = [r for r in half(rows, h) if pos(r) or neg(r)]
        x = pair_features(mine, feats, fitting=True)
        y = np.array([pos(r) for r in mine], float)
        groups = np.array([r.pair.claim_id for r in mine])
        how = feats.split("/")[1] if "/" in feats else ""
        l2, oof = choose_l2(x, y, groups, how)
        oof_by = {key(r.pair): float(s) for r, s in zip(mine, oof, strict=True)}
        _FITTED[(task, feats, h)] = (fit_logistic(x, y, l2, how), oof_by)
    return _FITTED[(task, feats, h)]


def scores(model: Logistic | None, rows: Sequence[Row], feats: str) -> np.ndarray:
    if not rows:
        return np.zeros(0)
    if model is None:  # the product's support probability (higher = more support)
        return np.array([r.product for r in rows])
    return model.score(pair_features(rows, feats))


_NEGATOR = re.compile(
    r"\b(?:not|no|never|cannot|without|fails?|failed|lacks?|neither|nor)\b"
    r"|n't\b",
    re.I,
)


def negated(r: Row) -> float:
    """1 when the claim holds a negator: the artefact a classifier of flips may learn."""
    return float(bool(_NEGATOR.search(r.pair.claim)))


def of(rows: Sequence[Row], *labels: str) -> list[Row]:
    return [r for r in rows if r.pair.label in labels]


def rate(k: int, n: int) -> str:
    return f"{k}/{n} = {k / n:.1%}" if n else "0/0"


def report(rows: list[Row], feats_list: Sequence[str]) -> list[str]:
    out: list[str] = []
    # (1) support
    out += ["### (1) SUPPORT against NEI (fitted on SUPPORT vs NEI + UNRELATED)", "",
            "| score | fitted on | AUC SUPPORT vs NEI, fitted half | other half | "
            "NEI flagged at the product's cut's rate, other half: SUPPORT flagged |",
            "|---|---|---|---|---|"]  # fmt: skip
    for h in (0, 1):
        test = half(rows, 1 - h)
        base_sup, base_nei = (
            scores(None, of(test, "SUPPORT"), ""),
            scores(None, of(test, "NEI"), ""),
        )
        cut = MODELS["embed"].threshold
        nei_rate = float((base_nei < cut).mean())
        sup_rate = float((base_sup < cut).mean())
        a_fit = auc(scores(None, of(half(rows, h), "SUPPORT"), ""),
                    scores(None, of(half(rows, h), "NEI"), ""))  # fmt: skip
        out.append(f"| the product (lexical + cosine, cut {cut}) | — | {a_fit:.3f} | "
                   f"{auc(base_sup, base_nei):.3f} | NEI {nei_rate:.1%}: SUPPORT "
                   f"{sup_rate:.1%} |")  # fmt: skip
        for feats in [f for f in feats_list if not f.startswith("gold")]:  # NEI has no gold
            m = train(rows, "support", feats, h)
            s_sup, s_nei = scores(m, of(test, "SUPPORT"), feats), scores(m, of(test, "NEI"), feats)
            own = half(rows, h)
            a_own = auc(scores(m, of(own, "SUPPORT"), feats), scores(m, of(own, "NEI"), feats))
            # the cut flagging the same share of NEI pairs as the product's (other half)
            c = float(np.quantile(s_nei, nei_rate)) if len(s_nei) else 0.0
            out.append(f"| {feats} (λ {m.l2:g}) | {('even', 'odd')[h]} | {a_own:.3f} | "
                       f"{auc(s_sup, s_nei):.3f} | NEI {(s_nei < c).mean():.1%}: SUPPORT "
                       f"{(s_sup < c).mean():.1%} |")  # fmt: skip
    # (2) and (3)
    out += ["", "### (2) CONTRADICT against SUPPORT and (3) flips against their originals", "",
            "AUC on the half not fitted on (higher = the first is scored more "
            "contradicting). The cosine row: 1 − best window cosine, no fitting.", "",
            "| fitted on | features | fitted half | (2) CONTRADICT vs SUPPORT | (3) all flips "
            "vs SUPPORT | " + " | ".join(FLIP_KINDS) + " |",
            "|---|---|---|---|---|" + "---|" * len(FLIP_KINDS)]  # fmt: skip
    for h in (0, 1):
        test = half(rows, 1 - h)
        sup = of(test, "SUPPORT")
        cos = {lab: np.array([-r.cosine for r in of(test, *lab)])
               for lab in [("CONTRADICT",), FLIP_KINDS, *[(k,) for k in FLIP_KINDS]]}  # fmt: skip
        s0 = np.array([-r.cosine for r in sup])
        cells = [f"{auc(cos[lab], s0):.3f}" for lab in
                 [("CONTRADICT",), FLIP_KINDS, *[(k,) for k in FLIP_KINDS]]]  # fmt: skip
        out.append(f"| (no fit) | cosine | {('even', 'odd')[h]} | " + " | ".join(cells) + " |")
        neg0 = np.array([negated(r) for r in sup])
        cells = [f"{auc(np.array([negated(r) for r in of(test, *lab)]), neg0):.3f}" for lab in
                 [("CONTRADICT",), FLIP_KINDS, *[(k,) for k in FLIP_KINDS]]]  # fmt: skip
        out.append(f"| (no fit) | the claim holds a negator | {('even', 'odd')[h]} | "
                   + " | ".join(cells) + " |")  # fmt: skip
        for task in ("contradict", "flips", "contradict+flips"):
            for feats in feats_list:
                m = train(rows, task, feats, h)
                s0 = scores(m, sup, feats)
                cells = [f"{auc(scores(m, of(test, *lab), feats), s0):.3f}" for lab in
                         [("CONTRADICT",), FLIP_KINDS, *[(k,) for k in FLIP_KINDS]]]  # fmt: skip
                out.append(f"| {task} | {feats} (λ {m.l2:g}) | {('even', 'odd')[h]} | "
                           + " | ".join(cells) + " |")  # fmt: skip
    if all(r.verdict is not None for r in rows):
        out += ["", *combined(rows, feats_list)]
    return [*out, "", cost(rows)]


def cost(rows: Sequence[Row]) -> str:
    """What the classifier adds per (sentence, cited id): its features from two vectors the
    support model already has, and one dot product."""
    m = train(rows, "contradict+flips", "pair+base", 0)
    t0 = time.perf_counter()
    for r in rows[:500]:
        m.score(pair_features([r], "pair+base"))
    ms = (time.perf_counter() - t0) * 1000 / min(500, len(rows))
    return (
        f"Cost of the classifier per (sentence, cited id), warm: {ms:.3f} ms (pair+base, linear)."
    )


def combined(rows: list[Row], feats_list: Sequence[str]) -> list[str]:
    """The rules plus the classifier: a pair the rules call supported is called contradicted
    when the classifier's score reaches the cut that flags 1 % (or 2 %) of the fitted half's
    SUPPORT pairs the rules pass (their out-of-fold scores)."""
    out = ["### The rules plus the classifier (a pair the rules pass, over the cut, is called "
           "contradicted)", "",
           "| fitted on | features | share of passed SUPPORT (fitted half) | scored half | "
           "CONTRADICT flagged | SUPPORT called contradicted | SUPPORT flagged | "
           "NEI flagged | flips (num+neg+dir) flagged |",
           "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip

    def flagged(rs: Sequence[Row], extra: np.ndarray, cut: float) -> tuple[int, int, int]:
        # the classifier only reads the pairs the rules pass (a not_supported stays so)
        new = [r.verdict == "supported" and bool(s >= cut) for r, s in zip(rs, extra, strict=True)]
        k_any = sum(r.verdict != "supported" for r in rs) + sum(new)
        k_con = sum(r.verdict == "contradicted" for r in rs) + sum(new)
        return k_any, k_con, len(rs)

    for h in (0, 1):
        test = half(rows, 1 - h)
        groups = {"CONTRADICT": of(test, "CONTRADICT"), "SUPPORT": of(test, "SUPPORT"),
                  "NEI": of(test, "NEI"),
                  "flips": of(test, "number", "negation", "direction")}  # fmt: skip
        none = {g: flagged(rs, np.zeros(len(rs)), 2.0) for g, rs in groups.items()}
        out.append(f"| (rules alone) | — | — | {('even', 'odd')[1 - h]} | "
                   f"{rate(none['CONTRADICT'][0], none['CONTRADICT'][2])} | "
                   f"{rate(none['SUPPORT'][1], none['SUPPORT'][2])} | "
                   f"{rate(none['SUPPORT'][0], none['SUPPORT'][2])} | "
                   f"{rate(none['NEI'][0], none['NEI'][2])} | "
                   f"{rate(none['flips'][0], none['flips'][2])} |")  # fmt: skip
        for task in ("contradict", "contradict+flips"):
            # the oracle needs the rationale; an MLP's fold models score on other scales
            # than the final one, so a cut from their scores does not carry (it flagged
            # every pair of one half)
            for feats in [f for f in feats_list if not f.startswith("gold:") and "/mlp" not in f]:
                m, oof = trained(rows, task, feats, h)
                passed = [r for r in of(half(rows, h), "SUPPORT") if r.verdict == "supported"]
                s_passed = np.array([oof[key(r.pair)] for r in passed])
                for share in (0.01, 0.02):
                    cut = float(np.quantile(s_passed, 1 - share))
                    got = {g: flagged(rs, scores(m, rs, feats), cut) for g, rs in groups.items()}
                    out.append(
                        f"| {task} | {feats} | {share:.0%} | {('even', 'odd')[1 - h]} | "
                        f"{rate(got['CONTRADICT'][0], got['CONTRADICT'][2])} | "
                        f"{rate(got['SUPPORT'][1], got['SUPPORT'][2])} | "
                        f"{rate(got['SUPPORT'][0], got['SUPPORT'][2])} | "
                        f"{rate(got['NEI'][0], got['NEI'][2])} | "
                        f"{rate(got['flips'][0], got['flips'][2])} |"
                    )
    return out


def rule_verdicts(rows: Sequence[Row], emb: Embedder, path: Path) -> None:
    """The product's verdict of every pair (bench/grounding.py's judge), kept in ``path``."""
    from grounding import judge

    from unifind.agent.support import load_scorer

    class _Models:
        def embedder(self, spec: str) -> Embedder:
            return emb

        def reranker(self, spec: str) -> object:
            raise RuntimeError("no cross-encoder here")

    kept: dict[str, str] = json.loads(path.read_text()) if path.is_file() else {}
    scorer = load_scorer("embed", _Models())  # type: ignore[arg-type]
    todo = [r for r in rows if key(r.pair) not in kept]
    t0 = time.perf_counter()
    for n, r in enumerate(todo, 1):
        kept[key(r.pair)] = judge(r.pair, scorer)
        if n % 200 == 0:
            path.write_text(json.dumps(kept))
            print(f"verdicts {n}/{len(todo)} {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    path.write_text(json.dumps(kept))
    for r in rows:
        r.verdict = kept[key(r.pair)]


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=default_root())
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--cache", type=Path, default=None, help="a disk cache of the vectors")
    ap.add_argument("--verdicts", type=Path, default=None,
                    help="compute (or read) the rules' verdicts of every pair here")  # fmt: skip
    ap.add_argument(
        "--features",
        default="base,claim,pair,pair+base,pair+base/pca32,pair+base/mlp16,gold:pair+base,goldfit:pair+base",
    )
    ap.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "gnli-grounding-pair.md"
    )
    args = ap.parse_args(argv)
    emb: Embedder = resolve_embedder("bge-small-en-v1.5")
    if args.cache:
        emb = CachedEmbedder(emb, args.cache)
    pairs, flips = build_pairs(args.data, args.seed)
    t0 = time.perf_counter()
    rows = embed_rows([*pairs, *flips], emb)
    print(f"{len(rows)} rows embedded in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    add_gold(rows, args.data, emb)
    if args.verdicts:
        rule_verdicts(rows, emb, args.verdicts)
    counts = {lab: sum(r.pair.label == lab for r in rows) for lab in (*LABELS, *FLIP_KINDS)}
    lines = ["## Grounding round 5: a learned pair classifier on bge-small vectors", "",
             "    python bench/grounding_pair.py" + (" --verdicts FILE" if args.verdicts else ""),
             "", "Rows: " + ", ".join(f"{k} {v}" for k, v in counts.items()), "",
             *window_holds_evidence(rows), "", *report(rows, args.features.split(","))]  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
