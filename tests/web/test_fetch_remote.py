"""Jina reader, Firecrawl scrape and Exa contents against loopback servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from unifind._http import Http, HttpPolicy
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Reason, Status
from unifind.web.leg import WebLeg

_OPEN: list[WebLeg] = []


@pytest.fixture(autouse=True)
async def _close_legs() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


def track(w: WebLeg) -> WebLeg:
    _OPEN.append(w)
    return w


TARGET = "https://example.org/article"
CASES = {
    "jina": (
        "GET",
        "/https://example.org/article",
        {
            "code": 200,
            "status": 20000,
            "data": {
                "title": "Example",
                "url": TARGET,
                "content": "# Example\n\nBody text.",
                "publishedTime": "2024-02-02",
            },
        },
    ),
    "firecrawl": (
        "POST",
        "/v1/scrape",
        {
            "success": True,
            "data": {
                "markdown": "# Example\n\nBody text.",
                "metadata": {"title": "Example", "sourceURL": TARGET, "statusCode": 200},
            },
        },
    ),
    "exa": (
        "POST",
        "/contents",
        {
            "results": [{"url": TARGET, "title": "Example", "text": "# Example\n\nBody text."}],
            "statuses": [{"id": TARGET, "status": "success"}],
        },
    ),
}
KEYS = {"jina": "JINA_API_KEY", "firecrawl": "FIRECRAWL_API_KEY", "exa": "EXA_API_KEY"}


@pytest.fixture
def server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        yield s


def leg(server: FakeWebServer, tmp_path: Path, name: str, key: bool = True) -> WebLeg:
    env = {f"UNIFIND_{name.upper()}_BASE_URL": server.url}
    if key:
        env[KEYS[name]] = "k-123"
    return track(WebLeg({}, home=tmp_path, env=env, http=Http(HttpPolicy(retries=0))))


@pytest.mark.parametrize("name", list(CASES))
async def test_remote_fetcher_success(server: FakeWebServer, tmp_path: Path, name: str) -> None:
    method, path, payload = CASES[name]
    server.route(method, path, Respond(json=payload))
    fetched = await leg(server, tmp_path, name).fetch(TARGET, max_chars=10)
    assert fetched.ok, fetched.report
    assert fetched.report.backend == name and fetched.report.note.startswith("first keyed")  # type: ignore[union-attr]
    assert fetched.title == "Example" and fetched.text == "# Example"
    assert fetched.truncated_chars == len("# Example\n\nBody text.") - len("# Example")
    assert "k-123" in str(server.requests[0].headers)
    if method == "POST":
        assert TARGET in server.requests[0].body.decode()


@pytest.mark.parametrize("name", list(CASES))
async def test_remote_fetcher_failures(server: FakeWebServer, tmp_path: Path, name: str) -> None:
    method, path, _ = CASES[name]
    server.route(
        method,
        path,
        Respond(402, json={"error": "Payment required"}),
        Respond(json={"unexpected": 1}),
    )
    w = leg(server, tmp_path, name)
    first, second = await w.fetch(TARGET), await w.fetch(TARGET)
    assert (first.report.status, first.report.reason) == (Status.DEGRADED, Reason.RATE_LIMITED)
    assert (second.report.status, second.report.reason) == (Status.DEGRADED, Reason.BAD_RESPONSE)
    assert first.text == second.text == ""


async def test_pinned_jina_works_keyless_but_pinned_firecrawl_needs_its_key(
    server: FakeWebServer, tmp_path: Path
) -> None:
    method, path, payload = CASES["jina"]
    server.route(method, path, Respond(json=payload))
    jina = await leg(server, tmp_path, "jina", key=False).fetch(TARGET, provider="jina")
    assert jina.ok and "authorization" not in server.requests[0].headers
    fc = await leg(server, tmp_path, "firecrawl", key=False).fetch(TARGET, provider="firecrawl")
    assert fc.report.reason is Reason.NO_KEY and "FIRECRAWL_API_KEY" in (fc.report.error or "")


async def test_fetch_fallback_to_local(server: FakeWebServer, tmp_path: Path) -> None:
    server.route("POST", "/v1/scrape", Respond(500))
    env = {"UNIFIND_FIRECRAWL_BASE_URL": server.url, "FIRECRAWL_API_KEY": "k"}
    w = track(WebLeg({"fallback": True}, home=tmp_path, env=env, http=Http(HttpPolicy(retries=0))))
    fetched = await w.fetch("http://127.0.0.1:1/private")
    # firecrawl failed, then local refused the loopback target: two honest failures.
    assert fetched.report.backend == "local" and fetched.report.reason is Reason.FORBIDDEN
    assert (fetched.report.note or "").startswith("fallback after firecrawl failed (error)")
    (first,) = fetched.attempts
    assert (first.backend, first.reason) == ("firecrawl", Reason.ERROR) and "HTTP 500" in (
        first.error or ""
    )
