"""`unifind search --web --no-cache`: the fused search reaches the provider every time."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.testing.web_server import FakeWebServer, Respond

from .test_provider_duckduckgo import PAGE


@pytest.fixture
def server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        s.route("POST", "/html/", Respond(body=PAGE, content_type="text/html"))
        yield s


def test_no_cache_on_the_fused_search(
    server: FakeWebServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNIFIND_DUCKDUCKGO_BASE_URL", server.url)
    runner = CliRunner()
    notes = []
    for flag in ("--cache", "--cache", "--no-cache"):
        out = runner.invoke(app, ["search", "tokio", "--web", flag, "--json"])
        assert out.exit_code == 0, out.output
        notes.append(" ".join(r.get("note") or "" for r in json.loads(out.stdout)["reports"]))
    assert server.count("POST", "/html/") == 2  # the second --cache call was a hit
    assert "cache hit" in notes[1] and "cache hit" not in notes[2]
