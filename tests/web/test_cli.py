"""`unifind web search`, `unifind fetch`, `unifind providers` through the real CLI surface."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from unifind.cli import web as web_cli
from unifind.testing.web_server import FakeWebServer, Respond

app = typer.Typer()
web_cli.register(app)
runner = CliRunner()


@pytest.fixture
def server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        yield s


def test_help_documents_every_command_and_exit_codes() -> None:
    for args in (["web", "search", "--help"], ["fetch", "--help"], ["providers", "--help"]):
        out = runner.invoke(app, args)
        assert out.exit_code == 0, out.output
    assert "Exit status" in runner.invoke(app, ["web", "search", "--help"]).output
    assert "--allow-private" in runner.invoke(app, ["fetch", "--help"]).output


def test_no_keys_no_network_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNIFIND_DUCKDUCKGO_BASE_URL", "http://html.duckduckgo.invalid")
    out = runner.invoke(app, ["web", "search", "rust async runtimes", "--json"])
    assert out.exit_code == 1
    data = json.loads(out.stdout)
    assert data["status"] == "unavailable" and data["items"] == []
    (report,) = data["reports"]
    assert (report["backend"], report["status"], report["reason"]) == (
        "duckduckgo",
        "degraded",
        "unreachable",
    )
    assert report["note"] == "zero-key default"


def test_pin_without_key_names_the_variable() -> None:
    out = runner.invoke(
        app, ["web", "search", "x", "--provider", "serpapi", "--engine", "bing", "--json"]
    )
    assert out.exit_code == 1
    report = json.loads(out.stdout)["reports"][0]
    assert report["reason"] == "no_key" and "SERPAPI_API_KEY" in report["error"]


def test_keyed_search_with_sites_and_time_range(
    server: FakeWebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.route(
        "POST",
        "/search",
        Respond(
            json={
                "results": [
                    {
                        "title": "docs.rs page",
                        "url": "https://docs.rs/tokio",
                        "content": "Tokio docs",
                    }
                ]
            }
        ),
    )
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    monkeypatch.setenv("UNIFIND_TAVILY_BASE_URL", server.url)
    out = runner.invoke(
        app,
        [
            "web",
            "search",
            "tokio",
            "--limit",
            "5",
            "--sites",
            "docs.rs",
            "--time-range",
            "week",
            "--json",
        ],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["status"] == "ok" and data["items"][0]["url"] == "https://docs.rs/tokio"
    assert data["reports"][0]["note"] == "first keyed provider available (TAVILY_API_KEY set)"
    assert server.requests[0].json()["include_domains"] == ["docs.rs"]
    human = runner.invoke(app, ["web", "search", "tokio", "--llm"])
    assert "1. docs.rs page — https://docs.rs/tokio" in human.stdout
    assert "1 result from tavily." in human.stdout


def test_bad_input_exits_2() -> None:
    assert runner.invoke(app, ["web", "search", "x", "--provider", "nope"]).exit_code == 2
    assert runner.invoke(app, ["web", "search", "x", "--time-range", "decade"]).exit_code == 2
    assert runner.invoke(app, ["fetch", "ftp://example.org/"]).exit_code == 2


def test_fetch_refuses_private_and_reads_when_allowed(server: FakeWebServer) -> None:
    server.route(
        "GET",
        "/a",
        Respond(
            body="<html><head><title>T</title></head><body><p>Hello page</p></body></html>",
            content_type="text/html",
        ),
    )
    refused = runner.invoke(app, ["fetch", server.url + "/a"])
    assert refused.exit_code == 1 and "forbidden" in refused.stdout
    ok = runner.invoke(
        app, ["fetch", server.url + "/a", "--allow-private", "--max-chars", "5", "--json"]
    )
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert (
        data["title"] == "T" and data["text"] == "Hello" and data["truncated_chars"] == len(" page")
    )


def test_providers_lists_every_plug_and_the_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "b")
    out = runner.invoke(app, ["providers", "--json"])
    assert out.exit_code == 0
    data = json.loads(out.stdout)
    names = [p["name"] for p in data["search"]["plugs"]]
    assert {
        "tavily",
        "serper",
        "serpapi",
        "exa",
        "brave",
        "searxng",
        "duckduckgo",
        "jina",
        "firecrawl",
    } <= set(names)
    assert data["search"]["resolves_to"]["name"] == "brave"
    assert data["fetch"]["resolves_to"] == {
        "name": "local",
        "note": "zero-key default",
        "pinned": False,
    }
    human = runner.invoke(app, ["providers"])
    assert "search resolves to: brave" in human.stdout


def test_every_web_option_reaches_the_provider(
    server: FakeWebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.route("POST", "/search", Respond(json={"results": []}))
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    monkeypatch.setenv("UNIFIND_TAVILY_BASE_URL", server.url)
    args = ["web", "search", "q", "--exclude-sites", "a.example,b.example", "--start-date",
            "2024-01-01", "--end-date", "2024-02-01", "--country", "DE", "--topic", "news",
            "--language", "de", "--safe-search", "strict", "--page", "2", "--no-cache",
            "--json"]  # fmt: skip
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    body = server.requests[0].json()
    assert body["exclude_domains"] == ["a.example", "b.example"] and body["topic"] == "news"
    assert (body["start_date"], body["end_date"]) == ("2024-01-01", "2024-02-01")
    notes = json.loads(out.stdout)["notes"]
    assert any(n.startswith("language: tavily has no language") for n in notes)
    assert any(n.startswith("safe_search: tavily") for n in notes)
    reversed_ = runner.invoke(app, ["web", "search", "q", "--start-date", "2024-02-01",
                                    "--end-date", "2024-01-01"])  # fmt: skip
    assert reversed_.exit_code == 2 and "swap them" in reversed_.output
