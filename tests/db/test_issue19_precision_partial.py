"""Issue #19, precision: every content word accounted for; an answer that could not use a
word is ``partial`` (Python, CLI), and the result carries ``understood`` and a confidence."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from typer.testing import CliRunner

from unifind import Searcher, load_settings
from unifind.cli import app
from unifind.db.demo import create_demo
from unifind.db.leg import DBLeg
from unifind.mcp_server.args import search_input
from unifind.mcp_server.render import search_result
from unifind.ops import Operations
from unifind.types import Overall, Principal, Reason, SearchRequest, Status

from ._schema19 import query

runner = CliRunner()


async def test_every_word_used_is_ok_with_full_confidence(sports: tuple[DBLeg, str]) -> None:
    leg, url = sports
    res = await leg.search(SearchRequest(type="db", query="athletes from Kenya older than 27",
                                         models=("athletes",)))  # fmt: skip
    assert res.status is Overall.OK
    assert [r.stage for r in res.reports] == [None]
    assert res.understood is not None and res.confidence == 1.0
    assert res.understood["kenya"] == "value of country"
    assert res.understood["27"] == "number condition of age"
    want = query(url, "SELECT name FROM athletes WHERE country = 'Kenya' AND age > 27")
    assert sorted((i.data or {})["name"] for i in res.items) == sorted(r[0] for r in want)


async def test_an_unused_word_makes_the_answer_partial(sports: tuple[DBLeg, str]) -> None:
    leg, _ = sports
    res = await leg.search(SearchRequest(type="db", query="athletes from Kenya with sponsors",
                                         models=("athletes",)))  # fmt: skip
    assert res.status is Overall.PARTIAL
    stage = next(r for r in res.reports if r.stage == "understanding")
    assert stage.status is Status.DEGRADED and stage.reason is Reason.NOT_UNDERSTOOD
    assert stage.error is not None and "sponsor" in stage.error
    main = next(r for r in res.reports if r.stage is None)
    assert main.status is Status.OK and main.hits == 3  # the rows it could answer, kept
    assert res.understood is not None and res.understood["sponsors"].startswith("not used")
    assert res.confidence is not None and 0 < res.confidence < 1


async def test_a_dsl_written_by_an_agent_has_no_word_accounting(
    sports: tuple[DBLeg, str],
) -> None:
    leg, _ = sports
    dsl = {"model": "athletes", "wheres": [{"field": "country", "value": "Kenya"}]}
    res = await leg.search(SearchRequest(type="db", query="whatever zebra", uses="dsl", dsl=dsl))
    assert res.status is Overall.OK and res.understood is None and res.confidence is None


def test_the_cli_says_partial_and_exits_0(unifind_home: Path) -> None:
    assert runner.invoke(app, ["db", "demo", "--today", "2024-06-15"]).exit_code == 0
    res = runner.invoke(app, ["db", "search", "laptops with zebra stripes", "--model",
                              "products", "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["status"] == "partial"
    assert out["understood"]["laptops"] == "value of category"
    assert out["understood"]["zebra"].startswith("not used")
    assert any(r.get("reason") == "not_understood" for r in out["reports"])
    res = runner.invoke(app, ["db", "search", "cheapest 3 laptops", "--model", "products",
                              "--json"])  # fmt: skip
    out = json.loads(res.output)
    assert res.exit_code == 0 and out["status"] == "ok" and out["confidence"] == 1.0


async def test_http_and_mcp_say_partial_through_operations(unifind_home: Path) -> None:
    """HTTP's POST /v1/search and MCP's search tool both answer from Operations.search."""
    create_demo(unifind_home / "shop.sqlite", today=dt.date(2024, 6, 15))
    searcher = Searcher(load_settings(kb={"embedder": "hash:64"}))
    try:
        ops = Operations(searcher)
        inp, budget = search_input({"query": "laptops with zebra stripes", "sources": ["db"],
                                    "max_results": 50})  # fmt: skip
        out = await ops.search(inp, principal=Principal(tenant="acme"))
        assert out.status is Overall.PARTIAL
        leg = next(s for s in out.legs if s.type == "db")
        assert leg.understood is not None and leg.understood["zebra"].startswith("not used")
        assert leg.confidence is not None and leg.confidence < 1
        text, data = search_result(out, inp.query, budget)
        assert data["status"] == "partial"
        assert "(understanding): degraded (not_understood)" in text
        inp, _ = search_input({"query": "cheapest 3 laptops", "sources": ["db"]})
        out = await ops.search(inp, principal=Principal(tenant="acme"))
        assert out.status is Overall.OK
    finally:
        searcher.close()


async def test_a_comparison_left_out_makes_the_answer_partial(unifind_home: Path) -> None:
    """'under 50 euros' on a price in USD with no exchange rate is read and not compared:
    the rows ignore it, so the answer is partial (the note says why) — and refused when
    strict — never ok with only a note (issue #19's README example)."""
    create_demo(unifind_home / "shop.sqlite", today=dt.date(2024, 6, 15))
    searcher = Searcher(load_settings(kb={"embedder": "hash:64"}))
    leg = searcher.leg("db")
    req = SearchRequest(type="db", query="products under 50 euros", models=("products",))
    res = await leg.search(req)
    assert res.status is Overall.PARTIAL
    stage = next(r for r in res.reports if r.stage == "understanding")
    assert stage.reason is Reason.NOT_UNDERSTOOD and "no exchange rate" in (stage.error or "")
    assert res.understood is not None and res.understood["euros"].startswith("not used")
    assert not any(w.get("field") == "price" for w in (res.dsl or {}).get("wheres", []))
    strict = await leg.search(SearchRequest(type="db", query="products under 50 euros",
                                            models=("products",), strict=True))  # fmt: skip
    assert strict.status is Overall.UNAVAILABLE and "could not compare" in str(strict.reports)
    dollars = await leg.search(SearchRequest(type="db", query="products under 50 dollars",
                                             models=("products",)))  # fmt: skip
    assert dollars.status is Overall.OK
    assert all((i.data or {})["price"] < 50 for i in dollars.items) and dollars.items
    searcher.close()
