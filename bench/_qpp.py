"""Query performance signals vs which arm wins, per query (tuning aid for adaptive fusion).

    python bench/_qpp.py scifact,cranfield,cacm

For every judged query: dense nDCG@10 minus lexical nDCG@10, against cheap signals the
fusion could read: each arm's agreement (``unifind.rank.adaptive.agreement``), BM25
coverage of the query's idf mass (top score * (1 + k1) / sum idf), each arm's head spread,
the top cosine. Prints subset means and the correlations.
"""

import sys

import numpy as np

sys.path.insert(0, ".")
from _datasets import default_root, load_dataset, require_root
from _eval import evaluate, ranked_run
from _levers import CACHE, load, top, v_arm

from unifind.rank import adaptive

for name in sys.argv[1].split(","):
    ds = load_dataset(require_root(default_root(), [name]), name)
    d = load(ds, CACHE / "stores" / f"{name}-bge-small-en-v1.5-c1200-o150.sqlite")
    per = {}
    for v in ("lex", "vec"):
        fn = v_arm(v)
        per[v] = evaluate(ds, ranked_run({q: fn(d, q) for q in ds.queries})).ndcg_per_query
    n = len(d.doc_of)
    rows = []
    for q in ds.queries:
        lex, vec = d.lex[q], d.vec[q]
        tl, tv = top(lex, 100), top(vec, 100)
        tl = tl[lex[tl] > 0]
        runs = {"l": {int(i): float(lex[i]) for i in tl}, "v": {int(i): float(vec[i]) for i in tv}}
        ag = adaptive.agreement(runs) if len(tl) else {"l": 0, "v": 1}
        # idf mass
        N = n
        idf = 0.0
        for t, c in d.qterms[q].items():
            df = len(d.index._postings(t)[0])
            idf += c * np.log(1 + (N - df + 0.5) / (df + 0.5))
        cov = (lex[tl[0]] * 1.9 / idf) if len(tl) and idf else 0
        sl = lex[tl[:10]] if len(tl) else np.zeros(1)
        spread_l = (sl[0] - sl.mean()) / (sl[0] + 1e-9)
        sv = vec[tv[:10]]
        spread_v = (sv[0] - sv.mean()) / (sv[0] - vec[tv[-1]] + 1e-9)
        diff = per["vec"][q] - per["lex"][q]
        rows.append((diff, ag["l"], ag["v"], cov, spread_l, spread_v, vec[tv[0]]))
    r = np.array(rows)
    for lab, m in (
        ("weak-lex", r[:, 0] >= 0.2),
        ("weak-dense", r[:, 0] <= -0.2),
        ("other", abs(r[:, 0]) < 0.2),
    ):
        print(
            name,
            lab,
            m.sum(),
            " ".join(
                f"{k}={r[m, i].mean():.3f}"
                for i, k in enumerate(
                    ["diff", "agree_l", "agree_v", "cov", "spread_l", "spread_v", "topcos"]
                )
            ),
        )
    for i, k in enumerate(["agree_l", "agree_v", "cov", "spread_l", "spread_v", "topcos"], 1):
        print(f"  corr(diff,{k})={np.corrcoef(r[:, 0], r[:, i])[0, 1]:.3f}")
