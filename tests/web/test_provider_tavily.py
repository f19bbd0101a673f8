from __future__ import annotations

from unifind.testing.web_provider import WebProviderTests
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.web.model import WebQuery
from unifind.web.providers.tavily import Tavily

# Shaped like https://docs.tavily.com/documentation/api-reference/endpoint/search (200 response).
SUCCESS = {
    "query": "unifind conformance",
    "answer": None,
    "images": [],
    "results": [
        {
            "title": "Tavily docs",
            "url": "https://docs.tavily.com/",
            "content": "Search API for agents.",
            "score": 0.81,
            "raw_content": None,
        },
        {
            "title": "News item",
            "url": "https://news.example.com/a",
            "content": "Something happened.",
            "score": 0.7,
            "published_date": "Tue, 01 Oct 2024 10:00:00 GMT",
        },
    ],
    "response_time": 1.09,
}


class TestTavily(WebProviderTests):
    provider_cls = Tavily
    method, path = "POST", "/search"

    def success(self) -> Respond:
        return Respond(json=SUCCESS)

    def empty(self) -> Respond:
        return Respond(json={"query": "x", "results": [], "response_time": 0.2})

    async def test_maps_sites_time_range_and_key(self, server: FakeWebServer) -> None:
        self.query = WebQuery("q", limit=50, sites=("docs.rs",), time_range="week")
        hits, _ = await self.answer(server, self.success())
        body = server.requests[0].json()
        assert body["include_domains"] == ["docs.rs"]
        assert body["time_range"] == "week"
        assert body["max_results"] == 20  # Tavily's documented maximum
        assert server.requests[0].headers["authorization"] == "Bearer test-key-123"
        assert hits[1].published == "Tue, 01 Oct 2024 10:00:00 GMT"
        assert hits[0].published is None
