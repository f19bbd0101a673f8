"""Issue #21: the LangChain retriever and tool, through langchain-tests' own standard suites
over a real embedded KB, plus what the suites don't check (metadata, filters, bad input)."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langchain_tests")

from langchain_core.documents import Document
from langchain_core.messages import ToolCall, ToolMessage
from langchain_tests.integration_tests import (
    RetrieversIntegrationTests,
    ToolsIntegrationTests,
)
from langchain_tests.unit_tests import ToolsUnitTests

from unifind import InputError, Searcher, SearchRequest
from unifind.integrations.langchain import UnifindRetriever, UnifindSearchTool


class _Bound:
    """Binds the module's KB searcher to the standard suites' constructor parameters."""

    searcher: Searcher

    @pytest.fixture(autouse=True)
    def _bind(self, kb_searcher: Searcher) -> None:
        type(self).searcher = kb_searcher


class TestRetrieverStandard(_Bound, RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[UnifindRetriever]:
        return UnifindRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"searcher": self.searcher, "collections": ["handbook"]}

    @property
    def retriever_query_example(self) -> str:
        return "how are refunds paid"


class TestToolUnitStandard(_Bound, ToolsUnitTests):
    @property
    def tool_constructor(self) -> type[UnifindSearchTool]:
        return UnifindSearchTool

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {"searcher": self.searcher}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"query": "how are refunds paid", "collections": ["handbook"], "max_results": 3}


class TestToolIntegrationStandard(_Bound, ToolsIntegrationTests):
    @property
    def tool_constructor(self) -> type[UnifindSearchTool]:
        return UnifindSearchTool

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {"searcher": self.searcher}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"query": "how are refunds paid", "collections": ["handbook"], "max_results": 3}


def test_documents_carry_citation_provenance_and_statuses(kb_searcher: Searcher) -> None:
    retriever = UnifindRetriever(searcher=kb_searcher, collections=["handbook"], k=3)
    docs = retriever.invoke("how are refunds paid")
    assert [d.metadata["citation_id"] for d in docs] == ["ref_001", "ref_002", "ref_003"]
    top = docs[0]
    assert isinstance(top, Document)
    assert top.metadata["document_id"] == "refunds"
    assert top.page_content.startswith("Refunds are paid within 30 days")
    assert top.metadata["collection"] == "handbook" and top.metadata["leg"] == "kb"
    assert top.metadata["metadata"]["team"] == "billing"
    stages = {m["backend"] for m in top.metadata["matched"]}
    assert stages and all(m["leg"] == "kb" for m in top.metadata["matched"]), stages
    statuses = top.metadata["statuses"]
    assert {(s["leg"], s["backend"], s["status"]) for s in statuses} >= {("kb", "handbook", "ok")}
    assert top.metadata["status"] == "ok"
    assert top.id and top.id.startswith("kb:handbook:")


def test_same_ranking_as_the_direct_call(kb_searcher: Searcher) -> None:
    query = "damaged goods refund"
    req = SearchRequest(type="kb", query=query, limit=4, collections=("handbook",))
    direct = kb_searcher.fuse(kb_searcher.all_sync([req]), top_n=4)
    docs = UnifindRetriever(searcher=kb_searcher, collections=["handbook"], k=4).invoke(query)
    assert [d.metadata["chunk_id"] for d in docs] == [it.chunk_id for it in direct]
    assert [d.metadata["score"] for d in docs] == [it.score for it in direct]


async def test_async_matches_sync(kb_searcher: Searcher) -> None:
    retriever = UnifindRetriever(searcher=kb_searcher, collections=["handbook"], k=3)
    sync_docs = retriever.invoke("password reset link")
    async_docs = await retriever.ainvoke("password reset link")
    assert [d.metadata["chunk_id"] for d in async_docs] == [
        d.metadata["chunk_id"] for d in sync_docs
    ]
    assert async_docs[0].metadata["document_id"] == "passwords"


@pytest.mark.parametrize(
    "filters",
    [{"lang": "de"}, {"lang": {"$eq": "de"}}, {"$and": [{"lang": {"$in": ["de"]}}]}],
)
def test_filters_in_every_supported_form(kb_searcher: Searcher, filters: dict[str, Any]) -> None:
    retriever = UnifindRetriever(searcher=kb_searcher, collections=["handbook"], k=5)
    docs = retriever.invoke("refund policy", filters=filters)
    assert [d.metadata["document_id"] for d in docs] == ["rueckerstattung"]


@pytest.mark.parametrize(
    ("filters", "named"),
    [
        ({"year": {"$gt": 2020}}, "$gt"),
        ({"$or": [{"lang": "en"}, {"lang": "de"}]}, "'$or'"),
        ({"lang": {"$ne": "en"}}, "$ne"),
    ],
)
def test_unsupported_filter_is_a_clear_error(
    kb_searcher: Searcher, filters: dict[str, Any], named: str
) -> None:
    retriever = UnifindRetriever(searcher=kb_searcher, collections=["handbook"])
    with pytest.raises(InputError) as err:
        retriever.invoke("refund policy", filters=filters)
    assert named in str(err.value)
    assert "supported: " in str(err.value) and "any-of" in str(err.value)


def test_bad_constructor_input_names_what_is_valid(kb_searcher: Searcher) -> None:
    # A pydantic model's constructor wraps the InputError (a ValueError) in its own.
    with pytest.raises(ValueError, match=r"unknown source 'files'; valid sources: kb, web, db"):
        UnifindRetriever(searcher=kb_searcher, sources=["kb", "files"])
    with pytest.raises(ValueError, match="filters apply to the kb source"):
        UnifindRetriever(searcher=kb_searcher, sources=["web"], filters={"lang": "en"})
    with pytest.raises(InputError, match="valid per call: k, filters"):
        UnifindRetriever(searcher=kb_searcher).invoke("refunds", top_k=3)


def test_a_failing_leg_is_a_status_not_an_empty_list(kb_searcher: Searcher) -> None:
    # The web leg can't reach any provider here (the network is blocked): its report says
    # so on every document, next to the KB's answer.
    retriever = UnifindRetriever(searcher=kb_searcher, sources=["kb", "web"], k=3)
    docs = retriever.invoke("how are refunds paid")
    assert docs, "the KB answered"
    statuses = docs[0].metadata["statuses"]
    web = [s for s in statuses if s["leg"] == "web"]
    assert web and all(s["status"] != "ok" for s in web), statuses
    assert all(s.get("reason") for s in web)
    assert docs[0].metadata["status"] in ("partial", "ok")


def test_tool_content_is_cited_text_and_artifact_the_structured_result(
    kb_searcher: Searcher,
) -> None:
    tool = UnifindSearchTool(searcher=kb_searcher)
    call = ToolCall(
        name="search",
        args={"query": "how are refunds paid", "collections": ["handbook"], "max_results": 2},
        id="call_1",
        type="tool_call",
    )
    msg = tool.invoke(call)
    assert isinstance(msg, ToolMessage) and msg.tool_call_id == "call_1"
    assert "[ref_001]" in msg.content and "Refunds" in msg.content
    assert msg.artifact["is_error"] is False
    assert msg.artifact["items"][0]["citation_id"] == "ref_001"
    assert msg.artifact["status"] == "ok"
    assert {(r["leg"], r["backend"], r["status"]) for r in msg.artifact["sources"]} == {
        ("kb", "handbook", "ok")
    }
    assert tool.tool_call_schema is not None  # what bind_tools sends the model


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ({"collections": ["handbook"]}, "query"),  # missing
        ({"query": "refunds", "top_k": 3}, "`top_k`: no such argument"),  # extra
        ({"query": "refunds", "max_results": "many"}, "max_results"),  # wrong type
    ],
)
async def test_bad_tool_call_is_in_band_text(
    kb_searcher: Searcher, args: dict[str, Any], said: str
) -> None:
    tool = UnifindSearchTool(searcher=kb_searcher)
    call = ToolCall(name="search", args=args, id="call_2", type="tool_call")
    for msg in (tool.invoke(call), await tool.ainvoke(call)):
        assert isinstance(msg, ToolMessage)
        assert said in msg.content, msg.content
        assert msg.artifact["is_error"] is True


@pytest.mark.parametrize(
    ("filters", "said"),
    [
        ({"tag": {"$in": "billing"}}, "$in takes a list"),
        ({"$and": [{"lang": "en"}, {"lang": "de"}]}, "two different conditions on 'lang'"),
        ({"$and": ["lang"]}, "$and takes a list of filter objects"),
    ],
)
def test_filters_that_cannot_mean_what_they_say_are_refused(
    kb_searcher: Searcher, filters: dict[str, Any], said: str
) -> None:
    retriever = UnifindRetriever(searcher=kb_searcher, collections=["handbook"])
    with pytest.raises(InputError, match=re.escape(said)):
        retriever.invoke("refund policy", filters=filters)
