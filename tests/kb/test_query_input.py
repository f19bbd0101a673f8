"""Queries and filters a caller gets wrong: invalid Unicode is cleaned, bad filters refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind import InputError, KnowledgeBase, Overall, Searcher, SearchRequest, Status
from unifind.config import Settings
from unifind.kb.search import clip_query


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A collection embedded with the real default model: its tokenizer is what refused."""
    home = tmp_path_factory.mktemp("home")
    with KnowledgeBase.open(Settings(home=home)) as kb:
        kb.create("docs")
        kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="r")
        kb.ingest_text("docs", "客户在收到商品后三十天内可以申请退款。", document_id="zh")
    return home


@pytest.fixture
def kb(home: Path) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open(Settings(home=home)) as kb:
        yield kb


@pytest.mark.parametrize("query", ["refunds \ud800", "refunds \udcff\udcfe", "\udc80退款"])
def test_a_lone_surrogate_does_not_fail_the_kb_leg(kb: KnowledgeBase, query: str) -> None:
    result = kb.search_sync(SearchRequest(type="kb", query=query))
    assert result.status == Overall.OK
    assert [r.status for r in result.reports] == [Status.OK, Status.OK]  # lexical and vector
    assert result.items and "\ufffd" in result.query
    assert result.notes == ("query had invalid Unicode (lone surrogates): replaced by U+FFFD",)


def test_clip_query_keeps_valid_text_and_rejoins_split_pairs() -> None:
    assert clip_query("退款 refunds 😀") == ("退款 refunds 😀", ())
    assert clip_query("a\ud83d\ude00b")[0] == "a😀b"
    assert clip_query("a\udcffb\ud800")[0] == "a\ufffdb\ufffd"


BAD_FILTERS: list[dict[str, Any]] = [
    {"team": {"$eq": "support"}},
    {"team": [{"a": 1}]},
    {"team": ["support", ["nested"]]},
    {"team": b"support"},
]


@pytest.mark.parametrize("filters", BAD_FILTERS)
def test_wrong_filter_types_are_input_errors(
    kb: KnowledgeBase, home: Path, filters: dict[str, Any]
) -> None:
    req = SearchRequest(type="kb", query="refunds", filters=filters)
    with pytest.raises(InputError, match="filter 'team': values must be str, number, bool"):
        kb.search_sync(req)
    searcher = Searcher(Settings(home=home))
    try:
        with pytest.raises(InputError, match="'team'"):  # raised, not an unavailable result
            searcher.search_sync(req)
    finally:
        searcher.close()


UNCOMPARABLE: list[tuple[Any, str]] = [
    (2**80, "integers must fit in 64 bits"),
    (-(2**63) - 1, "integers must fit in 64 bits"),
    ([1, 2**64], "integers must fit in 64 bits"),
    (float("nan"), "numbers must be finite"),
    (float("-inf"), "numbers must be finite"),
    ("x" * 4097, "at most 4096 characters"),
    (list(range(1001)), "at most 1000 values"),
]


@pytest.mark.parametrize(("value", "message"), UNCOMPARABLE)
def test_values_no_store_can_compare_are_input_errors(
    kb: KnowledgeBase, home: Path, value: Any, message: str
) -> None:
    """2**80 failed every stage with OverflowError (an unavailable leg); NaN matched
    nothing (a silent empty): both are refused before any stage runs."""
    req = SearchRequest(type="kb", query="refunds", filters={"size": value})
    with pytest.raises(InputError, match=f"filter 'size': .*{message}") as exc:
        kb.search_sync(req)
    assert exc.value.field == "sources.kb.filters"
    searcher = Searcher(Settings(home=home))
    try:
        with pytest.raises(InputError, match=message):
            searcher.search_sync(req)
    finally:
        searcher.close()


def test_the_edges_of_what_is_comparable_still_search(kb: KnowledgeBase) -> None:
    for value in (2**63 - 1, -(2**63), 1.5e308, "x" * 4096, list(range(1000))):
        res = kb.search_sync(SearchRequest(type="kb", query="refunds", filters={"n": value}))
        assert [r.status for r in res.reports] == [Status.OK, Status.OK] and res.items == ()
