"""The resolution law of DESIGN §5, per operation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from unifind.errors import ConfigError, UnknownName
from unifind.types import Reason, SearchRequest, Status
from unifind.web.leg import WebLeg
from unifind.web.resolve import Resolver

_OPEN: list[WebLeg] = []


@pytest.fixture(autouse=True)
async def _close_legs() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


def track(w: WebLeg) -> WebLeg:
    _OPEN.append(w)
    return w


def choices(
    kind: str, web: dict[str, Any], env: dict[str, str], pin: str | None = None
) -> list[tuple[str, str]]:
    r = Resolver(kind, web, env)  # type: ignore[arg-type]
    found, _ = r.candidates(r.pin(pin))
    return [(c.name, c.note) for c in found]


def test_zero_key_default_is_duckduckgo() -> None:
    assert choices("search", {}, {})[0] == ("duckduckgo", "zero-key default")


def test_searxng_comes_first_among_keyless_only_with_a_base_url() -> None:
    env = {"UNIFIND_SEARXNG_BASE_URL": "http://searx.local"}
    assert [n for n, _ in choices("search", {}, env)] == ["searxng", "duckduckgo"]
    configured = {"searxng": {"base_url": "http://s"}}
    assert next(n for n, _ in choices("search", configured, {})) == "searxng"


def test_first_keyed_provider_in_registration_order_wins() -> None:
    env = {"BRAVE_API_KEY": "b", "SERPER_API_KEY": "s"}
    got = choices("search", {}, env)
    assert got[0] == ("serper", "first keyed provider available (SERPER_API_KEY set)")
    assert [n for n, _ in got] == ["serper", "brave", "duckduckgo"]


def test_key_from_config_counts_as_available() -> None:
    got = choices("search", {"exa": {"api_key": "k"}}, {})
    assert got[0] == ("exa", "first keyed provider available (web.exa.api_key set)")


def test_pin_wins_even_without_its_key() -> None:
    got = choices("search", {"search_provider": "tavily"}, {"BRAVE_API_KEY": "b"})
    assert got[0] == ("tavily", "pinned")


@pytest.mark.parametrize(
    ("web", "env", "where"),
    [
        ({"search_provider": "tavly"}, {}, "web.search_provider"),
        ({}, {"UNIFIND_WEB_SEARCH_PROVIDER": "tavly"}, "UNIFIND_WEB_SEARCH_PROVIDER"),
    ],
)
def test_a_misspelt_pin_is_refused_not_replaced(
    web: dict[str, Any], env: dict[str, str], where: str
) -> None:
    # A pin is a pin (issue #9): a typo used to fall through to DuckDuckGo with a note.
    with pytest.raises(
        ConfigError, match=rf"{where} pins search provider 'tavly'.*valid: .*tavily"
    ):
        Resolver("search", web, env)
    with pytest.raises(ConfigError, match="fetch provider 'jna'"):
        Resolver("fetch", {"fetch_provider": "jna"}, {})
    with pytest.raises(ConfigError, match="tavly"):
        WebLeg(web, env=env)
    r = Resolver("search", {}, {})
    with pytest.raises(UnknownName, match=r"unknown web search provider 'nope'; valid: "):
        r.candidates("nope")


def test_search_and_fetch_resolve_independently() -> None:
    env = {"TAVILY_API_KEY": "t"}
    assert choices("search", {}, env)[0][0] == "tavily"
    assert choices("fetch", {}, env)[0] == ("local", "zero-key default")
    assert choices("fetch", {}, {"JINA_API_KEY": "j"})[0][0] == "jina"


def test_keyless_optional_fetcher_is_not_an_auto_choice() -> None:
    # Jina reader works keyless when pinned, but a third party is never a silent default.
    assert choices("fetch", {}, {})[0][0] == "local"
    assert choices("fetch", {"fetch_provider": "jina"}, {})[0] == ("jina", "pinned")


def test_env_pin_and_base_url_override() -> None:
    r = Resolver(
        "search", {}, {"UNIFIND_WEB_SEARCH_PROVIDER": "brave", "UNIFIND_BRAVE_BASE_URL": "http://b"}
    )
    assert r.pin() == "brave"
    assert r.config("brave").base_url == "http://b"


async def test_pinned_provider_without_key_reports_no_key_naming_the_variable() -> None:
    leg = track(WebLeg({}, env={}))
    result = await leg.search(
        SearchRequest(type="web", query="x", provider="serpapi", engine="bing")
    )
    (report,) = result.reports
    assert (report.backend, report.status, report.reason) == (
        "serpapi",
        Status.DEGRADED,
        Reason.NO_KEY,
    )
    assert "SERPAPI_API_KEY" in (report.error or "") and report.note == "pinned"
    assert result.status.value == "unavailable" and result.items == ()


async def test_request_naming_an_unknown_provider_is_bad_input() -> None:
    leg = track(WebLeg({}, env={}))
    with pytest.raises(UnknownName, match=r"valid: .*duckduckgo"):
        await leg.search(SearchRequest(type="web", query="x", provider="nope"))


async def test_unknown_engine_is_bad_input() -> None:
    from unifind.errors import InputError

    leg = track(WebLeg({}, env={"SERPAPI_API_KEY": "k"}))
    with pytest.raises(InputError, match="no engine 'altavista'"):
        await leg.search(SearchRequest(type="web", query="x", engine="altavista"))
