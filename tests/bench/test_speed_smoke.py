"""The speed and peers benchmarks run end to end on ~200 chunks.

The real runs (bench/speed.py at 200k chunks, bench/peers.py on SciFact) take many
minutes; these prove the synthetic corpus is what the analyser would make, every measured
path answers, and the reports say met / not met correctly. The peer systems live only in
the bench venv (bench/.venv): their part skips cleanly where they aren't installed.
"""

from __future__ import annotations

import importlib
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from unifind.analysis import ENGLISH_STOPWORDS
from unifind.testing.fakes import HashEmbedder

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench() -> Iterator[dict[str, ModuleType]]:
    sys.path.insert(0, str(BENCH))
    try:
        yield {m: importlib.import_module(m) for m in ("_synth", "speed", "peers")}
    finally:
        sys.path.remove(str(BENCH))


# -- the synthetic corpus ----------------------------------------------------------------


def test_synthetic_terms_are_the_analysers(bench: dict[str, ModuleType]) -> None:
    synth = bench["_synth"]
    vocab = synth.make_vocabulary(3000, seed=5)
    docs = list(synth.documents(vocab, 23, seed=7))
    assert [len(chunks) for _, chunks in docs] == [5, 5, 5, 5, 3]
    for doc, chunks in docs:
        for c in chunks:
            synth.check_terms(vocab, c.text, dict(c.terms))  # raises on any difference
            assert 40 <= len(c.text.split()) <= 120
            assert c.end - c.start == len(c.text)
            assert c.vector is not None and abs(float(np.linalg.norm(c.vector)) - 1) < 1e-5
        assert doc.text_chars == chunks[-1].end


def test_check_terms_catches_a_wrong_count(bench: dict[str, ModuleType]) -> None:
    synth = bench["_synth"]
    with pytest.raises(AssertionError, match="differ"):
        synth.check_terms(synth.make_vocabulary(3000, seed=5), "penguins penguins", {"penguin": 1})


def test_words_follow_zipf(bench: dict[str, ModuleType]) -> None:
    synth = bench["_synth"]
    vocab = synth.make_vocabulary(3000, seed=5)
    counts = Counter(synth.sample_words(vocab, 200_000, np.random.default_rng(0)).tolist())
    # s = 1: the most frequent word is ~10x as frequent as the 10th, ~2x the 2nd.
    assert 8.5 < counts[0] / counts[9] < 11.5
    assert 1.8 < counts[0] / counts[1] < 2.2
    assert vocab.words[: len(ENGLISH_STOPWORDS)] == sorted(ENGLISH_STOPWORDS)


def test_queries_hold_2_to_5_content_words(bench: dict[str, ModuleType]) -> None:
    synth = bench["_synth"]
    vocab = synth.make_vocabulary(3000, seed=5)
    qs = synth.queries(vocab, 50, seed=1)
    assert qs == synth.queries(vocab, 50, seed=1)
    assert {len(q.split()) for q in qs} == {2, 3, 4, 5}
    assert not any(w in ENGLISH_STOPWORDS for q in qs for w in q.split())


def test_precomputed_embedder_refuses_unknown_texts(bench: dict[str, ModuleType]) -> None:
    synth = bench["_synth"]
    vec = np.ones(4, np.float32) / 2
    emb = synth.PrecomputedEmbedder("x", 4, {"q": vec}, {"d": vec})
    assert emb.embed_query("q") is vec and emb.embed_documents(["d"]).shape == (1, 4)
    with pytest.raises(KeyError, match="no precomputed query vector"):
        emb.embed_query("other")
    with pytest.raises(KeyError, match="1 text"):
        emb.embed_documents(["d", "nope"])


# -- speed.py ----------------------------------------------------------------------------


def test_speed_build_and_measure(bench: dict[str, ModuleType], tmp_path: Path) -> None:
    speed = bench["speed"]
    built = speed.build(tmp_path / "s.sqlite", 200)
    assert (built["chunks"], built["documents"]) == (200, 40)
    assert built["chunks_per_s"] > 0 and built["peak_rss_mb"] > 0
    stats = speed.measure(tmp_path / "s.sqlite", 20)
    assert stats["cold_lexical_ms"] > 0 and stats["cold_vector_ms"] > 0
    for table, modes in (("store", ("lexical", "vector")), ("kb", speed.MODES)):
        for mode in modes:
            p50, p95 = stats[table][mode]
            assert 0 < p50 <= p95, (table, mode)


def test_speed_ingestion_compares_the_same_texts(
    bench: dict[str, ModuleType], tmp_path: Path
) -> None:
    speed = bench["speed"]
    docs = [("a", "Tea", "Green tea leaves are steamed. " * 80), ("b", "", "Basalt is rock.")]
    texts = speed.chunk_texts(docs)
    assert len(texts[0]) > 1 and all(t.startswith("Tea\n\nGreen tea") for t in texts[0])
    assert texts[1] == ["Basalt is rock."]
    emb = HashEmbedder(speed.DIM)
    with speed._kb(tmp_path, emb) as kb:
        wall, cpu = speed._alternate(kb, emb, docs * 1, texts, block=1)
        assert kb.collection("ingest").chunks == len(texts[0]) + 1
    assert min(wall.values()) > 0 and min(cpu.values()) >= 0


