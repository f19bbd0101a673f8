from __future__ import annotations

from unifind.testing.web_provider import WebProviderTests
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Reason
from unifind.web.model import WebQuery
from unifind.web.providers.searxng import SearXNG

# Shaped like SearXNG's /search?format=json (docs.searxng.org/dev/search_api.html).
SUCCESS = {
    "query": "unifind conformance",
    "number_of_results": 0,
    "results": [
        {
            "url": "https://tokio.rs/",
            "title": "Tokio",
            "content": "Runtime",
            "engine": "duckduckgo",
            "engines": ["duckduckgo", "brave"],
            "score": 2.0,
            "category": "general",
        },
        {
            "url": "https://async.rs/",
            "title": "async-std",
            "content": "Std, async",
            "engine": "brave",
            "publishedDate": "2023-02-01T00:00:00",
        },
    ],
    "answers": [],
    "corrections": [],
    "infoboxes": [],
    "suggestions": [],
    "unresponsive_engines": [],
}


class TestSearXNG(WebProviderTests):
    provider_cls = SearXNG
    method, path = "GET", "/search"

    def success(self) -> Respond:
        return Respond(json=SUCCESS)

    def empty(self) -> Respond:
        return Respond(json={**SUCCESS, "results": []})

    async def test_maps_parameters(self, server: FakeWebServer) -> None:
        self.query = WebQuery("q", limit=10, offset=10, time_range="year", engine="bing")
        await self.answer(server, self.success())
        assert server.requests[0].query == {
            "q": ["q"],
            "format": ["json"],
            "pageno": ["2"],
            "time_range": ["year"],
            "engines": ["bing"],
        }

    async def test_all_engines_failing_is_not_an_empty_answer(self, server: FakeWebServer) -> None:
        body = {**SUCCESS, "results": [], "unresponsive_engines": [["google", "timeout"]]}
        hits, report = await self.answer(server, Respond(json=body))
        self.assert_degraded(hits, report, Reason.UNREACHABLE)
        assert "google timeout" in (report.error or "")

    async def test_403_hints_at_the_json_format(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(server, Respond(403, body="Forbidden"))
        self.assert_degraded(hits, report, Reason.AUTH)
        assert "search.formats" in (report.error or "")
