"""Entity graph (issue #13): builtin extraction, entities kept as the chunks' index terms,
the opt-in ``graph`` arm with provenance, and ``explore`` — real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind import InputError, KnowledgeBase, SearchRequest, load_settings
from unifind.embed.base import Embedder, resolve_embedder
from unifind.kb import graph
from unifind.kb._graphq import explore


def hash_factory(spec: str) -> Embedder:
    return resolve_embedder(spec if spec.startswith("hash") else "hash")


DOCS = {
    "fusion": "Reciprocal rank fusion merges ranked lists. Cormack showed it beats Condorcet.",
    "hnsw": "The HNSW index answers nearest neighbour queries; reciprocal rank fusion "
    "then merges its list with BM25.",
    "ship": "Orders ship from Rotterdam within two business days by express courier.",
    "zh": "北京大学的王教授研究人工智能和机器学习。",
}


def test_english_phrases_named_entities_and_chinese_nouns() -> None:
    found = graph.entities("We use reciprocal rank fusion. Orders ship from Rotterdam via HNSW.")
    assert "reciproc rank fusion" in found  # a noun phrase, stemmed like the index terms
    assert {"rotterdam", "hnsw"} <= set(found)  # capitalised mid-sentence / acronym
    assert "we" not in found and "order" not in found  # sentence-initial capitals are not names
    zh = graph.entities("北京大学的王教授研究人工智能。")
    assert {"北京大学", "人工智能"} <= set(zh)
    assert graph.relations(["b", "a", "b", "c"]) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert graph.neighbours([["a", "b"], ["a", "c"], ["a", "b"]], "a") == [("b", 2), ("c", 1)]


@pytest.fixture
def kb(unifind_home: Path) -> Iterator[KnowledgeBase]:
    settings = load_settings(kb={"embedder": "hash"})
    with KnowledgeBase.open(settings, embedder_factory=hash_factory) as kb:
        kb.create("g", metadata={"graph": True})
        kb.create("plain")
        for name in ("g", "plain"):
            for doc_id, text in DOCS.items():
                kb.ingest_text(name, text, document_id=doc_id)
        yield kb


def test_the_graph_arm_runs_on_graph_collections_only(kb: KnowledgeBase) -> None:
    res = kb.search_sync(
        SearchRequest(type="kb", query="reciprocal rank fusion", collections=("g",))
    )
    stages = {r.stage: r for r in res.reports}
    assert stages["graph"].status == "ok" and stages["graph"].hits == 2
    by_graph = [
        it.document_id for it in res.items if any(m.backend == "g/graph" for m in it.matched)
    ]
    assert set(by_graph) == {"fusion", "hnsw"}
    assert res.entities == ({"name": "reciproc rank fusion", "collection": "g"},)
    nodes = {n["name"] for n in res.graph_nodes or ()}
    around = set(graph.entities(DOCS["fusion"]) + graph.entities(DOCS["hnsw"]))
    assert 0 < len(nodes) <= 5  # the second hop: entities sharing a chunk with the query's
    assert nodes <= around - {"reciproc rank fusion"}
    plain = kb.search_sync(
        SearchRequest(type="kb", query="reciprocal rank fusion", collections=("plain",))
    )
    assert "graph" not in {r.stage for r in plain.reports}
    assert plain.entities is None and plain.graph_nodes is None


def test_explore_lists_neighbours_and_mentions(kb: KnowledgeBase) -> None:
    out = explore(kb, "g", "Reciprocal rank fusion", limit=50)
    assert out["entity"] == ["reciproc rank fusion"]
    assert {c["document_id"] for c in out["chunks"]} == {"fusion", "hnsw"}
    names = {n["name"]: n["chunks"] for n in out["neighbours"]}
    assert names["hnsw"] == 1 and names["condorcet"] == 1
    assert explore(kb, "g", "人工智能")["chunks"][0]["document_id"] == "zh"
    with pytest.raises(InputError, match="keeps no entities"):
        explore(kb, "plain", "HNSW")


def test_deleting_a_document_removes_its_entities(kb: KnowledgeBase) -> None:
    kb.store.delete_document("g", "hnsw")
    out = explore(kb, "g", "HNSW")
    assert out["chunks"] == [] and out["neighbours"] == []


def test_query_terms_drop_function_words_but_never_everything() -> None:
    from unifind.analysis import get_analyzer

    auto = get_analyzer("auto")
    assert graph.query_terms(auto, "How should refunds be paid within 30 days?") == [
        "refund",
        "paid",
        "30",
        "day",
    ]
    assert graph.query_terms(auto, "what is it") == auto.terms("what is it")  # nothing else
    assert graph.query_terms(auto, "退款流程是什么") == auto.terms("退款流程是什么")
