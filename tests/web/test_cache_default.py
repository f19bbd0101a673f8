"""The web cache: on by default for zero-key providers (TTL, size cap), off for keyed ones
unless asked, ``--no-cache``, and a cache hit is reported as such."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from unifind._http import Http, HttpPolicy
from unifind.cli import web as web_cli
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import SearchRequest
from unifind.web.cache import WebCache
from unifind.web.leg import WebLeg
from unifind.web.model import WebHit, WebQuery

from .test_provider_duckduckgo import PAGE

TAVILY = {"results": [{"title": "A", "url": "https://a.example/", "content": "x"}]}
_OPEN: list[WebLeg] = []


@pytest.fixture(autouse=True)
async def _close_legs() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


@pytest.fixture
def server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        s.route("POST", "/html/", Respond(body=PAGE, content_type="text/html"))
        s.route("POST", "/search", Respond(json=TAVILY))
        yield s


def leg(server: FakeWebServer, tmp_path: Path, env: dict[str, str], **web: Any) -> WebLeg:
    env = {"UNIFIND_DUCKDUCKGO_BASE_URL": server.url, **env}
    w = WebLeg({"rate_limit": False, **web}, home=tmp_path, env=env, http=Http(HttpPolicy()))
    _OPEN.append(w)
    return w


async def test_zero_key_answers_are_cached_by_default(
    server: FakeWebServer, tmp_path: Path
) -> None:
    w = leg(server, tmp_path, {})
    first = await w.search(SearchRequest(type="web", query="tokio"))
    second = await w.search(SearchRequest(type="web", query="tokio"))
    assert server.count("POST", "/html/") == 1
    assert first.reports[0].backend == "duckduckgo" and first.items == second.items
    assert (second.reports[0].note or "").startswith("cache hit (age 0s)")


async def test_keyed_answers_are_not_cached_unless_a_ttl_is_set(
    server: FakeWebServer, tmp_path: Path
) -> None:
    env = {"TAVILY_API_KEY": "t", "UNIFIND_TAVILY_BASE_URL": server.url}
    w = leg(server, tmp_path / "a", env)
    for _ in range(2):
        await w.search(SearchRequest(type="web", query="q"))
    assert server.count("POST", "/search") == 2
    w2 = leg(server, tmp_path / "b", env, cache_ttl_s=60)
    for _ in range(2):
        await w2.search(SearchRequest(type="web", query="q"))
    assert server.count("POST", "/search") == 3


async def test_cache_false_turns_it_off(server: FakeWebServer, tmp_path: Path) -> None:
    w = leg(server, tmp_path, {}, cache=False)
    for _ in range(2):
        await w.search(SearchRequest(type="web", query="tokio"))
    assert w.cache is None and server.count("POST", "/html/") == 2


async def test_the_oldest_answers_go_past_the_size_cap(tmp_path: Path) -> None:
    now = [1000.0]
    cache = WebCache(tmp_path / "c.sqlite", 3600, clock=lambda: now[0], max_entries=3)
    for i in range(5):
        now[0] += 1
        await cache.put("duckduckgo", WebQuery(f"q{i}"), [WebHit("t", "https://x.example/")])
    kept = [await cache.get("duckduckgo", WebQuery(f"q{i}")) is not None for i in range(5)]
    assert kept == [False, False, True, True, True]


def test_no_cache_on_the_command_line(
    server: FakeWebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNIFIND_DUCKDUCKGO_BASE_URL", server.url)
    app = typer.Typer()
    web_cli.register(app)
    runner = CliRunner()
    for flag in ("--cache", "--cache", "--no-cache"):
        out = runner.invoke(app, ["web", "search", "tokio", flag, "--json"])
        assert out.exit_code == 0, out.output
    assert server.count("POST", "/html/") == 2  # the second --cache call was a hit
    assert "cache hit" not in (json.loads(out.stdout)["reports"][0].get("note") or "")
