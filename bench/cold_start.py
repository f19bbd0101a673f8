"""Cold start of the BM25 and vector indexes at 200k chunks: first queries of a fresh process.

    OMP_NUM_THREADS=1 python bench/cold_start.py [--chunks 200000] [--repeat 3]

Builds (or reuses) the synthetic corpus of bench/speed.py (``_synth.py``: Zipfian text,
5 chunks a document, random unit 384-d vectors) in bench/.cache/cold/. Then, each in a
fresh interpreter: the first ``lexical_search`` and the first ``vector_search`` (depth
100), once without sidecars (built from the file, sidecars written) and ``--repeat``
times with them (loaded, caught up with the change log). The HNSW accelerator is not
involved (``hnsw_threshold`` above the size): the first vector query is the exact scan.
Prints one JSON line per run and a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from _synth import DIM, documents, make_vocabulary, peak_rss_mb, queries, unit_vectors

from unifind.analysis import get_analyzer
from unifind.kb import _lexsave
from unifind.kb.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".cache" / "cold"
COLLECTION = "synth"
SYNTH_SPEC = "synthetic-random-384"
NO_HNSW = 1 << 62


def build(db: Path, n_chunks: int) -> dict[str, Any]:
    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    store = SQLiteStore(db, hnsw_threshold=NO_HNSW)
    store.create_collection(COLLECTION, embedder=SYNTH_SPEC, dim=DIM, analyzer="auto")
    t0 = time.perf_counter()
    for doc, chunks in documents(make_vocabulary(), n_chunks):
        store.upsert_document(COLLECTION, doc, chunks)
    store.close()
    return {"chunks": n_chunks, "write_s": round(time.perf_counter() - t0, 1)}


def first_query(db: Path) -> dict[str, Any]:
    text = queries(make_vocabulary(), 3)[2]
    sidecar = all(_lexsave.sidecar_path(db, COLLECTION, k).exists() for k in _lexsave.KINDS)
    t0 = time.perf_counter()
    # No HNSW: its background build would outlive this process (the exact scan answers
    # a first query anyway); the HNSW sidecar's own load is in bench/speed.py's figures.
    store = SQLiteStore(db, hnsw_threshold=NO_HNSW)
    hits = store.lexical_search(COLLECTION, get_analyzer("auto").terms(text), limit=100)
    lex_ms = (time.perf_counter() - t0) * 1000
    probe = unit_vectors(1, np.random.default_rng(9))[0]
    t1 = time.perf_counter()
    store.vector_search(COLLECTION, probe, limit=100)
    vec_ms = (time.perf_counter() - t1) * 1000
    store.close()
    return {"sidecar_before": sidecar, "first_lexical_ms": round(lex_ms, 1),
            "first_vector_ms": round(vec_ms, 1), "hits": len(hits),
            "peak_rss_mb": round(peak_rss_mb())}  # fmt: skip


def spawn(*task: object) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", *map(str, task)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(out), file=sys.stderr, flush=True)
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--chunks", type=int, default=200_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--worker", nargs="+")
    args = p.parse_args()
    if args.worker:
        kind, db, *rest = args.worker
        out = build(Path(db), int(rest[0])) if kind == "build" else first_query(Path(db))
        print(json.dumps(out))
        return 0
    WORK.mkdir(parents=True, exist_ok=True)
    db = WORK / f"synth-{args.chunks}.sqlite"
    if not db.exists():
        spawn("build", db, args.chunks)
    _lexsave.remove(db, COLLECTION)
    runs = [spawn("query", db) for _ in range(1 + args.repeat)]
    print(f"{args.chunks:,} chunks, first query of a fresh process (ms):")
    print("| run | sidecars | first lexical_search | then first vector_search | total |")
    print("|---|---|---|---|---|")
    for i, r in enumerate(runs, 1):
        side = "present (loaded)" if r["sidecar_before"] else "absent (built, then written)"
        lex, vec = r["first_lexical_ms"], r["first_vector_ms"]
        print(f"| {i} | {side} | {lex} | {vec} | {round(lex + vec, 1)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
