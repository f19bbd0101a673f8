"""Live calls to the real internet: opt-in only (``pytest -m network``), never in CI."""

from __future__ import annotations

import pytest

from unifind.types import SearchRequest
from unifind.web.leg import WebLeg

pytestmark = pytest.mark.network


@pytest.fixture(autouse=True)
def _block_network() -> None:
    """Overrides the conftest guard: these tests are the one place the network is allowed."""


async def test_zero_key_search_answers_honestly() -> None:
    leg = WebLeg({}, env={})
    result = await leg.search(SearchRequest(type="web", query="python asyncio documentation"))
    await leg.aclose()
    (report,) = result.reports
    assert report.backend == "duckduckgo"
    # Either real results, or an honest degraded report (DuckDuckGo may serve a bot check).
    assert result.items or report.error


async def test_local_fetch_of_a_public_page() -> None:
    leg = WebLeg({}, env={})
    fetched = await leg.fetch("https://example.org/", max_chars=2000)
    await leg.aclose()
    assert fetched.ok, fetched.report
    assert "Example Domain" in (fetched.title or "") + fetched.text
