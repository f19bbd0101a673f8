"""Cold start of the lexical index at 200k chunks: first query of a fresh process.

    OMP_NUM_THREADS=1 python bench/cold_start.py [--chunks 200000] [--repeat 3]

Builds (or reuses) the synthetic corpus of bench/speed.py (``_synth.py``: Zipfian text,
5 chunks a document) in bench/.cache/cold/, lexical only (no vectors, so no HNSW build).
Then, each in a fresh interpreter: the first ``lexical_search`` (depth 100) and the first
``KnowledgeBase.search`` in text mode, once without the BM25 sidecar (built from the
file, the sidecar written) and ``--repeat`` times with it (loaded, caught up with the
change log). Prints one JSON line per run and a markdown table.
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

from _synth import documents, make_vocabulary, peak_rss_mb, queries

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.analysis import get_analyzer
from unifind.kb import _lexsave
from unifind.kb.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".cache" / "cold"
COLLECTION = "synth"


def build(db: Path, n_chunks: int) -> dict[str, Any]:
    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    store = SQLiteStore(db)
    store.create_collection(COLLECTION, embedder=None, dim=None, analyzer="auto")
    t0 = time.perf_counter()
    for doc, chunks in documents(make_vocabulary(), n_chunks, vectors=False):
        store.upsert_document(COLLECTION, doc, chunks)
    store.close()
    return {"chunks": n_chunks, "write_s": round(time.perf_counter() - t0, 1)}


def first_query(db: Path) -> dict[str, Any]:
    text = queries(make_vocabulary(), 3)[2]
    sidecar = _lexsave.sidecar_path(db, COLLECTION).exists()
    t0 = time.perf_counter()
    store = SQLiteStore(db)
    hits = store.lexical_search(COLLECTION, get_analyzer("auto").terms(text), limit=100)
    store_ms = (time.perf_counter() - t0) * 1000
    store.close()
    t1 = time.perf_counter()
    settings = load_settings(home=db.parent)
    with KnowledgeBase(SQLiteStore(db), settings) as kb:
        res = kb.search_sync(SearchRequest(type="kb", query=text, mode="text"))
    kb_ms = (time.perf_counter() - t1) * 1000
    return {"sidecar_before": sidecar, "store_first_ms": round(store_ms, 1),
            "kb_text_first_ms": round(kb_ms, 1), "hits": len(hits), "items": len(res.items),
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
    _lexsave.sidecar_path(db, COLLECTION).unlink(missing_ok=True)
    runs = [spawn("query", db) for _ in range(1 + args.repeat)]
    print(f"{args.chunks:,} chunks, first query of a fresh process (ms):")
    print("| run | BM25 sidecar | store lexical_search | KnowledgeBase.search (text) |")
    print("|---|---|---|---|")
    for i, r in enumerate(runs, 1):
        side = "present (loaded)" if r["sidecar_before"] else "absent (built, then written)"
        print(f"| {i} | {side} | {r['store_first_ms']} | {r['kb_text_first_ms']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
