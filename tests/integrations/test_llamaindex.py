"""Issue #21: the LlamaIndex retriever inside a real RetrieverQueryEngine, and the
FunctionTool, over a real embedded KB, with the network blocked (tests/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import model_validator

pytest.importorskip("llama_index.core")

from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from unifind import InputError, Searcher, SearchRequest
from unifind.integrations import llamaindex
from unifind.integrations._common import Search, item_id, metadata
from unifind.integrations.llamaindex import UnifindRetriever, search_tool, to_nodes


@pytest.fixture(autouse=True)
def _bundled_data_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # llama-index-core reads NLTK data and tiktoken encodings from its wheel unless these
    # point elsewhere (where they'd be downloaded: the network is blocked here).
    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)


def test_nodes_carry_citation_provenance_and_statuses(kb_searcher: Searcher) -> None:
    retriever = UnifindRetriever(kb_searcher, collections=["handbook"], similarity_top_k=3)
    nodes = retriever.retrieve("how are refunds paid")
    assert len(nodes) == 3 and all(isinstance(n, NodeWithScore) for n in nodes)
    top = nodes[0]
    assert top.node.metadata["citation_id"] == "ref_001"
    assert top.node.metadata["document_id"] == "refunds"
    assert top.node.get_content().startswith("Refunds are paid within 30 days")
    assert top.score == top.node.metadata["score"]
    assert [m["leg"] for m in top.node.metadata["matched"]] and top.node.metadata["status"] == "ok"
    statuses = top.node.metadata["statuses"]
    assert {(s["leg"], s["backend"], s["status"]) for s in statuses} == {("kb", "handbook", "ok")}


def test_same_ranking_as_the_direct_call(kb_searcher: Searcher) -> None:
    query = "damaged goods refund"
    req = SearchRequest(type="kb", query=query, limit=4, collections=("handbook",))
    direct = kb_searcher.fuse(kb_searcher.all_sync([req]), top_n=4)
    nodes = UnifindRetriever(kb_searcher, collections=["handbook"], similarity_top_k=4).retrieve(
        query
    )
    assert [(n.node.metadata["chunk_id"], n.score) for n in nodes] == [
        (it.chunk_id, it.score) for it in direct
    ]


async def test_query_engine_runs_the_retriever(kb_searcher: Searcher) -> None:
    retriever = UnifindRetriever(kb_searcher, collections=["handbook"], similarity_top_k=2)
    # A real response synthesizer ("compact": prompt packing with the tokenizer llama-index
    # ships) answered by llama-index's own MockLLM, which echoes the prompt it was given.
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = engine.query("how are refunds paid")
    assert [n.node.metadata["citation_id"] for n in response.source_nodes] == [
        "ref_001",
        "ref_002",
    ]
    prompt = str(response)  # MockLLM's answer is the prompt: the context reached the LLM
    assert "Refunds are paid within 30 days" in prompt
    assert "citation_id: ref_001" in prompt and "statuses" not in prompt
    aresponse = await engine.aquery("reset a password")
    assert aresponse.source_nodes[0].node.metadata["document_id"] == "passwords"


def _validated_nodes(kb_searcher: Searcher, query: str) -> tuple[list[NodeWithScore], ...]:
    """The adapter's nodes for ``query``, and the same hits through pydantic's constructors."""
    found = Search(kb_searcher, collections=["handbook"], limit=4).run(query)
    hidden = ["request_id", "leg", "score", "source", "weight", "matched", "statuses"]
    validated = []
    for it in found.items:
        meta = metadata(it, found)
        keys = [k for k in meta if k not in ("citation_id", "title", "url")]
        assert keys[:7] == hidden  # what the LLM and the embedder don't see
        node = TextNode(
            id_=item_id(it),
            text=it.content,
            metadata=meta,
            excluded_llm_metadata_keys=keys,
            excluded_embed_metadata_keys=keys,
        )
        validated.append(NodeWithScore(node=node, score=it.score))
    return to_nodes(found), validated


def test_nodes_are_what_the_validating_constructors_build(kb_searcher: Searcher) -> None:
    nodes, validated = _validated_nodes(kb_searcher, "damaged goods refund")
    assert len(nodes) == 4 and nodes == validated
    assert llamaindex._build.trusted is True  # this llama-index: the shortcut is on
    for got, want in zip(nodes, validated, strict=True):
        assert type(got.node) is TextNode and got.node.__dict__ == want.node.__dict__
        assert got.model_fields_set == want.model_fields_set
        assert got.node.model_fields_set == want.node.model_fields_set
        assert got.model_dump(exclude_unset=True) == want.model_dump(exclude_unset=True)
        assert got.model_dump_json() == want.model_dump_json()
        assert got.node.hash == want.node.hash and got.node_id == want.node_id
        for mode in (MetadataMode.LLM, MetadataMode.EMBED, MetadataMode.ALL):
            assert got.node.get_content(mode) == want.node.get_content(mode)
        assert TextNode.model_validate(got.node.model_dump()) == got.node


def test_nodes_share_no_containers(kb_searcher: Searcher) -> None:
    nodes, _ = _validated_nodes(kb_searcher, "refund")
    first, second = nodes[0].node, nodes[1].node
    first.relationships["x"] = second.as_related_node_info()  # type: ignore[index]
    first.metadata["extra"] = 1
    first.excluded_llm_metadata_keys.append("title")
    assert second.relationships == {} and "extra" not in second.metadata
    assert "title" not in second.excluded_llm_metadata_keys
    assert "title" not in first.excluded_embed_metadata_keys
    again, _ = _validated_nodes(kb_searcher, "refund")
    assert again[0].node.relationships == {} and "extra" not in again[0].node.metadata


def test_a_node_class_that_validates_more_is_built_by_validation(
    kb_searcher: Searcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Derived(TextNode):  # as if a release derived a field in a validator
        @model_validator(mode="after")
        def _offsets(self) -> Derived:
            self.__dict__["end_char_idx"] = len(self.text)
            return self

    monkeypatch.setattr(llamaindex, "TextNode", Derived)
    monkeypatch.setattr(llamaindex, "_build", llamaindex._NodeBuilder())
    found = Search(kb_searcher, collections=["handbook"], limit=3).run("refund")
    for _ in range(2):  # the first call compares, the second already knows
        nodes = to_nodes(found)
        assert llamaindex._build.trusted is False
        ends = [n.node.end_char_idx if isinstance(n.node, TextNode) else None for n in nodes]
        assert ends == [len(it.content) for it in found.items]


def test_metadata_filters_eq_and_in(kb_searcher: Searcher) -> None:
    eq = MetadataFilters(filters=[MetadataFilter(key="lang", value="de")])
    nodes = UnifindRetriever(kb_searcher, filters=eq).retrieve("refund policy")
    assert [n.node.metadata["document_id"] for n in nodes] == ["rueckerstattung"]
    both = MetadataFilters(
        filters=[
            MetadataFilter(key="team", value=["support"], operator=FilterOperator.IN),
            MetadataFilter(key="lang", value="en"),
        ],
        condition=FilterCondition.AND,
    )
    nodes = UnifindRetriever(kb_searcher, filters=both, similarity_top_k=5).retrieve("refund")
    assert {n.node.metadata["document_id"] for n in nodes} <= {"refund-status", "passwords"}
    assert nodes and nodes[0].node.metadata["document_id"] == "refund-status"


@pytest.mark.parametrize(
    ("filters", "named"),
    [
        (
            MetadataFilters(
                filters=[MetadataFilter(key="year", value=2020, operator=FilterOperator.GT)]
            ),
            "'>'",
        ),
        (
            MetadataFilters(
                filters=[MetadataFilter(key="a", value=1), MetadataFilter(key="b", value=2)],
                condition=FilterCondition.OR,
            ),
            "'or'",
        ),
        (
            MetadataFilters(
                filters=[MetadataFilter(key="t", value="x", operator=FilterOperator.NIN)]
            ),
            "'nin'",
        ),
    ],
)
def test_unsupported_filter_is_a_clear_error(
    kb_searcher: Searcher, filters: MetadataFilters, named: str
) -> None:
    with pytest.raises(InputError) as err:
        UnifindRetriever(kb_searcher, filters=filters)
    assert named in str(err.value) and "supported" in str(err.value), str(err.value)


def test_function_tool_answers_with_cited_text(kb_searcher: Searcher) -> None:
    tool = search_tool(kb_searcher)
    assert tool.metadata.name == "search"
    params = tool.metadata.get_parameters_dict()
    assert params["required"] == ["query"] and "collections" in params["properties"]
    assert tool.metadata.to_openai_tool()["function"]["parameters"] == params
    out = tool.call(query="how are refunds paid", collections=["handbook"], max_results=2)
    assert not out.is_error
    assert "[ref_001]" in out.content and "Refunds" in out.content
    assert out.raw_output["items"][0]["citation_id"] == "ref_001"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ({"collections": ["handbook"]}, "query"),
        ({"query": "refunds", "top_k": 3}, "`top_k`: no such argument"),
    ],
)
async def test_bad_tool_call_is_in_band(
    kb_searcher: Searcher, args: dict[str, Any], said: str
) -> None:
    tool = search_tool(kb_searcher)
    for out in (tool.call(**args), await tool.acall(**args)):
        assert out.is_error and said in out.content, out.content
