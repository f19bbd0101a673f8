"""Quality levers replayed offline on stores kept by ``quality.py --keep-stores`` (tuning aid).

    python bench/_levers.py --sets scifact,cacm,cranfield [--max-queries N] [--only NAME,...]

Per query, BM25 and cosine are computed for EVERY chunk once (the kept store's own postings
and vectors, the same formulas as the store), so each lever can be replayed exactly as
``unifind.kb.search`` applies it: fusion variants (RRF, min-max convex, the query-adaptive
fusion that ships), chunk → document aggregation, RM3 expansion of the lexical arm and
Rocchio feedback of the dense arm. Decide on scifact/cacm/cranfield, check on vaswani/cisi.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from _datasets import Dataset, default_root, load_dataset, require_root
from _eval import evaluate, paired_p, ranked_run
from quality import CACHE, COLLECTION, embedder_factory

from unifind.analysis import get_analyzer
from unifind.kb import graph
from unifind.kb._follow import load_terms, load_vectors
from unifind.kb._lexical import LexicalIndex, encode_postings
from unifind.kb.sqlite import SQLiteStore
from unifind.rank import adaptive

F = np.ndarray
GRAPH = bool(os.environ.get("LEVERS_GRAPH"))  # extract entities (slow): graph levers
DEGRADE = int(os.environ.get("LEVERS_DEGRADE", "0"))  # drop this many rarest query terms
QSTOP = bool(os.environ.get("LEVERS_QSTOP"))  # query-side stopwords (RAKE function words)


@dataclass
class SetData:
    ds: Dataset
    index: LexicalIndex
    mat: F  # chunk vectors, rows aligned with index positions
    doc_of: F  # position → document number
    doc_ids: list[str]
    term_id: dict[str, int]
    lex: dict[str, F]  # qid → BM25 of every chunk
    vec: dict[str, F]  # qid → cosine of every chunk
    qvec: dict[str, F]
    qterms: dict[str, dict[int, int]]
    postings: list[dict[int, int]]  # position → {term id: tf}
    idf_mass: dict[str, float]
    title: dict[str, F] = None  # type: ignore[assignment]  # qid → title-only BM25


def load(ds: Dataset, path: Path) -> SetData:
    store = SQLiteStore(path)
    conn = store._conn()
    coll_id = conn.execute("SELECT id FROM collections WHERE name=?", (COLLECTION,)).fetchone()[0]
    rows = load_terms(conn, coll_id, None)
    vrows = load_vectors(conn, coll_id, None)
    assert [r[0] for r in rows] == [r[0] for r in vrows], "terms and vectors differ"
    index = LexicalIndex(rows)
    mat = np.stack([np.frombuffer(b, dtype="<f4") for _, b in vrows])
    chunk_doc = dict(
        conn.execute(
            "SELECT c.id, d.document_id FROM chunks c JOIN documents d ON d.id=c.doc "
            "WHERE d.collection_id=?",
            (coll_id,),
        )
    )
    doc_ids = sorted(set(chunk_doc.values()))
    dnum = {d: i for i, d in enumerate(doc_ids)}
    doc_of = np.array([dnum[chunk_doc[r[0]]] for r in rows])
    term_id = {t: int(i) for t, i in conn.execute("SELECT term, id FROM terms")}
    postings = [dict(np.frombuffer(b, dtype="<i4").reshape(-1, 2).tolist()) for _, _, b in rows]
    analyzer0 = get_analyzer(store.get_collection(COLLECTION).analyzer)
    titles = {doc.doc_id: doc.title for doc in ds.docs}
    trows = []
    for rowid, _, _ in rows:
        tt: dict[int, int] = {}
        for t in analyzer0.terms(titles.get(chunk_doc[rowid], "") or ""):
            if t in term_id:
                tt[term_id[t]] = tt.get(term_id[t], 0) + 1
        trows.append((rowid, sum(tt.values()), encode_postings(tt)))
    title_index = LexicalIndex(trows)
    texts = (
        dict(
            conn.execute(
                "SELECT c.id, coalesce(d.title, '') || char(10) || c.text FROM chunks c "
                "JOIN documents d ON d.id = c.doc WHERE d.collection_id = ?",
                (coll_id,),
            )
        )
        if GRAPH
        else {}
    )
    ent_id: dict[str, int] = {}
    erows, chunk_ents = [], []
    for rowid, _, _ in rows:
        found = graph.entities(texts.get(rowid, "")) if GRAPH else []
        ids = [ent_id.setdefault(e, len(ent_id)) for e in found]
        chunk_ents.append(set(ids))
        erows.append((rowid, len(ids), encode_postings(Counter(ids))))
    ent_index = LexicalIndex(erows)
    info = store.get_collection(COLLECTION)
    emb = embedder_factory(CACHE)(info.embedder or "")
    analyzer = get_analyzer(info.analyzer)
    n = len(rows)
    data = SetData(ds, index, mat, doc_of, doc_ids, term_id, {}, {}, {}, {}, postings, {})
    data.title = {}
    data.ent_index, data.ent_id, data.chunk_ents = ent_index, ent_id, chunk_ents
    from unifind.analysis import _stemmer

    qstop_ids = {term_id[w] for w in _stemmer().stemWords(sorted(graph._FUNCTION)) if w in term_id}
    for qid, text in ds.queries.items():
        q: dict[int, int] = {}
        for t in analyzer.terms(text):
            if t in term_id:
                q[term_id[t]] = q.get(term_id[t], 0) + 1
        data.qterms[qid] = q
        if QSTOP:  # query-side analysis: drop function words the index keeps
            q = {t: c for t, c in q.items() if t not in qstop_ids} or q
            data.qterms[qid] = q
        if DEGRADE and q:  # stress test: the lexical arm loses the query's rarest terms
            df = {t: len(index._postings(t)[0]) for t in q}
            for t in sorted(df, key=lambda t: df[t])[:DEGRADE]:
                if len(q) > 1:
                    del q[t]
        data.lex[qid] = bm25_all(index, q, n)
        data.title[qid] = bm25_all(title_index, q, n)
        data.qvec[qid] = np.asarray(emb.embed_query(text), dtype=np.float32)
        data.vec[qid] = mat @ data.qvec[qid]
    store.close()
    return data


def bm25_all(index: LexicalIndex, q: dict[int, float], n: int) -> F:
    out = np.zeros(n)
    if not q:
        return out
    ids = index._ids[:n]
    for rowid, s in index.search(q, n):
        out[np.searchsorted(ids, rowid)] = s
    return out


def doc_rank(d: SetData, chunk_scores: F, cand: F | None = None, agg: str = "max") -> list[str]:
    """Chunk scores → document ranking (top 100), over candidate positions only."""
    pos = np.arange(len(chunk_scores)) if cand is None else cand
    s = chunk_scores[pos]
    docs = d.doc_of[pos]
    best: dict[int, list[float]] = {}
    for doc, sc in zip(docs.tolist(), s.tolist(), strict=True):
        best.setdefault(doc, []).append(sc)
    if agg == "max":
        agg_s = {k: max(v) for k, v in best.items()}
    else:  # "max+": best chunk plus a tenth of the second best
        agg_s = {
            k: sorted(v)[-1] + 0.1 * (sorted(v)[-2] if len(v) > 1 else 0) for k, v in best.items()
        }
    order = sorted(agg_s, key=lambda k: -agg_s[k])[:100]
    return [d.doc_ids[k] for k in order]


def top(scores: F, k: int) -> F:
    k = min(k, len(scores))
    idx = np.argpartition(-scores, k - 1)[:k]
    return idx[np.argsort(-scores[idx], kind="stable")]


Variant = Callable[[SetData, str], list[str]]


def v_arm(arm: str) -> Variant:
    return lambda d, q: doc_rank(
        d, (d.lex if arm == "lex" else d.vec)[q], top((d.lex if arm == "lex" else d.vec)[q], 300)
    )


def v_rrf(k: int = 60, depth: int = 100) -> Variant:
    def f(d: SetData, q: str) -> list[str]:
        s = np.zeros(len(d.lex[q]))
        for arr in (d.lex[q], d.vec[q]):
            t = top(arr, depth)
            t = t[arr[t] > 0] if arr is d.lex[q] else t
            s[t] += 1.0 / (k + np.arange(1, len(t) + 1))
        return doc_rank(d, s, np.flatnonzero(s))

    return f


def v_convex(alpha: float = 0.5, depth: int = 100, fill: bool = False) -> Variant:
    def f(d: SetData, q: str) -> list[str]:
        lex, vec = d.lex[q], d.vec[q]
        tl, tv = top(lex, depth), top(vec, depth)
        tl = tl[lex[tl] > 0]
        cand = np.union1d(tl, tv)
        s = np.zeros(len(lex))
        for arr, t, w in ((lex, tl, alpha), (vec, tv, 1 - alpha)):
            if not len(t):
                continue
            lo, hi = arr[t].min(), arr[t].max()
            vals = arr[cand] if fill else np.where(np.isin(cand, t), arr[cand], lo)
            if fill:
                lo = vals.min()
            s[cand] += w * ((vals - lo) / (hi - lo) if hi > lo else 1.0)
        return doc_rank(d, s, cand)

    return f


def v_adaptive(depth: int = 100, **kw: float) -> Variant:
    def f(d: SetData, q: str) -> list[str]:
        lex, vec = d.lex[q], d.vec[q]
        tl, tv = top(lex, depth), top(vec, depth)
        tl = tl[lex[tl] > 0]
        runs = {
            "lexical": {int(i): float(lex[i]) for i in tl},
            "vector": {int(i): float(vec[i]) for i in tv},
        }
        fused = adaptive.fuse(runs, **kw)
        keys = np.array([k for k, _ in fused])
        s = np.zeros(len(lex))
        s[keys] = [v for _, v in fused]
        return doc_rank(d, s, keys)

    return f


def graph_scores(d: SetData, q: str, how: str) -> F:
    """BM25 over entities: the query's own, plus (``how`` = "hop") the 5 entities that
    co-occur most with them in the 10 best direct chunks, at weight 0.3."""
    n = len(d.doc_of)
    qe: dict[int, float] = {}
    for e in graph.entities(d.ds.queries[q]):
        if e in d.ent_id:
            qe[d.ent_id[e]] = qe.get(d.ent_id[e], 0.0) + 1.0
    direct = bm25_all(d.ent_index, qe, n)
    if how != "hop" or not qe:
        return direct
    counts: Counter[int] = Counter()
    for pos in top(direct, 10):
        if direct[pos] > 0:
            counts.update(d.chunk_ents[pos] - set(qe))
    for e, _ in counts.most_common(5):
        qe[e] = 0.3
    return bm25_all(d.ent_index, qe, n)


BASE: dict[str, float] | None = None  # per-arm base weights for the levers below


def first_pass(d: SetData, q: str, depth: int = 100) -> F:
    """The adaptive-fusion order of every candidate (positions, best first)."""
    lex, vec = d.lex[q], d.vec[q]
    tl, tv = top(lex, depth), top(vec, depth)
    tl = tl[lex[tl] > 0]
    runs = {
        "lexical": {int(i): float(lex[i]) for i in tl},
        "vector": {int(i): float(vec[i]) for i in tv},
    }
    return np.array([k for k, _ in adaptive.fuse(runs, base=BASE)])


def rm3_query(d: SetData, q: str, fb: F, terms: int, lam: float) -> dict[int, float]:
    """RM3 (Abdul-Jaleel et al. 2004): feedback term model mixed into the query."""
    orig = d.qterms[q]
    if not orig or not len(fb):
        return dict(orig)
    rm: dict[int, float] = {}
    for rank, pos in enumerate(fb.tolist()):
        post = d.postings[pos]
        length = sum(post.values()) or 1
        w = 1.0 / (rank + 1)  # rank-decayed document weight (scores differ in scale by arm)
        for t, tf in post.items():
            rm[t] = rm.get(t, 0.0) + w * tf / length
    best = sorted(rm, key=lambda t: -rm[t])[:terms]
    z = sum(rm[t] for t in best) or 1.0
    qz = sum(orig.values())
    out = {t: lam * c / qz for t, c in orig.items()}
    for t in best:
        out[t] = out.get(t, 0.0) + (1 - lam) * rm[t] / z
    return out


def v_prf(
    lex_fb: int = 0,
    terms: int = 10,
    lam: float = 0.6,
    vec_fb: int = 0,
    beta: float = 0.5,
    agg: str = "max",
    fill: str = "",
    floor: float = 0.2,
    src: str = "fused",
    title: str = "",
    title_w: float = 0.5,
    base: dict[str, float] | None = None,
    graph_arm: str = "",
    pool: bool = False,
    gamma: float = 1.0,
) -> Variant:
    def f(d: SetData, q: str) -> list[str]:
        fp = first_pass(d, q) if src == "fused" else top(d.vec[q], 10)
        lex, vec = d.lex[q], d.vec[q]
        if title == "boost":  # fields summed (BM25F-like): body+title BM25 + w * title BM25
            lex = lex + title_w * d.title[q]
        if lex_fb and len(fp):
            lex = bm25_all(d.index, rm3_query(d, q, fp[:lex_fb], terms, lam), len(lex))
        if vec_fb and len(fp):
            qv = d.qvec[q] + beta * d.mat[fp[:vec_fb]].mean(axis=0)
            new_vec = d.mat @ (qv / np.linalg.norm(qv))
            if pool:  # rescore only the first pass's candidates (no second vector search)
                keep = np.zeros(len(vec), bool)
                keep[fp] = True
                new_vec = np.where(keep, new_vec, -1.0)
            vec = new_vec
        if pool and lex_fb and len(fp):
            keep = np.zeros(len(lex), bool)
            keep[fp] = True
            lex = np.where(keep, lex, 0.0)
        tl, tv = top(lex, 100), top(vec, 100)
        tl = tl[lex[tl] > 0]
        runs = {
            "lexical": {int(i): float(lex[i]) for i in tl},
            "vector": {int(i): float(vec[i]) for i in tv},
        }
        if fill in ("vec", "both"):  # every candidate's true cosine
            runs["vector"] = {int(i): float(vec[i]) for i in np.union1d(tl, tv)}
        if fill == "both":
            runs["lexical"] = {int(i): float(lex[i]) for i in np.union1d(tl, tv) if lex[i] > 0}
        if graph_arm:
            g = graph_scores(d, q, graph_arm)
            tg = top(g, 100)
            runs["graph"] = {int(i): float(g[i]) for i in tg if g[i] > 0}
        if title == "arm":  # a third arm: title-only BM25
            tt = top(d.title[q], 100)
            runs["title"] = {int(i): float(d.title[q][i]) for i in tt if d.title[q][i] > 0}
        fused = adaptive.fuse(runs, floor=floor, base=base or BASE, gamma=gamma)
        keys = np.array([k for k, _ in fused])
        s = np.zeros(len(lex))
        s[keys] = [v for _, v in fused]
        return doc_rank(d, s, keys, agg)

    return f


VARIANTS: dict[str, Callable[[], Variant]] = {
    "lexical": lambda: v_arm("lex"),
    "dense": lambda: v_arm("vec"),
    "rrf60": lambda: v_rrf(60),
    "convex": lambda: v_convex(0.5),
    "convex-fill": lambda: v_convex(0.5, fill=True),
    "adaptive": lambda: v_adaptive(),
    "adaptive-g2": lambda: v_adaptive(gamma=2.0),
    "ad-a30": lambda: v_adaptive(against=30),
    "ad-a30-f0.1": lambda: v_adaptive(against=30, floor=0.1),
    "ad-a20-h5": lambda: v_adaptive(against=20, head=5),
    "ad-a50-g2-f0.1": lambda: v_adaptive(against=50, gamma=2.0, floor=0.1),
    "ad-a30-h20": lambda: v_adaptive(against=30, head=20),
    "adaptive-f0.4": lambda: v_adaptive(floor=0.4),
    "adaptive-h20": lambda: v_adaptive(head=20),
    "adaptive+max+": lambda: v_prf(agg="max+"),
    "rm3-3x10": lambda: v_prf(lex_fb=3, terms=10, lam=0.6),
    "rm3-10x20": lambda: v_prf(lex_fb=10, terms=20, lam=0.5),
    "rocchio-3": lambda: v_prf(vec_fb=3, beta=0.5),
    "rocchio-5x1": lambda: v_prf(vec_fb=5, beta=1.0),
    "rm3+rocchio": lambda: v_prf(lex_fb=3, terms=10, lam=0.6, vec_fb=3, beta=0.5),
    "fill-vec": lambda: v_prf(fill="vec"),
    "fill-both": lambda: v_prf(fill="both"),
    "rocchio-2": lambda: v_prf(vec_fb=2, beta=0.5),
    "rocchio-3x0.3": lambda: v_prf(vec_fb=3, beta=0.3),
    "rocchio-3x0.8": lambda: v_prf(vec_fb=3, beta=0.8),
    "rocchio-5x0.5": lambda: v_prf(vec_fb=5, beta=0.5),
    "rocchio-3-dense": lambda: v_prf(vec_fb=3, beta=0.5, src="dense"),
    "rocchio-3+fill": lambda: v_prf(vec_fb=3, beta=0.5, fill="vec"),
    "rocchio-3+fillb": lambda: v_prf(vec_fb=3, beta=0.5, fill="both"),
    "rocchio-3+rm3-10x20": lambda: v_prf(vec_fb=3, beta=0.5, lex_fb=10, terms=20, lam=0.5),
    "title-boost": lambda: v_prf(title="boost"),
    "title-arm": lambda: v_prf(title="arm"),
    "only-rocchio-2": lambda: v_prf(vec_fb=2, beta=0.5),
    "only-rm3-10x20": lambda: v_prf(lex_fb=10, terms=20, lam=0.5),
    "default+max+": lambda: v_prf(vec_fb=2, beta=0.5, lex_fb=10, terms=20, lam=0.5, agg="max+"),
    "default+title-boost": lambda: v_prf(
        vec_fb=2, beta=0.5, lex_fb=10, terms=20, lam=0.5, title="boost"
    ),
    "shipped-lex0.8": lambda: v_prf(
        vec_fb=2, beta=0.5, lex_fb=10, terms=20, lam=0.5, base={"lexical": 0.8, "vector": 1.0}
    ),
    "shipped-lex0.6": lambda: v_prf(
        vec_fb=2, beta=0.5, lex_fb=10, terms=20, lam=0.5, base={"lexical": 0.6, "vector": 1.0}
    ),
    "shipped+graph": lambda: v_prf(
        vec_fb=2, beta=0.5, lex_fb=10, terms=20, lam=0.5, graph_arm="direct"
    ),
    "shipped+graph-hop": lambda: v_prf(
        vec_fb=2, beta=0.5, lex_fb=10, terms=20, lam=0.5, graph_arm="hop"
    ),
    "adaptive+graph-hop": lambda: v_prf(graph_arm="hop"),
    "graph-hop alone": lambda: (
        lambda d, q: doc_rank(d, graph_scores(d, q, "hop"), top(graph_scores(d, q, "hop"), 300))
    ),
    "shipped-pool": lambda: v_prf(vec_fb=2, beta=0.5, lex_fb=10, terms=20, lam=0.5, pool=True),
    "pool-r3": lambda: v_prf(vec_fb=3, beta=0.5, lex_fb=10, terms=20, lam=0.5, pool=True),
    "pool-l0.6": lambda: v_prf(vec_fb=2, beta=0.5, lex_fb=10, terms=20, lam=0.6, pool=True),
    "pool-t30": lambda: v_prf(vec_fb=2, beta=0.5, lex_fb=10, terms=30, lam=0.5, pool=True),
    "pool-b0.7": lambda: v_prf(vec_fb=2, beta=0.7, lex_fb=10, terms=20, lam=0.5, pool=True),
    "pool-d5": lambda: v_prf(vec_fb=2, beta=0.5, lex_fb=5, terms=20, lam=0.5, pool=True),
    "pool-b1.0": lambda: v_prf(vec_fb=2, beta=1.0, lex_fb=10, terms=20, lam=0.5, pool=True),
    "pool-b0.85": lambda: v_prf(vec_fb=2, beta=0.85, lex_fb=10, terms=20, lam=0.5, pool=True),
    "pool-b0.7-l0.6": lambda: v_prf(vec_fb=2, beta=0.7, lex_fb=10, terms=20, lam=0.6, pool=True),
    "pool-b0.7-r3": lambda: v_prf(vec_fb=3, beta=0.7, lex_fb=10, terms=20, lam=0.5, pool=True),
    "pool-b0.7-f0.05": lambda: v_prf(
        vec_fb=2, beta=0.7, lex_fb=10, terms=20, lam=0.5, pool=True, floor=0.05
    ),
    "pool-b0.7-g2": lambda: v_prf(
        vec_fb=2, beta=0.7, lex_fb=10, terms=20, lam=0.5, pool=True, gamma=2.0
    ),
    "pool-b0.7-g2-f0.05": lambda: v_prf(
        vec_fb=2, beta=0.7, lex_fb=10, terms=20, lam=0.5, pool=True, gamma=2.0, floor=0.05
    ),
    "rocchio-2-pool": lambda: v_prf(vec_fb=2, beta=0.5, pool=True),
    "r2+rm3-10x20": lambda: v_prf(vec_fb=2, beta=0.5, lex_fb=10, terms=20, lam=0.5),
    "r3+rm3-5x20": lambda: v_prf(vec_fb=3, beta=0.5, lex_fb=5, terms=20, lam=0.5),
    "r3+rm3-10x10": lambda: v_prf(vec_fb=3, beta=0.5, lex_fb=10, terms=10, lam=0.5),
    "r3+rm3-10x20-l0.6": lambda: v_prf(vec_fb=3, beta=0.5, lex_fb=10, terms=20, lam=0.6),
    "r3+rm3-10x20-l0.4": lambda: v_prf(vec_fb=3, beta=0.5, lex_fb=10, terms=20, lam=0.4),
    "rocchio-3+fill+rm3": lambda: v_prf(
        vec_fb=3, beta=0.5, lex_fb=10, terms=20, lam=0.5, fill="vec"
    ),
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--sets", default="scifact,cacm,cranfield")
    p.add_argument("--max-queries", type=int)
    p.add_argument("--only", default="")
    args = p.parse_args()
    names = [v for v in args.only.split(",") if v] or list(VARIANTS)
    table: dict[str, dict[str, float]] = {}
    for name in args.sets.split(","):
        ds = load_dataset(require_root(default_root(), [name]), name).head(args.max_queries)
        path = CACHE / "stores" / f"{name}-bge-small-en-v1.5-c1200-o150.sqlite"
        d = load(ds, path)
        per: dict[str, dict[str, float]] = {}
        for v in names:
            fn = VARIANTS[v]()
            sc = evaluate(ds, ranked_run({q: fn(d, q) for q in ds.queries}))
            table.setdefault(v, {})[name] = sc.means["nDCG@10"]
            per[v] = sc.ndcg_per_query
        if "lexical" in per and "dense" in per:  # queries whose lexical arm is weak / strong
            for label, sign in (("weak-lexical", 1), ("weak-dense", -1)):
                sub = [
                    q for q in per["dense"] if sign * (per["dense"][q] - per["lexical"][q]) >= 0.2
                ]
                means = {v: np.mean([per[v][q] for q in sub]) for v in names} if sub else {}
                row = " ".join(f"{v}={m:.3f}" for v, m in means.items())
                print(f"{name:10s} {label} ({len(sub)} queries): {row}", file=sys.stderr)
        base = per.get("convex")
        for v in names:
            note = f"  p={paired_p(per[v], base):.3f} vs convex" if base and v != "convex" else ""
            print(f"{name:10s} {v:24s} {table[v][name]:.4f}{note}", file=sys.stderr, flush=True)
    sets = args.sets.split(",")
    print("| variant | " + " | ".join(sets) + " | mean |")
    print("|---" * (len(sets) + 2) + "|")
    for v in names:
        vals = [table[v][s] for s in sets]
        print(f"| {v} | " + " | ".join(f"{x:.4f}" for x in vals) + f" | {np.mean(vals):.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
