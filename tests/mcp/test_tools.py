"""Tool arguments, rendering budgets and in-band errors (in-process SDK client sessions)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client
from mcp.server import Server

from unifind import Overall, Searcher, load_settings
from unifind.mcp_server import build_server
from unifind.mcp_server.args import ArgumentError, fetch_input, search_input
from unifind.mcp_server.render import search_result
from unifind.ops import Operations, SearchOutput
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Item, LegReport, Reason, Status


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


# -- lenient arguments ---------------------------------------------------------------


def test_numbers_and_lists_may_come_as_text() -> None:
    inp, budget = search_input(
        {"query": "q", "max_results": "5", "collections": '["docs", "faq"]', "max_chars": "3000"}
    )
    assert inp.limit == 5 and budget == 3000
    assert inp.sources.kb is not None and inp.sources.kb.collections == ["docs", "faq"]
    inp, _ = search_input({"query": "q", "domains": "python.org, rust-lang.org", "limit": 3.0})
    assert inp.limit == 3
    assert inp.sources.web is not None and inp.sources.web.sites == ["python.org", "rust-lang.org"]
    assert inp.sources.kb is None  # naming a web option searches the web alone


def test_tavily_and_exa_domain_names_are_read_as_ours() -> None:
    args = {"query": "q", "include_domains": ["python.org"], "exclude_domains": "x.org"}
    web = search_input(args)[0].sources.web
    assert web is not None and (web.sites, web.exclude_sites) == (["python.org"], ["x.org"])
    same = {"query": "q", "domains": "python.org", "include_domains": ["python.org"]}
    assert search_input(same)[0].sources.web.sites == ["python.org"]  # type: ignore[union-attr]
    raw = json.dumps({"web": {"include_domains": "a.org", "exclude_domains": ["b.org"]}})
    web = search_input({"query": "q", "sources": raw})[0].sources.web
    assert web is not None and (web.sites, web.exclude_sites) == (["a.org"], ["b.org"])


@pytest.mark.parametrize(
    "args",
    [
        {"query": "q", "domains": "a.org", "include_domains": "b.org"},
        {"query": "q", "sites": "a.org", "include_domains": "b.org"},
        {"query": "q", "exclude_domains": "a.org", "exclude_sites": ["b.org"]},
    ],
)
def test_two_names_of_one_domain_argument_that_disagree_are_refused(args: dict[str, Any]) -> None:
    with pytest.raises(ArgumentError, match="give one of them") as caught:
        search_input(args)
    assert caught.value.arg in args and caught.value.arg != "query"


def test_per_leg_objects_merge_with_the_flat_options() -> None:
    raw = json.dumps({"kb": True, "web": {"provider": "brave"}, "db": False})
    inp, _ = search_input({"query": "q", "sources": raw, "time_range": "Week", "models": "orders"})
    assert inp.sources.kb is not None and inp.sources.kb.collections is None
    assert inp.sources.web is not None
    assert (inp.sources.web.provider, inp.sources.web.time_range) == ("brave", "week")
    assert inp.sources.db is not None and inp.sources.db.models == ["orders"]


@pytest.mark.parametrize(
    ("args", "arg", "valid"),
    [
        ({"query": "q", "max_results": "many"}, "max_results", "1 to 100"),
        ({"query": "q", "max_results": 500}, "max_results", "1 to 100"),
        ({"query": "q", "mode": "fastest"}, "mode", "all, any, race"),
        ({"query": "q", "sources": ["kb", "intranet"]}, "sources", "kb, web, db"),
        ({"query": "q", "time_range": "decade"}, "time_range", "day, week, month, year"),
        ({"query": "q", "colections": ["docs"]}, "colections", "query, sources, collections"),
        ({"query": " "}, "query", "a non-empty string"),
        ({"query": "q", "collections": "[docs"}, "collections", '["a", "b"]'),
    ],
)
def test_bad_arguments_name_the_argument_and_the_valid_values(
    args: dict[str, Any], arg: str, valid: str
) -> None:
    with pytest.raises(ArgumentError) as caught:
        search_input(args)
    assert caught.value.arg == arg
    assert str(caught.value).startswith(f"Invalid argument `{arg}`")
    assert valid in str(caught.value)


def test_fetch_page_size_is_clamped_and_offsets_read_from_text() -> None:
    inp = fetch_input({"url": " https://example.org/a ", "max_chars": "999999", "start": "40"})
    assert (inp.url, inp.max_chars, inp.start) == ("https://example.org/a", 50_000, 40)
    with pytest.raises(ArgumentError, match="`start`"):
        fetch_input({"url": "https://example.org", "start": "-3"})


# -- the size budget -------------------------------------------------------------------


def _output(n: int, chars: int) -> SearchOutput:
    items = [
        Item(type="web", title=f"Page {i}", content="x" * chars, url=f"https://e.org/{i}",
             citation_id=f"ref_{i:03d}")
        for i in range(1, n + 1)
    ]  # fmt: skip
    reports = [
        LegReport(leg="web", backend="brave", status=Status.OK, hits=n),
        LegReport(leg="db", backend="db", status=Status.DISABLED, reason=Reason.NOT_CONFIGURED),
    ]
    return SearchOutput(
        request_id="r1", status=Overall.OK, mode="all", items=items, reports=reports, legs=[],
        took_ms=1.0,
    )  # fmt: skip


@pytest.mark.parametrize("budget", [1_000, 5_000, 20_000])
def test_text_and_structured_content_stay_within_the_budget(budget: int) -> None:
    text, data = search_result(_output(60, 900), "q", budget)
    shown = len(data["items"])
    assert len(text) <= budget
    assert len(json.dumps(data, ensure_ascii=False)) <= budget
    assert 0 < shown < 60  # a small budget shortens snippets before it drops whole items
    cut = data["truncated"]
    assert cut["omitted"] == 60 - shown and cut["last_omitted"] == "ref_060"
    assert cut["first_omitted"] == f"ref_{shown + 1:03d}"
    assert f"[truncated: {60 - shown} more results (ref_{shown + 1:03d}–ref_060)" in text
    # Every backend's status survives the cut.
    assert "- web/brave: ok" in text and "- db/db: disabled (not_configured)" in text
    assert [s["status"] for s in data["sources"]] == ["ok", "disabled"]


def test_snippets_are_shortened_before_whole_items_are_cut() -> None:
    text, data = search_result(_output(8, 900), "q", 5_000)
    assert [i["citation_id"] for i in data["items"]][:5] == [f"ref_00{n}" for n in range(1, 6)]
    cap = data["truncated"]["snippet_chars"]
    assert 0 < cap < 900 and all(len(i["content"]) < 900 for i in data["items"])
    assert f"[trimmed: result text shortened to {cap} characters each" in text
    assert "[ref_001] Page 1 — https://e.org/1\n" + "x" * cap + " … [" in text


def test_nothing_is_cut_when_everything_fits() -> None:
    text, data = search_result(_output(3, 100), "q", 20_000)
    assert "truncated" not in data and "[truncated" not in text
    assert [i["citation_id"] for i in data["items"]] == ["ref_001", "ref_002", "ref_003"]
    assert text.index("[ref_001] Page 1 — https://e.org/1") < text.index("Sources:")


@pytest.fixture
async def long_docs() -> AsyncIterator[Server[Any]]:
    """A KB of eight long documents about refunds, each one chunk of ~1,400 characters."""
    searcher = Searcher(load_settings(kb={"chunk_chars": 4_000}))
    searcher.kb.create("docs", embedder=None)
    for n in range(1, 9):
        text = f"Refunds rule {n}: " + " ".join(f"clause{n}x{i}" for i in range(120))
        searcher.kb.ingest_text("docs", text, document_id=f"rule-{n}", title=f"Refund rule {n}")
    yield build_server(Operations(searcher))
    await searcher.aclose()


async def test_a_small_max_chars_still_shows_the_top_results(long_docs: Server[Any]) -> None:
    async with Client(long_docs) as client:
        res = await client.call_tool(
            "search", {"query": "refunds rule", "max_results": 8, "max_chars": 1_000}
        )
    text, data = text_of(res), res.structured_content
    assert not res.is_error and data is not None
    assert len(text) <= 1_000 and len(json.dumps(data, ensure_ascii=False)) <= 1_000
    shown = data["items"]
    assert len(shown) >= 2, text  # ids, titles and where: nothing more fits in 1,000
    for item in shown:
        assert f"[{item['citation_id']}] {item['title']} — docs: {item['document_id']}" in text
    assert shown[0]["citation_id"] == "ref_001"
    assert "[trimmed: result text" in text and data["truncated"]["snippet_chars"] < 1_200
    assert f"[truncated: {8 - len(shown)} more results" in text


# -- in-band errors through a real (in-process) client session -----------------------------


@pytest.fixture
async def rate_limited() -> AsyncIterator[Server[Any]]:
    """A server whose web provider answers HTTP 429 with Retry-After: 90, and a KB."""
    with FakeWebServer() as web:
        slow = Respond(429, json={"error": "slow"}, headers={"Retry-After": "90"})
        web.route("GET", "/search", slow)
        searx = {"search_provider": "searxng", "searxng": {"base_url": web.url}}
        searcher = Searcher(load_settings(web=searx))
        searcher.kb.create("docs", embedder=None)
        searcher.kb.ingest_text("docs", "Refunds take 30 days.", document_id="r", title="Refunds")
        yield build_server(Operations(searcher))
        await searcher.aclose()


async def test_rate_limited_source_says_when_to_retry(rate_limited: Server[Any]) -> None:
    async with Client(rate_limited) as client:
        alone = await client.call_tool("search", {"query": "refunds", "sources": "web"})
        both = await client.call_tool("search", {"query": "refunds", "sources": ["kb", "web"]})
    # Nothing answered: an error result; still the statuses, with when to retry.
    assert alone.is_error and "No source could answer" in text_of(alone)
    assert "retry in about 90 s" in text_of(alone)
    assert alone.structured_content is not None
    assert alone.structured_content["sources"][0]["retry_after_s"] == 90
    # The KB answered: a partial result, not an error, naming the suspended provider.
    assert not both.is_error and both.structured_content is not None
    assert both.structured_content["status"] == "partial"
    assert "- web/searxng: degraded (rate_limited)" in text_of(both)
    assert re.search(r"retry in about (90|89) s", text_of(both))


async def test_unknown_tool_and_bad_argument_come_back_in_band(rate_limited: Server[Any]) -> None:
    async with Client(rate_limited) as client:
        unknown = await client.call_tool("answer", {"question": "x"})
        bad = await client.call_tool("fetch", {"url": "https://e.org", "offset": 3})
    assert unknown.is_error
    assert text_of(unknown) == "Unknown tool `answer`. Valid: search, fetch, sources, ask."
    assert bad.is_error
    assert text_of(bad) == (
        "Invalid argument `offset`: no such argument. Valid: url, urls, max_chars, start."
    )
