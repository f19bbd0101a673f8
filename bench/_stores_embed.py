"""Kept SQLite stores for bench/stores.py: each set embedded once, reused by every store.

    python bench/_stores_embed.py [--sets cranfield,cisi,...] [--embedder bge-small-en-v1.5]

Builds (or reuses) ``bench/.cache/stores/<set>-<embedder>-c<chars>-o<overlap>.sqlite``, the
same key bench/quality.py's ``--keep-stores`` uses, through ``KnowledgeBase.ingest_text``
with the shared on-disk embedding cache, so a text is embedded once across runs. The other
stores are then loaded from it with ``kb migrate`` (vectors copied, never re-embedded).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from _datasets import ALL_SETS, Dataset, default_root, load_dataset, require_root

from unifind import KnowledgeBase, load_settings
from unifind.embed.base import resolve_embedder
from unifind.embed.cached import CachedEmbedder
from unifind.kb.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".cache"
COLLECTION = "bench"


def kept_path(name: str, embedder: str, cache: Path = CACHE) -> Path:
    kb = load_settings(home=Path(tempfile.gettempdir()), kb={"embedder": embedder}).kb
    key = f"{name}-{kb.embedder}-c{kb.chunk_chars}-o{kb.chunk_overlap}"
    return cache / "stores" / f"{key}.sqlite"


def kept_store(ds: Dataset, embedder: str, cache: Path = CACHE) -> tuple[Path, float, int]:
    """The set's SQLite store (built if missing): (path, ingest seconds, texts embedded)."""
    path = kept_path(ds.name, embedder, cache)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="unifind-embed-") as tmp:
        settings = load_settings(home=Path(tmp), kb={"embedder": embedder})
        emb_cache = cache / "embeddings.sqlite"

        def factory(spec: str) -> CachedEmbedder:
            return CachedEmbedder(resolve_embedder(spec), emb_cache)

        with KnowledgeBase(SQLiteStore(path), settings, embedder_factory=factory) as kb:
            kb.create(COLLECTION, embedder="default", exist_ok=True)
            emb = kb.collection_embedder(kb.collection(COLLECTION))
            misses0 = emb.misses if isinstance(emb, CachedEmbedder) else 0
            t0 = time.perf_counter()
            for i, doc in enumerate(ds.docs, 1):
                if doc.text.strip():  # blank records can't be ingested (nor found by BM25)
                    kb.ingest_text(COLLECTION, doc.text, document_id=doc.doc_id, title=doc.title)
                if i % 500 == 0:
                    print(f"  {ds.name}: {i}/{len(ds.docs)}", file=sys.stderr, flush=True)
            secs = time.perf_counter() - t0
            misses = (emb.misses - misses0) if isinstance(emb, CachedEmbedder) else 0
    return path, secs, misses


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sets", default=",".join(ALL_SETS))
    p.add_argument("--embedder", default="bge-small-en-v1.5")
    p.add_argument("--data", type=Path, default=default_root())
    args = p.parse_args(argv)
    require_root(args.data)
    for name in args.sets.split(","):
        path, secs, misses = kept_store(load_dataset(args.data, name), args.embedder)
        print(f"{name}: {path.name} ingest {secs:.0f} s, {misses} texts embedded", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
