"""Issue #21: the Haystack components inside real Pipelines, serialised and loaded back,
over a real embedded KB."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("haystack")

from haystack import Document, Pipeline
from haystack.components.builders import PromptBuilder
from haystack.core.errors import DeserializationError

from unifind import InputError, Searcher, SearchRequest
from unifind.integrations.haystack import UnifindRetriever, UnifindSearcher

TRUSTED = ["unifind.integrations.haystack"]


def test_retriever_in_a_pipeline_feeds_a_prompt(kb_searcher: Searcher) -> None:
    pipe = Pipeline()
    pipe.add_component(
        "retriever", UnifindRetriever(searcher=kb_searcher, collections=["handbook"], top_k=2)
    )
    template = "{% for d in documents %}[{{ d.meta.citation_id }}] {{ d.content }}\n{% endfor %}"
    pipe.add_component("prompt", PromptBuilder(template=template, required_variables=["documents"]))
    pipe.connect("retriever.documents", "prompt.documents")
    out = pipe.run({"retriever": {"query": "how are refunds paid"}})
    prompt = out["prompt"]["prompt"]
    assert prompt.startswith("[ref_001] Refunds are paid within 30 days")
    assert prompt.count("[ref_") == 2


def test_documents_carry_citation_provenance_and_statuses(kb_searcher: Searcher) -> None:
    docs = UnifindRetriever(searcher=kb_searcher, top_k=3).run("how are refunds paid")["documents"]
    assert len(docs) == 3 and all(isinstance(d, Document) for d in docs)
    top = docs[0]
    assert top.meta["citation_id"] == "ref_001" and top.meta["document_id"] == "refunds"
    assert top.score == top.meta["score"]
    assert all(m["leg"] == "kb" for m in top.meta["matched"]) and top.meta["matched"]
    assert {(s["leg"], s["status"]) for s in top.meta["statuses"]} == {("kb", "ok")}


def test_same_ranking_as_the_direct_call(kb_searcher: Searcher) -> None:
    query = "damaged goods refund"
    req = SearchRequest(type="kb", query=query, limit=4, collections=("handbook",))
    direct = kb_searcher.fuse(kb_searcher.all_sync([req]), top_n=4)
    retriever = UnifindRetriever(searcher=kb_searcher, collections=["handbook"], top_k=4)
    docs = retriever.run(query)["documents"]
    assert [(d.meta["chunk_id"], d.score) for d in docs] == [
        (it.chunk_id, it.score) for it in direct
    ]


def test_fused_searcher_reports_every_backend(kb_searcher: Searcher) -> None:
    # kb + web; the web leg can't reach a provider (network blocked): a status, not silence.
    searcher = UnifindSearcher(searcher=kb_searcher, top_k=3)
    pipe = Pipeline()
    pipe.add_component("search", searcher)
    out = pipe.run({"search": {"query": "how are refunds paid"}})["search"]
    assert out["documents"] and out["documents"][0].meta["leg"] == "kb"
    web = [s for s in out["statuses"] if s["leg"] == "web"]
    assert web and all(s["status"] != "ok" and s.get("reason") for s in web), out["statuses"]
    assert out["status"] in ("partial", "ok") and out["request_id"].startswith("req_")
    assert out["documents"][0].meta["request_id"] == out["request_id"]


def test_filters_replace_at_run_time(kb_searcher: Searcher) -> None:
    german = {"field": "meta.lang", "operator": "==", "value": "de"}
    retriever = UnifindRetriever(searcher=kb_searcher, filters=german, top_k=5)
    docs = retriever.run("refund policy")["documents"]
    assert [d.meta["document_id"] for d in docs] == ["rueckerstattung"]
    both = {
        "operator": "AND",
        "conditions": [
            {"field": "meta.team", "operator": "in", "value": ["support"]},
            {"field": "meta.lang", "operator": "==", "value": "en"},
        ],
    }
    docs = retriever.run("refund", filters=both)["documents"]
    assert docs and {d.meta["document_id"] for d in docs} <= {"refund-status", "passwords"}


@pytest.mark.parametrize(
    ("filters", "named"),
    [
        ({"field": "meta.year", "operator": ">", "value": 2020}, "'>'"),
        ({"operator": "OR", "conditions": []}, "'OR'"),
        ({"operator": "NOT", "conditions": []}, "'NOT'"),
        ({"field": "content", "operator": "==", "value": "x"}, "'content'"),
    ],
)
def test_unsupported_filter_is_a_clear_error(
    kb_searcher: Searcher, filters: dict[str, Any], named: str
) -> None:
    retriever = UnifindRetriever(searcher=kb_searcher)
    with pytest.raises(InputError) as err:
        retriever.run("refunds", filters=filters)
    assert named in str(err.value) and "supported: " in str(err.value), str(err.value)
    with pytest.raises(InputError):
        UnifindRetriever(searcher=kb_searcher, filters=filters)


def test_to_dict_from_dict_round_trip() -> None:
    retriever = UnifindRetriever(collections=["handbook"], top_k=4, filters=None, mode="text")
    data = retriever.to_dict()
    assert data == {
        "type": "unifind.integrations.haystack.UnifindRetriever",
        "init_parameters": {
            "top_k": 4,
            "collections": ["handbook"],
            "mode": "text",
            "filters": None,
            "config": None,
        },
    }
    back = UnifindRetriever.from_dict(data)
    assert back.to_dict() == data
    fused = UnifindSearcher(sources=["kb", "db"], top_k=2, models=["orders"])
    assert UnifindSearcher.from_dict(fused.to_dict()).to_dict() == fused.to_dict()


async def test_yaml_pipeline_loads_and_runs_on_its_config(
    kb_searcher: Searcher, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The loaded components build their Searcher from a unifind config file naming the KB's
    # home: what a deployed YAML pipeline does (UNIFIND_HOME would win over the file).
    monkeypatch.delenv("UNIFIND_HOME")
    config = tmp_path / "unifind.yaml"
    config.write_text(yaml.safe_dump({"home": str(kb_searcher.settings.home)}), encoding="utf-8")
    pipe = Pipeline()
    pipe.add_component(
        "retriever", UnifindRetriever(collections=["handbook"], top_k=2, config=str(config))
    )
    text = pipe.dumps()
    assert "unifind.integrations.haystack.UnifindRetriever" in text
    with pytest.raises(DeserializationError):
        Pipeline.loads(text)  # Haystack trusts no module it wasn't told to
    loaded = Pipeline.loads(text, allowed_modules=TRUSTED)
    try:
        docs = loaded.run({"retriever": {"query": "reset a password"}})["retriever"]["documents"]
        assert docs[0].meta["document_id"] == "passwords"
        # Haystack 3's Pipeline runs components' run_async itself.
        out = await loaded.run_async({"retriever": {"query": "shipping to europe"}})
        assert out["retriever"]["documents"][0].meta["document_id"] == "shipping"
    finally:
        retriever = loaded.get_component("retriever")
        assert isinstance(retriever, UnifindRetriever)
        retriever.close()
