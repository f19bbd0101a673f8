"""Ingest throughput on the embedded default against the bare model, in one run (issue #23).

    python bench/ingest.py [--docs 600] [--block 150] [--workers N] [--data DIR]

SciFact abstracts are written as Markdown files (``# title`` then the abstract) and
ingested the way ``unifind kb ingest FOLDER`` does it: ``KnowledgeBase.ingest`` over the
files with a progress callback (so the progress bar's flushing is part of the cost), into
the embedded SQLite store, with the default embedder (bge-small-en-v1.5, int8 ONNX, as
many batches at once as ``UNIFIND_EMBED_WORKERS`` or the usable cores say). The bare
model is ``BgeSmallEmbedder.embed_documents`` on exactly the texts the pipeline embedded
(title + chunk: a dry run with the hash embedder finds them), in one call per block, with
the same workers: its throughput is the ceiling. Blocks of files alternate which side runs
first, so a change of load on a shared machine hits both sides alike; CPU time is reported
next to wall time. Target: pipeline docs/s >= 0.8 of the bare model's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _datasets import default_root
from speed import _Recording, peak_rss_mb, scifact_docs

from unifind import KnowledgeBase, load_settings
from unifind.embed._onnx import embed_workers
from unifind.embed.base import Embedder
from unifind.kb.sqlite import SQLiteStore
from unifind.testing.fakes import HashEmbedder


def write_files(folder: Path, docs: Sequence[tuple[str, str, str]], block: int) -> list[Path]:
    """One folder of Markdown files per block of documents."""
    folders = []
    for b, start in enumerate(range(0, len(docs), block)):
        sub = folder / f"block{b:03d}"
        sub.mkdir(parents=True)
        for doc_id, title, text in docs[start : start + block]:
            (sub / f"{doc_id}.md").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
        folders.append(sub)
    return folders


def open_kb(home: Path, emb: Embedder) -> KnowledgeBase:
    kb = KnowledgeBase(SQLiteStore(home / "kb.sqlite"), load_settings(home=home),
                       embedder_factory=lambda spec: emb)  # fmt: skip
    kb.create("ingest", embedder=emb.spec)
    return kb


def ingest(kb: KnowledgeBase, folder: Path) -> int:
    """Chunks written from ``folder``, the way ``unifind kb ingest`` runs it."""
    report = kb.ingest("ingest", [folder], progress=lambda outcome: None)
    if any(o.status == "failed" for o in report.outcomes):
        raise RuntimeError(f"failed: {[o.error for o in report.outcomes if o.error][:3]}")
    return sum(o.chunks for o in report.outcomes)


def texts_of(folders: Sequence[Path], tmp: Path) -> list[list[str]]:
    """Per block, the texts the pipeline embeds (a dry run with the hash embedder)."""
    rec = _Recording(HashEmbedder(384))
    out = []
    with open_kb(tmp / "dry", rec) as kb:
        for folder in folders:
            start = len(rec.texts)
            ingest(kb, folder)
            out.append(rec.texts[start:])
    return out


def run(docs: Sequence[tuple[str, str, str]], block: int) -> dict[str, Any]:
    from unifind.embed.bge import BgeSmallEmbedder

    emb = BgeSmallEmbedder()
    emb.embed_documents(["warm-up"])
    wall, cpu = {"pipeline": 0.0, "bare": 0.0}, {"pipeline": 0.0, "bare": 0.0}
    with tempfile.TemporaryDirectory(prefix="unifind-ingest-") as tmp:
        folders = write_files(Path(tmp) / "files", docs, block)
        expected = texts_of(folders, Path(tmp))
        rec = _Recording(emb)
        chunks = 0
        with open_kb(Path(tmp) / "home", rec) as kb:
            for b, (folder, texts) in enumerate(zip(folders, expected, strict=True)):
                for side in ("pipeline", "bare") if b % 2 == 0 else ("bare", "pipeline"):
                    w0, c0 = time.perf_counter(), time.process_time()
                    if side == "pipeline":
                        chunks += ingest(kb, folder)
                    else:
                        emb.embed_documents(texts)
                    wall[side] += time.perf_counter() - w0
                    cpu[side] += time.process_time() - c0
    if sorted(rec.texts) != sorted(t for ts in expected for t in ts):
        raise RuntimeError("the pipeline embedded other texts than the dry run found")
    n = len(docs)
    return {
        "documents": n, "chunks": chunks, "workers": embed_workers(),
        "pipeline_s": round(wall["pipeline"], 1), "bare_s": round(wall["bare"], 1),
        "pipeline_docs_per_s": round(n / wall["pipeline"], 2),
        "bare_docs_per_s": round(n / wall["bare"], 2),
        "ratio": round(wall["bare"] / wall["pipeline"], 3),
        "pipeline_cpu_s": round(cpu["pipeline"], 1), "bare_cpu_s": round(cpu["bare"], 1),
        "cpu_ratio": round(cpu["bare"] / cpu["pipeline"], 3),
        "peak_rss_mb": round(peak_rss_mb()),
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--docs", type=int, default=600, help="SciFact abstracts (first N)")
    p.add_argument("--block", type=int, default=150, help="documents per alternating block")
    p.add_argument("--workers", type=int, default=None, help="UNIFIND_EMBED_WORKERS for both")
    p.add_argument("--data", type=Path, default=default_root())
    args = p.parse_args(argv)
    if args.workers is not None:
        os.environ["UNIFIND_EMBED_WORKERS"] = str(args.workers)
    out = run(scifact_docs(args.data, args.docs), args.block)
    print(json.dumps(out), flush=True)
    print(f"\npipeline {out['pipeline_docs_per_s']} docs/s ({out['chunks']} chunks in "
          f"{out['pipeline_s']} s) vs bare model {out['bare_docs_per_s']} docs/s on "
          f"{out['workers']} worker(s): ratio {out['ratio']} wall, {out['cpu_ratio']} CPU "
          f"(target >= 0.8: {'met' if out['ratio'] >= 0.8 else 'MISSED'})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
