"""Query parameters: domains (long lists, wildcards), dates, language, country, topic, safe
search and page, mapped per provider, filtered locally or reported as ignored."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from unifind._http import Http, HttpPolicy
from unifind.errors import InputError
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import SearchRequest
from unifind.web.domains import MAX_PATTERNS, DomainSet
from unifind.web.leg import WebLeg
from unifind.web.params import parse_published, plan
from unifind.web.providers.brave import Brave
from unifind.web.providers.duckduckgo import DuckDuckGo
from unifind.web.providers.exa import Exa
from unifind.web.providers.searxng import SearXNG
from unifind.web.providers.serpapi import SerpAPI
from unifind.web.providers.serper import Serper
from unifind.web.providers.tavily import Tavily

FAST = HttpPolicy(retries=0)
TODAY = date.today()
_OPEN: list[WebLeg] = []


@pytest.fixture(autouse=True)
async def _close_legs() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


@pytest.fixture
def server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        yield s


def web(**kw: Any) -> SearchRequest:
    return SearchRequest(type="web", query=kw.pop("query", "q"), **kw)


def tavily_leg(server: FakeWebServer, tmp_path: Path) -> WebLeg:
    env = {"TAVILY_API_KEY": "t", "UNIFIND_TAVILY_BASE_URL": server.url}
    w = WebLeg({"rate_limit": False}, home=tmp_path, env=env, http=Http(FAST))
    _OPEN.append(w)
    return w


# -- domains -------------------------------------------------------------------------------


def test_domain_patterns_match_hosts_subdomains_and_wildcards() -> None:
    ds = DomainSet.parse(["https://Docs.RS/x", "*.gov", "example.*", ".edu"], field_name="sites")
    assert ds.patterns == ("docs.rs", "*.gov", "example.*", "*.edu")
    assert ds.match_host("docs.rs") and ds.match_host("api.docs.rs")
    assert not ds.match_host("notdocs.rs")
    assert ds.match_host("www.nasa.gov") and ds.match_host("gov")
    assert ds.match_host("example.org") and not ds.match_host("an-example.org")
    assert ds.match_host("mit.edu") and not ds.match_host("edu.example.com")


@pytest.mark.parametrize("bad", ["not a domain", "a..b", "exa mple.com", "-x.com", ""])
def test_a_malformed_domain_is_refused_by_name(bad: str) -> None:
    with pytest.raises(InputError, match="sites"):
        DomainSet.parse([bad], field_name="sites")


def test_ten_thousand_domains_are_filtered_locally_and_fast() -> None:
    domains = [f"site{i}.example" for i in range(MAX_PATTERNS)]
    t0 = time.perf_counter()
    planned = plan(web(sites=tuple(domains)), Tavily())
    keep = [planned.local.include.match_url(f"https://a.site{i}.example/x") for i in range(5000)]
    took = time.perf_counter() - t0
    assert all(keep) and not planned.local.include.match_url("https://other.example/")
    assert planned.query.sites == ()  # over Tavily's 150: not sent, filtered here
    assert planned.query.limit == Tavily.capabilities.max_results  # room for the filter
    assert any("10,000 domains exceed the 150 tavily takes" in n for n in planned.notes)
    assert took < 2.0, took


def test_more_than_the_cap_of_domains_is_refused() -> None:
    with pytest.raises(InputError, match="at most 10,000"):
        plan(web(sites=tuple(f"s{i}.example" for i in range(MAX_PATTERNS + 1))), Tavily())


def test_a_wildcard_matching_everything_is_no_restriction_or_refused() -> None:
    planned = plan(web(sites=("*",)), Tavily())
    assert planned.query.sites == () and not planned.local.include
    assert any("matches every site" in n for n in planned.notes)
    with pytest.raises(InputError, match="matches every site"):
        plan(web(exclude_sites=("*.*",)), Tavily())


def test_exclusions_beyond_the_provider_limit_are_sent_in_part() -> None:
    planned = plan(web(exclude_sites=tuple(f"s{i}.example" for i in range(30))), Brave())
    assert len(planned.query.exclude_sites) == Brave.capabilities.max_sites
    assert planned.query.text_with_sites().count("-site:") == Brave.capabilities.max_sites
    assert len(planned.local.exclude) == 30
    assert any("got 20 of 30" in n for n in planned.notes)


# -- dates ---------------------------------------------------------------------------------


def test_dates_in_the_future_or_reversed_are_refused() -> None:
    with pytest.raises(ValidationError, match="in the future"):
        web(start_date=TODAY + timedelta(days=3))
    with pytest.raises(ValidationError, match="swap them"):
        web(start_date=date(2024, 5, 1), end_date=date(2024, 1, 1))
    with pytest.raises(ValidationError, match="not both"):
        web(time_range="week", start_date=date(2024, 1, 1))
    with pytest.raises(ValidationError, match="not both"):
        web(page=2, offset=10)
    # An end in the future only means "until now".
    assert plan(web(end_date=TODAY + timedelta(days=400)), Tavily()).query.end_date is None


def test_dates_map_natively_or_approximate_with_a_time_range() -> None:
    start = TODAY - timedelta(days=5)
    assert plan(web(start_date=start), Tavily()).query.start_date == start
    ddg = plan(web(start_date=start), DuckDuckGo())
    assert ddg.query.time_range == "week" and ddg.query.start_date is None
    assert ddg.local.start == start
    assert any("past week" in n for n in ddg.notes)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("2024-03-05", date(2024, 3, 5)),
        ("2024-03-05T10:00:00Z", date(2024, 3, 5)),
        ("Tue, 01 Oct 2024 10:00:00 GMT", date(2024, 10, 1)),
        ("Mar 5, 2024", date(2024, 3, 5)),
        ("3 days ago", TODAY - timedelta(days=3)),
        ("sometime", None),
        (None, None),
    ],
)
def test_published_dates_are_read_in_the_usual_forms(text: str | None, day: date | None) -> None:
    assert parse_published(text, today=TODAY) == day


# -- per-provider mapping ------------------------------------------------------------------


def _request(provider: Any, **kw: Any) -> Any:
    from unifind.web.model import PlugConfig

    q = plan(web(**kw), provider).query
    return provider.build_request(q, PlugConfig(base_url="http://x", api_key="k"))


def test_tavily_gets_every_option_it_documents() -> None:
    import json

    body = json.loads(
        _request(
            Tavily(),
            sites=("docs.rs",),
            exclude_sites=("spam.example",),
            start_date=date(2024, 1, 1),
            end_date=date(2024, 2, 1),
            country="DE",
            topic="news",
        ).content
    )
    assert body["include_domains"] == ["docs.rs"]
    assert body["exclude_domains"] == ["spam.example"]
    assert (body["start_date"], body["end_date"]) == ("2024-01-01", "2024-02-01")
    assert body["topic"] == "news" and "country" not in body  # country is general-only


def test_brave_serper_serpapi_duckduckgo_searxng_exa_map_their_own_names() -> None:
    import json

    brave = _request(
        Brave(), language="de", country="at", safe_search="strict", topic="news", page=2
    )
    assert brave.url.path == "/res/v1/news/search"
    assert (brave.url.params["country"], brave.url.params["search_lang"]) == ("AT", "de")
    assert (brave.url.params["safesearch"], brave.url.params["offset"]) == ("strict", "1")
    span = _request(Brave(), start_date=date(2024, 1, 1), end_date=date(2024, 1, 31))
    assert span.url.params["freshness"] == "2024-01-01to2024-01-31"

    serper = _request(Serper(), start_date=date(2024, 1, 2), country="fr", topic="news")
    body = json.loads(serper.content)
    assert serper.url.path == "/news" and body["gl"] == "fr"
    assert body["tbs"] == "cdr:1,cd_min:1/2/2024"

    serpapi = _request(SerpAPI(), safe_search="moderate", topic="news", language="ja")
    assert (serpapi.url.params["safe"], serpapi.url.params["tbm"]) == ("active", "nws")
    assert serpapi.url.params["hl"] == "ja"

    ddg = dict(
        p.split("=") for p in _request(DuckDuckGo(), country="de", safe_search="off").content
        .decode().split("&")
    )  # fmt: skip
    assert (ddg["kl"], ddg["kp"]) == ("de-de", "-2")

    sx = _request(SearXNG(), topic="news", safe_search="moderate", language="fr")
    assert sx.url.params["categories"] == "news" and sx.url.params["safesearch"] == "1"
    assert sx.url.params["language"] == "fr"

    exa = json.loads(_request(Exa(), exclude_sites=("*.spam.example",), topic="news").content)
    assert exa["excludeDomains"] == ["spam.example"] and exa["category"] == "news"


def test_what_a_provider_lacks_is_reported_as_ignored() -> None:
    planned = plan(web(topic="news", language="de"), DuckDuckGo())
    assert planned.query.topic is None and planned.query.language is None
    assert any(n.startswith("topic: duckduckgo has no news") for n in planned.notes)
    assert any(n.startswith("language: duckduckgo has no language") for n in planned.notes)
    engine = SerpAPI()
    q = plan(web(country="us", engine="bing"), engine).query
    assert any("google engine only" in n for n in engine.limitations(q))


# -- through the leg -----------------------------------------------------------------------


async def test_a_provider_that_ignores_a_parameter_is_filtered_locally(
    server: FakeWebServer, tmp_path: Path
) -> None:
    old = (TODAY - timedelta(days=90)).isoformat()
    rows = [
        {"title": "ok", "url": "https://good.example/a", "content": "", "published_date": None},
        {"title": "excluded", "url": "https://x.spam.example/", "content": ""},
        {"title": "too old", "url": "https://good.example/b", "content": "", "published_date": old},
    ]
    server.route("POST", "/search", Respond(json={"results": rows}))
    result = await tavily_leg(server, tmp_path).search(
        web(exclude_sites=("spam.example",), time_range="week")
    )
    assert [i.title for i in result.items] == ["ok"]
    sent = server.requests[0].json()
    assert sent["exclude_domains"] == ["spam.example"] and sent["time_range"] == "week"
    assert any("1 tavily result(s) outside the domain" in n for n in result.notes)
    assert any("1 tavily result(s) published outside" in n for n in result.notes)
    assert any("carry no date" in n for n in result.notes)


async def test_page_maps_to_offset_for_a_provider_without_paging(
    server: FakeWebServer, tmp_path: Path
) -> None:
    rows = [{"title": f"r{i}", "url": f"https://r{i}.example/", "content": ""} for i in range(6)]
    server.route("POST", "/search", Respond(json={"results": rows}))
    result = await tavily_leg(server, tmp_path).search(web(limit=2, page=2))
    assert [i.title for i in result.items] == ["r2", "r3"]
    assert server.requests[0].json()["max_results"] == 4


# -- the same names through the operation layer and MCP ------------------------------------


def test_http_and_mcp_inputs_carry_every_web_option() -> None:
    pytest.importorskip("mcp")
    from unifind.mcp_server.args import ArgumentError, search_input
    from unifind.ops.models import SearchInput
    from unifind.ops.service import build_requests

    http = SearchInput.model_validate(
        {
            "query": "q",
            "sources": {
                "web": {
                    "sites": "docs.rs,*.gov",
                    "exclude_sites": ["spam.example"],
                    "start_date": "2024-01-01",
                    "end_date": "2024-02-01",
                    "language": "de",
                    "country": "at",
                    "topic": "news",
                    "safe_search": "strict",
                    "page": 2,
                }
            },
        }
    )
    (req,) = build_requests(http)
    assert req.sites == ("docs.rs", "*.gov") and req.exclude_sites == ("spam.example",)
    assert (req.start_date, req.end_date) == (date(2024, 1, 1), date(2024, 2, 1))
    assert (req.language, req.country, req.topic, req.safe_search, req.page) == (
        "de", "at", "news", "strict", 2,
    )  # fmt: skip

    inp, _ = search_input(
        {"query": "q", "exclude_domains": "a.example", "topic": "news", "page": "3",
         "start_date": "2024-01-01", "country": "us"}
    )  # fmt: skip
    (mreq,) = build_requests(inp)
    assert mreq.exclude_sites == ("a.example",) and mreq.topic == "news" and mreq.page == 3
    assert mreq.start_date == date(2024, 1, 1) and mreq.country == "us"
    with pytest.raises(ArgumentError, match="topic"):
        search_input({"query": "q", "topic": "sports"})
    with pytest.raises(ArgumentError, match="start_date"):
        search_input({"query": "q", "start_date": "2024-13-45"})


def test_reversed_dates_are_refused_at_the_operation_input() -> None:
    from unifind.ops.models import WebSource

    with pytest.raises(ValidationError, match="swap them"):
        WebSource(start_date=date(2024, 2, 1), end_date=date(2024, 1, 1))
