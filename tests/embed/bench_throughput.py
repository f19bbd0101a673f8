"""Throughput of the offline models, per CPU-second on one thread (not a test).

Run: ``OMP_NUM_THREADS=1 python tests/embed/bench_throughput.py``. CPU time, not wall time,
so a busy shared machine still gives comparable numbers (models.md measures the same way).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from unifind.embed.bge import BgeSmallEmbedder
from unifind.embed.cross_encoder import CrossEncoderReranker

_VOCAB = """the of and to in is was for on that with as by at from search index query vector
database model rank fusion passage document city river people year world school film
company state music history science water energy market policy system network data"""
WORDS = _VOCAB.split()


def text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))).capitalize() + "."


def per_cpu_second(n: int, fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return n / best


def main() -> None:
    rng = random.Random(7)
    short = [text(rng, 6, 14) for _ in range(200)]
    passages = [text(rng, 260, 330) for _ in range(24)]
    bge = BgeSmallEmbedder()
    tok = bge.runner.tokenizer
    for name, texts in (("short", short), ("passage", passages)):
        tokens = sum(len(tok.encode(t).ids) for t in texts) / len(texts)
        for bs, srt in ((1, True), (8, False), (8, True), (32, False), (32, True)):
            bge.batch_size, bge.sort_by_length = bs, srt

            def embed(texts: list[str] = texts) -> object:
                return bge.embed_documents(texts)

            rate = per_cpu_second(len(texts), embed)
            print(
                f"bge {name:7s} ~{tokens:4.0f} tok  batch={bs:2d} sorted={srt!s:5s} {rate:7.1f}/s"
            )
    ce = CrossEncoderReranker()
    query = "how does reciprocal rank fusion combine search results"
    cands = [text(rng, 40, 160) for _ in range(20)]
    tokens = sum(len(ce.runner.tokenizer.encode(query, c).ids) for c in cands) / len(cands)
    for bs, srt in ((1, True), (20, False), (20, True)):

        def rerank(bs: int = bs, srt: bool = srt) -> object:
            pairs = [(query, c) for c in cands]
            return ce.runner.run(pairs, bs, lambda o, m: o["logits"][:, 0], sort_by_length=srt)

        rate = per_cpu_second(len(cands), rerank)
        print(f"cross-encoder ~{tokens:4.0f} tok  batch={bs:2d} sorted={srt!s:5s} {rate:6.1f}/s")


if __name__ == "__main__":
    main()
