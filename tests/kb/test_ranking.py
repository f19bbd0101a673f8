"""KB ranking (issue #13): adaptive fusion, stable tiers, the 0-1 scale, threshold notes,
chunk labels and document grouping — on the real SQLite store with the hash embedder."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from unifind import InputError, KnowledgeBase, SearchRequest, load_settings
from unifind.embed.base import Embedder, resolve_embedder
from unifind.kb._feedback import rm3, rocchio
from unifind.kb._rank import Run, depth_for, tiered
from unifind.kb.base import Hit
from unifind.rank import adaptive


def hash_factory(spec: str) -> Embedder:
    return resolve_embedder(spec if spec.startswith("hash") else "hash")


WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
]


@pytest.fixture
def kb(unifind_home: Path) -> Iterator[KnowledgeBase]:
    settings = load_settings(kb={"embedder": "hash", "candidates": 20, "chunk_chars": 200})
    with KnowledgeBase.open(settings, embedder_factory=hash_factory) as kb:
        kb.create("docs")
        for i in range(120):  # 120 documents sharing words in varying amounts
            words = [WORDS[(i * 7 + j) % len(WORDS)] for j in range(1 + i % 9)]
            kb.ingest_text("docs", " ".join(words) + f" doc{i}", document_id=f"d{i}")
        long = " ".join(f"sentence {n} about alpha beta and gamma." for n in range(40))
        kb.ingest_text("docs", long, document_id="long", title="Long read")
        yield kb


def search(kb: KnowledgeBase, query: str, **kw: object) -> object:
    req = SearchRequest(type="kb", query=query, collections=("docs",), **kw)  # type: ignore[arg-type]
    return kb.search_sync(req)


def run(stage: str, pairs: list[tuple[str, float]]) -> Run:
    return Run("c", stage, [Hit(c, s) for c, s in pairs])


def test_adaptive_weights_favour_the_arm_the_other_confirms() -> None:
    dense = {f"d{i}": 1 - i / 20 for i in range(20)}
    # Lexical's head is four chunks dense never saw; its tail is dense's head.
    lexical = {"x1": 9.0, "x2": 8.0, "x3": 7.0, "x4": 6.0} | {
        f"d{i}": 5 - i / 10 for i in range(10)
    }
    w = adaptive.weights({"lex": lexical, "vec": dense})
    assert w["vec"] > w["lex"] > 0
    assert w["lex"] + w["vec"] == pytest.approx(1.0)
    fused = adaptive.fuse({"lex": lexical, "vec": dense})
    assert fused[0][0] == "d0"  # equal weights would put x1 (lexical's top) level with it
    assert all(0.0 <= s <= 1.0 for _, s in fused)


def test_agreeing_arms_get_equal_weights() -> None:
    a = {f"k{i}": 10 - i for i in range(10)}
    assert adaptive.weights({"a": a, "b": dict(a)}) == {"a": 0.5, "b": 0.5}


def test_tiers_keep_the_head_whatever_the_depth() -> None:
    lex = run("lexical", [(f"l{i}", 100 - i) for i in range(100)])
    vec = run("vector", [(f"v{i}", 1 - i / 200) for i in range(100)])
    shallow = tiered([lex, vec], method="adaptive", k=60, candidates=10, need=10)
    deep = tiered([lex, vec], method="adaptive", k=60, candidates=10, need=150)
    assert deep[: len(shallow)] == shallow
    keys = [k for k, _ in deep]
    assert len(keys) == len(set(keys)) >= 150
    scores = [s for _, s in deep]
    assert scores == sorted(scores, reverse=True) and 0 <= scores[-1] <= scores[0] <= 1
    assert depth_for(150, 10) == 150 and depth_for(1, 10) == 10 and depth_for(11, 10) == 20


@pytest.mark.parametrize("method", ["adaptive", "convex", "rrf"])
def test_every_fusion_scores_on_the_0_1_scale(method: str) -> None:
    lex = run("lexical", [("a", 12.0), ("b", 3.0), ("c", 1.0)])
    vec = run("vector", [("a", 0.9), ("c", 0.5), ("d", 0.4)])
    fused = tiered([lex, vec], method=method, k=60, candidates=10, need=10)
    key, score = fused[0]
    assert key == ("c", "a") and score == pytest.approx(1.0)  # first in both arms
    assert all(0.0 <= s <= 1.0 for _, s in fused)


def test_pages_of_100_neither_repeat_nor_skip(kb: KnowledgeBase) -> None:
    q = "alpha beta gamma"
    everything = [it.chunk_id for it in search(kb, q, limit=300).items]  # type: ignore[attr-defined]
    p1 = [it.chunk_id for it in search(kb, q, limit=100).items]  # type: ignore[attr-defined]
    p2 = [it.chunk_id for it in search(kb, q, limit=100, offset=100).items]  # type: ignore[attr-defined]
    assert p1 + p2 == everything[: len(p1) + len(p2)]
    assert len(set(p1 + p2)) == len(p1 + p2) > 100
    top10 = [it.chunk_id for it in search(kb, q, limit=10).items]  # type: ignore[attr-defined]
    assert top10 == everything[:10]


@pytest.mark.parametrize("mode", ["text", "semantic", "hybrid"])
def test_scores_lie_in_0_1_in_every_mode(kb: KnowledgeBase, mode: str) -> None:
    res = search(kb, "gamma delta", mode=mode, limit=50)
    scores = [it.score for it in res.items]  # type: ignore[attr-defined]
    assert scores and all(0.0 <= s <= 1.0 for s in scores)
    assert scores == sorted(scores, reverse=True)


def test_a_threshold_that_removes_everything_says_so(kb: KnowledgeBase) -> None:
    queries = [f"{a} {b} doc{n}" for n, (a, b) in enumerate(zip(WORDS, WORDS[3:], strict=False))]
    best = {q: search(kb, q, limit=1).items[0].score for q in queries}  # type: ignore[attr-defined]
    q, top = min(best.items(), key=lambda kv: kv[1])
    assert top < 1.0  # the arms disagree on their best chunk, so no chunk scores 1
    res = search(kb, q, threshold=1.0)
    assert res.items == () and res.total == 0  # type: ignore[attr-defined]
    assert res.notes == (  # type: ignore[attr-defined]
        f"threshold 1 removed all {search(kb, q).total} hits "  # type: ignore[attr-defined]
        f"(best score {top:.3f} on the 0-1 scale); lower it or drop it",
    )
    kept = search(kb, q, threshold=top / 2, limit=300)
    assert kept.items and all(it.score >= top / 2 for it in kept.items)  # type: ignore[attr-defined]
    assert kept.notes == ()  # type: ignore[attr-defined]
    with pytest.raises(InputError, match="between 0 and 1"):
        search(kb, "alpha", threshold=3.5)


def test_two_chunks_of_one_document_are_labelled(kb: KnowledgeBase) -> None:
    res = search(kb, "sentence about alpha beta gamma", limit=30)
    longs = [it for it in res.items if it.document_id == "long"]  # type: ignore[attr-defined]
    assert len(longs) >= 2
    titles = [it.title for it in longs]
    assert len(set(titles)) == len(titles)
    assert all(t.startswith("Long read (chunk ") for t in titles)
    assert {it.metadata["chunk"] for it in longs} == {int(t.split()[-1][:-1]) for t in titles}


def test_document_grouping_counts_documents(kb: KnowledgeBase) -> None:
    res = search(kb, "sentence about alpha beta gamma", limit=15, group="document")
    docs = [it.document_id for it in res.items]  # type: ignore[attr-defined]
    assert len(docs) == len(set(docs)) == 15
    assert "long" in docs
    chunks = search(kb, "sentence about alpha beta gamma", limit=15)
    assert docs[0] == chunks.items[0].document_id  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="applies to kb"):
        SearchRequest(type="web", query="x", group="document")


def test_rocchio_moves_the_query_towards_the_feedback_and_stays_unit() -> None:
    q = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    fb = [np.array([0.0, 1.0, 0.0], dtype=np.float32)] * 2
    moved = rocchio(q, fb, 0.5)
    assert moved == pytest.approx(np.array([1, 0.5, 0]) / np.sqrt(1.25))
    assert rocchio(q, [], 0.5) is q


def test_rm3_keeps_the_query_and_adds_the_feedback_terms_by_weight() -> None:
    docs = [["refund", "card", "card", "receipt"], ["refund", "card", "bank"]]
    terms = Counter(rm3(["refund", "policy"], docs, terms=3, lam=0.5))
    assert {"refund", "policy", "card"} <= set(terms)
    # refund: 0.5 * 1/2 + 0.5 * (5/12) / (4/3) = 0.406; card 0.25; policy 0.25; receipt 0.094
    assert (terms["refund"], terms["card"], terms["policy"], terms["receipt"]) == (41, 25, 25, 9)
    assert "bank" not in terms  # a fourth term: only the best three expand the query
    assert rm3(["a"], [], terms=3, lam=0.5) == ["a"]


def test_feedback_is_noted_on_the_stages_and_can_be_turned_off(unifind_home: Path) -> None:
    for docs, note in ((2, True), (0, False)):
        settings = load_settings(kb={"embedder": "hash", "feedback_docs": docs})
        with KnowledgeBase.open(settings, embedder_factory=hash_factory) as kb:
            if "docs" not in {c.name for c in kb.store.list_collections()}:
                kb.create("docs")
                for i in range(30):
                    kb.ingest_text(
                        "docs", f"{WORDS[i % 12]} {WORDS[(i + 1) % 12]} d{i}", document_id=f"d{i}"
                    )
            res = search(kb, "alpha beta", mode="hybrid")
            notes = [r.note or "" for r in res.reports if r.stage in ("lexical", "vector")]  # type: ignore[attr-defined]
            assert len(notes) == 2
            assert all(("feedback (rocchio 2, rm3 10x20)" in n) is note for n in notes)
            text = search(kb, "alpha beta", mode="text")  # one arm: nothing to refine
            assert not any("feedback" in (r.note or "") for r in text.reports)  # type: ignore[attr-defined]


def test_feedback_never_invents_lexical_matches(unifind_home: Path) -> None:
    # A collection with none of the query's words must not gain lexical hits from the
    # words of chunks that only the dense arm brought (RM3 on an empty run).
    settings = load_settings(kb={"embedder": "hash:64"})
    with KnowledgeBase.open(settings, embedder_factory=hash_factory) as kb:
        kb.create("docs", embedder="hash:64")
        kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="refunds")
        kb.ingest_text("docs", "Shipping takes five days.", document_id="shipping")
        kb.create("notes", embedder="hash:64")
        kb.ingest_text("notes", "the secret walrus cobalt plan", document_id="plan")
        res = kb.search_sync(SearchRequest(type="kb", query="walrus cobalt"))
        assert res.items[0].document_id == "plan"
        lexical = {r.backend: r.hits for r in res.reports if r.stage == "lexical"}
        assert lexical == {"docs": 0, "notes": 1}
        assert not any(m.backend == "docs/lexical" for it in res.items for m in it.matched)
