"""WebLeg end to end over loopback: items, dedupe, sites, fallback, suspension, cache, render."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from unifind._http import Http, HttpPolicy
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Reason, SearchRequest, Status
from unifind.web.leg import WebLeg, cap_text
from unifind.web.render import render_fetch, render_results

_OPEN: list[WebLeg] = []


@pytest.fixture(autouse=True)
async def _close_legs() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


def track(w: WebLeg) -> WebLeg:
    _OPEN.append(w)
    return w


FAST = HttpPolicy(retries=1, backoff_s=0.001, max_retry_after_s=0.05)

TAVILY = {
    "results": [
        {"title": "A", "url": "https://a.example/page?utm_source=x", "content": "first"},
        {"title": "A again", "url": "http://www.a.example/page/", "content": "dup"},
        {
            "title": "B",
            "url": "https://docs.b.example/x",
            "content": "second",
            "published_date": "2024-01-01",
        },
        {"title": "Not a web URL", "url": "javascript:alert(1)", "content": "bad"},
    ]
}
SERPER = {
    "searchParameters": {"q": "x"},
    "organic": [{"title": "S", "link": "https://s.example/", "snippet": "s"}],
}


@pytest.fixture
def server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        yield s


def leg_for(server: FakeWebServer, tmp_path: Path, **web: object) -> WebLeg:
    env = {
        "TAVILY_API_KEY": "t",
        "SERPER_API_KEY": "s",
        "UNIFIND_TAVILY_BASE_URL": server.url,
        "UNIFIND_SERPER_BASE_URL": server.url,
    }
    return track(WebLeg(web, home=tmp_path, env=env, http=Http(FAST)))


async def test_items_follow_the_contract(server: FakeWebServer, tmp_path: Path) -> None:
    server.route("POST", "/search", Respond(json=TAVILY))
    leg = leg_for(server, tmp_path)
    result = await leg.search(SearchRequest(type="web", query="x", source="auto"))
    await leg.aclose()
    assert result.status.value == "ok"
    assert [i.url for i in result.items] == [
        "https://a.example/page?utm_source=x",
        "https://docs.b.example/x",
    ]
    first, second = result.items
    assert (first.type, first.title, first.content, first.score, first.weight) == (
        "web",
        "A",
        "first",
        1.0,
        0.6,
    )
    assert first.metadata == {"provider": "tavily"}
    assert second.metadata == {"provider": "tavily", "published": "2024-01-01"}
    assert (second.matched[0].backend, second.matched[0].rank, second.matched[0].score) == (
        "tavily",
        3,
        1 / 3,
    )
    (report,) = result.reports
    assert report.note == "first keyed provider available (TAVILY_API_KEY set)"


async def test_limit_and_sites_are_honoured(server: FakeWebServer, tmp_path: Path) -> None:
    server.route("POST", "/search", Respond(json=TAVILY))
    leg = leg_for(server, tmp_path)
    one = await leg.search(SearchRequest(type="web", query="x", limit=1))
    only_b = await leg.search(SearchRequest(type="web", query="x", sites=("b.example",)))
    await leg.aclose()
    assert len(one.items) == 1
    assert [i.title for i in only_b.items] == ["B"]


async def test_fallback_is_reported_and_partial(server: FakeWebServer, tmp_path: Path) -> None:
    calls = {"n": 0}

    def route(seen: object) -> Respond:
        calls["n"] += 1
        if "authorization" in seen.headers:  # type: ignore[attr-defined]
            return Respond(429, headers={"Retry-After": "60"}, json={"error": "slow"})
        return Respond(json=SERPER)

    server.route("POST", "/search", route)
    leg = leg_for(server, tmp_path, fallback=True)
    result = await leg.search(SearchRequest(type="web", query="x"))
    assert [(r.backend, r.status, r.reason) for r in result.reports] == [
        ("tavily", Status.DEGRADED, Reason.RATE_LIMITED),
        ("serper", Status.OK, None),
    ]
    assert (result.reports[1].note or "").startswith("fallback after tavily failed (rate_limited)")
    assert result.status.value == "partial" and [i.title for i in result.items] == ["S"]
    # Tavily is now suspended: reported without being called.
    before = calls["n"]
    again = await leg.search(SearchRequest(type="web", query="x"))
    await leg.aclose()
    assert "not called" in (again.reports[0].error or "")
    assert calls["n"] == before + 1  # only serper was asked
    text = render_results(result)
    assert "1 result from serper." in text and "tavily degraded (rate_limited)" in text


@pytest.mark.parametrize("junk", ["²", "soon", "-5", "3.5", "Mon, 99 Foo 2015"])
async def test_junk_retry_after_still_rate_limits_and_suspends(
    server: FakeWebServer, tmp_path: Path, junk: str
) -> None:
    server.route("POST", "/search", Respond(429, headers={"Retry-After": junk}, json={}))
    leg = leg_for(server, tmp_path)
    first = await leg.search(SearchRequest(type="web", query="x"))
    (report,) = first.reports
    assert (report.status, report.reason) == (Status.DEGRADED, Reason.RATE_LIMITED)
    assert "HTTP 429 (rate limited)" in (report.error or "")
    again = (await leg.search(SearchRequest(type="web", query="x"))).reports[0]
    assert again.reason == Reason.RATE_LIMITED
    assert "suspended for 60s more after HTTP 429 (not called)" in (again.error or "")
    assert len(server.requests) == 1


async def test_without_fallback_only_the_choice_is_consulted(
    server: FakeWebServer, tmp_path: Path
) -> None:
    server.route("POST", "/search", Respond(500))
    leg = leg_for(server, tmp_path)
    result = await leg.search(SearchRequest(type="web", query="x"))
    await leg.aclose()
    assert [r.backend for r in result.reports] == ["tavily"]
    assert result.status.value == "unavailable" and result.items == ()
    assert "No web results for 'x': no provider answered." in render_results(result)


async def test_cache_hit_is_reported_and_skips_the_call(
    server: FakeWebServer, tmp_path: Path
) -> None:
    server.route("POST", "/search", Respond(json=TAVILY))
    leg = leg_for(server, tmp_path, cache_ttl_s=60)
    first = await leg.search(SearchRequest(type="web", query="cached"))
    second = await leg.search(SearchRequest(type="web", query="cached"))
    other = await leg.search(SearchRequest(type="web", query="cached", limit=3))
    await leg.aclose()
    assert server.count() == 2  # the repeat was served from the cache; the limit change was not
    assert (second.reports[0].note or "").startswith("cache hit")
    assert [i.url for i in second.items] == [i.url for i in first.items]
    assert "(cached)" in render_results(second)
    assert other.reports[0].note and not other.reports[0].note.startswith("cache hit")


async def test_failures_are_not_cached(server: FakeWebServer, tmp_path: Path) -> None:
    server.route("POST", "/search", Respond(401), Respond(json=TAVILY))
    leg = leg_for(server, tmp_path, cache_ttl_s=60)
    bad = await leg.search(SearchRequest(type="web", query="q"))
    good = await leg.search(SearchRequest(type="web", query="q"))
    await leg.aclose()
    assert bad.reports[0].reason is Reason.AUTH and good.status.value == "ok"


async def test_unsupported_options_are_noted(tmp_path: Path) -> None:
    from unifind.web.params import plan
    from unifind.web.providers.jina import JinaSearch

    jina = JinaSearch()
    planned = plan(SearchRequest(type="web", query="q", time_range="day", engine="bing"), jina)
    notes = planned.notes + jina.limitations(planned.query)
    assert planned.query.time_range is None and planned.local.start is not None
    assert any(n.startswith("time_range") for n in notes) and any(
        n.startswith("engine") for n in notes
    )


def test_render_results_layout() -> None:
    from unifind.types import Item, LegReport, SearchResult

    result = SearchResult(
        type="web",
        query="q",
        items=(
            Item(type="web", title="T1", url="https://one.example/", content="snippet one"),
            Item(type="web", title="T2", url="https://two.example/"),
        ),
        reports=(LegReport(leg="web", backend="brave", status=Status.OK, hits=2),),
    )
    assert render_results(result) == (
        "1. T1 — https://one.example/\n   snippet one\n"
        "2. T2 — https://two.example/\n\n2 results from brave."
    )


def test_cap_text_announces_the_overflow() -> None:
    from unifind.types import LegReport
    from unifind.web.model import FetchResult

    text, cut = cap_text("word " * 5000, 1000)
    assert len(text) <= 1000 and cut == 25000 - len(text)
    fetched = FetchResult(
        url="https://x.example/",
        title="X",
        text=text,
        total_chars=25000,
        truncated_chars=cut,
        report=LegReport(leg="web", backend="local", status=Status.OK, hits=1),
    )
    out = render_fetch(fetched)
    assert out.startswith("# X\nSource: https://x.example/ (via local)\n\n")
    assert out.endswith(f"… [truncated: {cut:,} more characters]")
