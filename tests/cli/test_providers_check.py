"""`unifind providers --check`: each usable provider is asked for real (loopback servers)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.testing.web_server import FakeWebServer, Respond

runner = CliRunner()
TAVILY = {"results": [{"title": "Tokio", "url": "https://tokio.rs/", "content": "Async Rust."}]}
DDG = """<html><body><div id="links" class="results">
 <div class="result results_links web-result"><div class="links_main result__body">
  <h2 class="result__title"><a class="result__a" href="https://async.rs/">async-std</a></h2>
  <a class="result__snippet">Async version of std.</a></div></div></div></body></html>"""
PAGE = "<html><head><title>T</title></head><body><p>Hello page</p></body></html>"
#: A loopback port nothing listens on (the discard service is never run here).
CLOSED = "http://127.0.0.1:9"


@pytest.fixture
def web(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeWebServer]:
    """Tavily (keyed) and DuckDuckGo (keyless) on one loopback server; no other key set."""
    for name in list(os.environ):
        if name.endswith("_API_KEY") or (name.startswith("UNIFIND_") and name != "UNIFIND_HOME"):
            monkeypatch.delenv(name)
    with FakeWebServer() as server:
        monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
        monkeypatch.setenv("UNIFIND_TAVILY_BASE_URL", server.url)
        monkeypatch.setenv("UNIFIND_DUCKDUCKGO_BASE_URL", server.url)
        server.route("POST", "/search", Respond(json=TAVILY))
        yield server


def check(*args: str) -> tuple[int, list[dict[str, object]]]:
    res = runner.invoke(app, ["providers", "--check", *args, "--json"])
    return res.exit_code, json.loads(res.stdout)


def test_every_usable_provider_answers(web: FakeWebServer) -> None:
    web.route("POST", "/html/", Respond(body=DDG, content_type="text/html"))
    code, rows = check()
    assert code == 0
    assert {(r["kind"], r["name"], r["ok"]) for r in rows} == {
        ("search", "tavily", True),
        ("search", "duckduckgo", True),
    }
    assert sorted(r.path for r in web.requests) == ["/html/", "/search"]  # really asked
    res = runner.invoke(app, ["providers", "--check"], terminal_width=200)
    assert res.exit_code == 0 and "2 providers ok, 0 failed" in res.output


def test_a_failing_provider_is_named_with_its_reason_and_exits_1(web: FakeWebServer) -> None:
    web.route("POST", "/html/", Respond(status=503, body="down"))
    code, rows = check()
    assert code == 1
    by_name = {r["name"]: r for r in rows}
    assert by_name["tavily"]["ok"] is True and by_name["duckduckgo"]["ok"] is False
    assert "503" in str(by_name["duckduckgo"]["detail"])
    res = runner.invoke(app, ["providers", "--check"], terminal_width=200)
    assert res.exit_code == 1
    assert "failed search duckduckgo" in " ".join(res.output.split())


def test_fetchers_are_asked_only_for_a_given_url(
    web: FakeWebServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    web.route("POST", "/html/", Respond(body=DDG, content_type="text/html"))
    web.route("GET", "/page", Respond(body=PAGE, content_type="text/html"))
    assert {r["kind"] for r in check()[1]} == {"search"}
    config = tmp_path / "web.yaml"
    config.write_text("web: {allow_private: true}\n")
    monkeypatch.setenv("UNIFIND_JINA_BASE_URL", CLOSED)  # keyless jina: usable when pinned
    code, rows = check("--url", web.url + "/page", "--config", str(config))
    fetch = {r["name"]: r for r in rows if r["kind"] == "fetch"}
    assert fetch["local"]["ok"] is True and fetch["jina"]["ok"] is False
    assert "unreachable" in str(fetch["jina"]["detail"]) and code == 1
    code, rows = check("--url", web.url + "/page")  # loopback refused without allow_private
    assert code == 1 and "forbidden" in str(next(r for r in rows if r["name"] == "local"))


def test_url_without_check_is_refused() -> None:
    res = runner.invoke(app, ["providers", "--url", "https://example.org/"])
    assert res.exit_code == 2 and "--check" in res.output