def _fake_results(lexical: float, hybrid: float) -> dict[str, Any]:
    run = {
        "cold_lexical_ms": 50.0, "cold_vector_ms": 90.0, "peak_rss_mb": 900, "load": 1.5,
        "store": {"lexical": [lexical, 3.0], "vector": [0.5, 0.9]},
        "kb": {"text": [lexical + 1, 4.0], "semantic": [2.0, 3.0], "hybrid": [hybrid, 9.0]},
    }  # fmt: skip
    build = {
        "documents": 40000,
        "write_s": 100.0,
        "chunks_per_s": 2000,
        "lexical_build_s": 1.0,
        "vector_build_s": 30.0,
        "hnsw_build_s": 1.0,
        "file_mb": 700,
        "peak_rss_mb": 1200,
    }
    return {
        "command": "python bench/speed.py",
        "sizes": {"200000": {"build": build, "runs": [run, run]}},
        "embed": [{"queries": 200, "p50_p95_ms": [6.0, 9.0], "load_s": 0.4, "peak_rss_mb": 300}],
        "ingest": {"documents": 500, "peak_rss_mb": 700, "passes": [
            {"pass": 1, "chunks": 900, "ingest_s": 100.0, "raw_s": 95.0, "ratio": 0.95,
             "ingest_cpu_s": 90.0, "raw_cpu_s": 88.0, "cpu_ratio": 0.978}]},
    }  # fmt: skip


def test_speed_report_says_met_or_not(bench: dict[str, ModuleType]) -> None:
    render = bench["speed"].render
    md = render(_fake_results(lexical=1.5, hybrid=4.0))
    assert "store 1.50 ms (met, target ≤ 2)" in md
    assert "KnowledgeBase.search 2.50 ms (NOT met, target ≤ 2)" in md
    assert "(KnowledgeBase.search): 4.00 ms (met, target ≤ 5)" in md
    assert "| 200,000 | 2 | 1.50 / 3.00 | 0.50 / 0.90 |" in md
    assert "| 1 | 900 | 100.0 | 95.0 | 0.95 | 90.0 | 88.0 | 0.978 |" in md
    assert "NOT met, target ≤ 5" in render(_fake_results(lexical=1.0, hybrid=5.5))


# -- peers.py ----------------------------------------------------------------------------


def _tiny_scifact(bench: dict[str, ModuleType]) -> Any:
    """200 one-chunk documents of synthetic text; each query is words of its one answer."""
    synth, datasets = bench["_synth"], importlib.import_module("_datasets")
    vocab = synth.make_vocabulary(3000, seed=5)
    rank = {w: r for r, w in enumerate(vocab.words)}
    docs: list[Any] = []
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    for i, (_, chunks) in enumerate(synth.documents(vocab, 200, seed=3)):
        for j, c in enumerate(chunks):
            did = f"d{i}-{j}"
            docs.append(datasets.Doc(did, "", c.text))
            if len(queries) < 30 and j == 0:
                content = {w for w in c.text.split() if w not in ENGLISH_STOPWORDS}
                queries[f"q{i}"] = " ".join(sorted(content, key=rank.__getitem__)[-3:])
                qrels[f"q{i}"] = {did: 1}
    return datasets.Dataset("tiny", docs, queries, qrels)


def _unifind(peers: ModuleType, corpus: Any, home: Path, closers: list[Any]) -> Any:
    emb = peers.QueryModel(HashEmbedder(), corpus.vectors)
    return peers.System(peers.unifind_kb(home, emb, closers), emb)


def test_peers_unifind_side(bench: dict[str, ModuleType], tmp_path: Path) -> None:
    pytest.importorskip("ir_measures", reason="bench-only dependency: pip install ir-measures")
    peers = bench["peers"]
    ds = _tiny_scifact(bench)
    corpus = peers.build_corpus(ds, HashEmbedder(), tmp_path)
    closers: list[Any] = []
    try:
        assert len(corpus.keys) == 200 and len(corpus.vectors) == 200
        res = peers.compare({"unifind": _unifind(peers, corpus, tmp_path, closers)}, ds, repeat=1)
    finally:
        for close in closers:
            close()
    assert res["unifind"]["ndcg"] > 0.6  # queries are their answer's rarest words
    assert len(res["unifind"]["passes"]) == 1


def test_peers_side_by_side(bench: dict[str, ModuleType], tmp_path: Path) -> None:
    for mod in ("langchain_classic", "langchain_community", "llama_index.core",
                "llama_index.retrievers.bm25", "rank_bm25", "ir_measures"):  # fmt: skip
        pytest.importorskip(mod, reason="peers live in the bench venv only (bench/.venv)")
    peers = bench["peers"]
    ds = _tiny_scifact(bench)
    corpus = peers.build_corpus(ds, HashEmbedder(), tmp_path)
    closers: list[Any] = []

    def peer(make: Any, **kw: Any) -> Any:
        emb = peers.QueryModel(HashEmbedder(), corpus.vectors)
        return peers.System(make(corpus, emb, **kw), emb)

    try:
        systems = {
            "unifind": _unifind(peers, corpus, tmp_path, closers),
            "langchain": peer(peers.langchain_search),
            "langchain+analyser": peer(peers.langchain_search, analyser=True),
            "llamaindex": peer(peers.llamaindex_search),
        }
        res = peers.compare(systems, ds, repeat=2)
    finally:
        for close in closers:
            close()
    for name, r in res.items():
        assert r["ndcg"] > 0.5, name
        assert len(r["passes"]) == 2
    meta = {"command": "peers.py", "docs": 200, "chunks": 200, "queries": len(ds.queries),
            "versions": "test", "build_s": {}, "notes": []}  # fmt: skip
    md = peers.render(res, meta)
    assert "| llamaindex |" in md and "| unifind |" in md
