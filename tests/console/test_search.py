"""The search page: rows per backend as they finish, the fused list, DB rows, hostile text."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.console.conftest import Console, World

from unifind.testing.web_server import Respond, Seen

HITS = {
    "results": [
        {"url": "https://example.com/laptops", "title": "Laptop refunds", "content": "laptops"}
    ]
}


def pick_sources(page: Any, *, web: bool = True, db: bool = True, explain: bool = False) -> None:
    page.check("#use-kb")
    if web:
        page.check("#use-web")
        page.select_option("#web-provider", "searxng")
    if db:
        page.check("#use-db")
    if explain:
        page.check("#explain")


def search(page: Any, query: str) -> None:
    page.fill("#q", query)
    page.press("#q", "Enter")


def finished(page: Any) -> str:
    page.wait_for_selector("#search-status[data-overall]")
    return str(page.get_attribute("#search-status", "data-overall"))


def rows(page: Any) -> list[tuple[str, str, str]]:
    """(leg, backend, status) of every row of the backends table."""
    got: list[list[str]] = page.eval_on_selector_all(
        "#backends tbody tr",
        "trs => trs.map(r => [r.dataset.leg, r.dataset.backend, r.dataset.status])",
    )
    return [(a, b, c) for a, b, c in got]


def test_a_search_streams_and_ends_with_every_backends_row(
    world: World,
    console: Callable[[World], Console],
    shots: Callable[[Any, str], Path],
) -> None:
    gate = threading.Event()

    def held(seen: Seen) -> Respond:
        # The web answers only once the test has seen the other legs on the page.
        assert gate.wait(20), "the test never released the web provider"
        return Respond(json=HITS)

    world.web.route("GET", "/search", held)
    tab = console(world)
    page = tab.open(world.key_a)
    pick_sources(page, explain=True)
    try:
        search(page, "laptops")
        # Mid-stream: the KB and the DB have answered and are ranked; the web is pending.
        page.wait_for_selector("#backends tr[data-leg=kb][data-status=ok]")
        page.wait_for_selector("#backends tr[data-leg=db][data-status=ok]")
        page.wait_for_selector("#hits li[data-type=db]")
        assert ("web", "searxng", "pending") in rows(page)
        assert page.get_attribute("#search-status", "data-overall") is None
        assert page.locator("#hits li[data-type=web]").count() == 0
        shots(page, "search-streaming")
    finally:
        gate.set()
    assert finished(page) == "ok"
    got = rows(page)
    assert ("web", "searxng", "ok") in got
    assert ("kb", "demo", "ok") in got and ("db", "products", "ok") in got
    # Every backend considered has its row, the skipped ones included, none left pending.
    assert {("db", "customers", "skipped"), ("db", "orders", "skipped")} <= set(got)
    assert not [r for r in got if r[2] == "pending"]
    legs = page.eval_on_selector_all("#legs-summary li", "xs => xs.map(x => x.dataset.leg)")
    assert sorted(legs) == ["db", "kb", "web"]
    # The fused list now holds the web hit too, each hit with its citation id.
    web_hit = page.locator("#hits li[data-type=web]")
    assert web_hit.count() == 1
    assert web_hit.locator("a").get_attribute("href") == "https://example.com/laptops"
    refs = page.eval_on_selector_all("#hits li .ref", "xs => xs.map(x => x.textContent)")
    assert refs and all(r.startswith("[ref_") for r in refs)
    meta = page.locator("#hits li[data-type=kb] .meta").first.text_content() or ""
    assert "matched by" in meta and "demo/" in meta and "score" in meta
    assert page.locator("#hits mark").count() > 0  # the query's words are marked
    # DB rows as a table, and the DSL behind them (explain).
    table = page.locator("#db-rows table[data-model=products]")
    assert table.locator("tbody tr").count() >= 1
    assert "laptop" in (table.text_content() or "")
    shots(page, "search")
    # Folded under them: the DSL and the SQL behind the rows, values bound apart.
    explain = page.locator("#dsl details.explain")
    assert explain.get_attribute("open") is None
    explain.locator("summary").click()
    dsl = explain.locator("pre.dsl").text_content() or ""
    assert '"model": "products"' in dsl and '"category"' in dsl
    sql = explain.locator("pre.sql[data-model=products]").text_content() or ""
    assert "FROM products" in sql and "?" in sql and "laptop" not in sql
    params = explain.locator("table.params[data-model=products]").text_content() or ""
    assert '"laptop"' in params
    explain.locator("table.params").scroll_into_view_if_needed()
    shots(page, "search-explain")


def test_a_failing_provider_shows_its_reason(
    world: World,
    console: Callable[[World], Console],
    shots: Callable[[Any, str], Path],
) -> None:
    world.web.route("GET", "/search", Respond(429, json={"error": "slow down"}))
    tab = console(world)
    page = tab.open(world.key_a)
    pick_sources(page, db=False)
    search(page, "refunds")
    assert finished(page) == "partial"
    row = page.locator("#backends tr[data-leg=web]")
    assert row.get_attribute("data-status") == "degraded"
    assert "rate_limited" in (row.locator("td.detail").text_content() or "")
    assert page.locator("#backends tr[data-leg=kb][data-status=ok]").count() >= 1
    assert page.locator("#hits li[data-type=kb]").count() > 0  # the survivors' items
    shots(page, "search-degraded")
    # The request's trace, from the History page: the failure where it happened.
    page.click("#tab-history")
    page.click("#history-form button[type=submit]")
    page.wait_for_selector("#trace details[data-kind=request]")
    trace = page.locator("#trace")
    assert trace.locator("details[data-kind=request]").get_attribute("data-status") == "partial"
    web = trace.locator("details[data-kind=leg][data-name=web]")
    assert web.get_attribute("data-status") == "unavailable"
    leaf = web.locator(".leaf[data-kind=backend][data-name=searxng]")
    assert leaf.get_attribute("data-status") == "degraded"
    assert "rate_limited" in (leaf.text_content() or "")
    kb = trace.locator("details[data-kind=leg][data-name=kb]")
    assert kb.get_attribute("data-status") == "ok"
    shots(page, "trace")


HOSTILE_TITLE = '<img src=x onerror="window.__pwned=1">Returns <b>policy</b>'
HOSTILE_TEXT = (
    "Refunds: <script>window.__pwned = 2</script> click "
    '<a href="javascript:window.__pwned=3">here</a> or [there](javascript:alert(1)).'
    " Bell\x07 escape\x1b[31m and \u202egnp.exe"
)
HOSTILE_WEB = {
    "results": [
        {
            "url": "javascript:window.__pwned=4",
            "title": "refunds by script",
            "content": "refunds",
        },
        {
            "url": "https://example.com/x?<script>",
            "title": "<svg onload=window.__pwned=5>refunds",
            "content": "<iframe src=javascript:window.__pwned=6></iframe> refunds",
        },
    ]
}


def test_a_hostile_document_renders_as_text(
    world: World,
    console: Callable[[World], Console],
    shots: Callable[[Any, str], Path],
) -> None:
    with world.client(world.key_a) as api:
        assert api.post("/v1/collections", json={"name": "hostile"}).status_code == 201
        doc = {"document_id": "evil.md", "title": HOSTILE_TITLE, "text": HOSTILE_TEXT}
        r = api.post("/v1/collections/hostile/documents", json=[doc])
        assert r.status_code == 200 and r.json()["added"] == 1, r.text
    world.web.route("GET", "/search", Respond(json=HOSTILE_WEB))
    tab = console(world)
    page = tab.open(world.key_a)
    page.select_option("#kb-collections", "hostile")
    pick_sources(page, db=False)
    search(page, "refunds")
    finished(page)
    hits = page.locator("#hits")
    text = hits.text_content() or ""
    assert "<script>window.__pwned = 2</script>" in text  # shown, not run
    assert '<img src=x onerror="window.__pwned=1">' in text
    # The provider dropped the javascript: result or kept it: either way it is no link.
    web_text = page.locator("#hits li[data-type=web]").all_text_contents()
    assert any("refunds" in w for w in web_text), web_text
    # Control characters and the bidi override are shown as U+FFFD, not obeyed.
    assert "Bell\ufffd escape\ufffd[31m" in text and "\ufffdgnp.exe" in text
    assert "\x07" not in text and "\u202e" not in text
    assert page.evaluate("window.__pwned") is None
    assert tab.dialogs == []
    shots(page, "search-hostile")


def test_a_race_reports_the_loser_skipped(
    world: World, console: Callable[[World], Console]
) -> None:
    gate = threading.Event()

    def held(seen: Seen) -> Respond:
        gate.wait(20)
        return Respond(json=HITS)

    world.web.route("GET", "/search", held)
    tab = console(world)
    page = tab.open(world.key_a)
    pick_sources(page, db=False)
    page.select_option("#mode", "race")
    try:
        search(page, "refunds")
        assert finished(page) == "ok"  # the KB finished first; the web never answered
    finally:
        gate.set()
    row = page.locator("#backends tr[data-leg=web]")
    assert row.get_attribute("data-status") == "skipped"
    assert "cancelled" in (row.locator("td.detail").text_content() or "")
    assert page.locator("#hits li[data-type=web]").count() == 0
