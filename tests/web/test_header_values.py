"""A key or header value that HTTP can't carry (the README's ``…`` placeholder, a pasted
newline) is a degraded provider that names the variable, never a UnicodeEncodeError."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from unifind._http import Http, HttpPolicy, header_problem
from unifind.testing.web_server import FakeWebServer
from unifind.types import Reason, SearchRequest, Status
from unifind.web.leg import WebLeg
from unifind.web.resolve import env_name

PLACEHOLDER = "…"  # what the README writes after TAVILY_API_KEY=
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


def make_leg(tmp_path: Path, env: dict[str, str], **web: object) -> WebLeg:
    leg = WebLeg(web, home=tmp_path, env=env, http=Http(HttpPolicy(retries=0)))
    _OPEN.append(leg)
    return leg


def test_header_problem_names_the_character_not_the_value() -> None:
    assert header_problem("tvly-AbC123_x.y") is None
    assert header_problem("a b\tc") is None  # spaces and tabs are legal inside a value
    assert header_problem(PLACEHOLDER) == (
        "contains non-ASCII characters (U+2026 at position 0); it looks like a placeholder"
    )
    assert "U+00E9 at position 4" in (header_problem("sk-cé") or "")
    assert header_problem("sk-abc\n") == "contains a control character (U+000A at position 6)"
    assert "U+007F" in (header_problem("sk\x7f") or "")


async def test_every_keyed_provider_reports_a_placeholder_key_by_its_variable(
    server: FakeWebServer, tmp_path: Path
) -> None:
    probe = make_leg(tmp_path, {})
    keyed = [n for n in probe.searchers.names() if probe.searchers.plugs.get(n).key_env]
    assert {"tavily", "serper", "brave", "exa"} <= set(keyed)
    for name in keyed:
        var = probe.searchers.plugs.get(name).key_env
        assert var is not None
        leg = make_leg(tmp_path, {var: PLACEHOLDER, env_name(name, "base_url"): server.url})
        req = SearchRequest(type="web", query="rust async", provider=name)
        res = await leg.search(req)
        report = next(r for r in res.reports if r.backend == name)
        assert (report.status, report.reason) == (Status.DEGRADED, Reason.NO_KEY), name
        assert f"{var} contains non-ASCII characters" in (report.error or ""), name
        assert "placeholder" in (report.error or "")
        assert "UnicodeEncodeError" not in (report.error or "")
    assert server.requests == []  # nothing was sent with a broken header


async def test_keyed_fetchers_too_and_a_config_key_is_named_by_its_setting(
    server: FakeWebServer, tmp_path: Path
) -> None:
    probe = make_leg(tmp_path, {})
    keyed = [n for n in probe.fetchers.names() if probe.fetchers.plugs.get(n).key_env]
    assert keyed, "no keyed fetcher registered"
    for name in keyed:
        var = probe.fetchers.plugs.get(name).key_env
        assert var is not None
        leg = make_leg(tmp_path, {var: "key\r\nX-Injected: 1",
                                  env_name(name, "base_url"): server.url})  # fmt: skip
        got = await leg.fetch("https://example.org/", provider=name, fallback=False)
        assert not got.ok and got.report.reason == Reason.NO_KEY, name
        assert f"{var} contains a control character (U+000D" in (got.report.error or ""), name
    leg = make_leg(tmp_path, {}, tavily={"api_key": PLACEHOLDER, "base_url": server.url})
    res = await leg.search(SearchRequest(type="web", query="x", provider="tavily"))
    assert "web.tavily.api_key contains non-ASCII" in (res.reports[0].error or "")
    info = leg.searchers.info("tavily")
    assert not info.usable and "web.tavily.api_key contains non-ASCII" in info.why
    assert server.requests == []


async def test_another_configured_header_value_is_a_status_naming_the_section(
    server: FakeWebServer, tmp_path: Path
) -> None:
    leg = make_leg(tmp_path, {}, duckduckgo={"base_url": server.url, "user_agent": PLACEHOLDER})
    res = await leg.search(SearchRequest(type="web", query="x", provider="duckduckgo"))
    (report,) = res.reports
    assert (report.status, report.reason) == (Status.DEGRADED, Reason.NOT_CONFIGURED)
    assert "web.duckduckgo" in (report.error or "") and "U+2026" in (report.error or "")
    assert "UnicodeEncodeError" not in (report.error or "")


def test_cli_web_search_with_the_readme_placeholder(server: FakeWebServer, tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("unifind")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(UNIFIND_HOME=str(tmp_path), TAVILY_API_KEY=PLACEHOLDER,
               UNIFIND_TAVILY_BASE_URL=server.url, PYTHONIOENCODING="utf-8")  # fmt: skip
    out = subprocess.run(
        [str(exe), "web", "search", "hello", "--provider", "tavily", "--json"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr and "UnicodeEncodeError" not in out.stdout + out.stderr
    (report,) = json.loads(out.stdout)["reports"]
    assert (report["backend"], report["status"], report["reason"]) == (
        "tavily",
        "degraded",
        "no_key",
    )
    assert report["error"].startswith("tavily: TAVILY_API_KEY contains non-ASCII characters")
    assert server.requests == []
