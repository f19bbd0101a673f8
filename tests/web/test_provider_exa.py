from __future__ import annotations

from unifind.testing.web_provider import WebProviderTests
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.web.model import WebQuery
from unifind.web.providers.exa import Exa

# Shaped like docs.exa.ai/reference/search (results with highlights).
SUCCESS = {
    "requestId": "r1",
    "resolvedSearchType": "neural",
    "results": [
        {
            "title": "Async in depth",
            "url": "https://tokio.rs/tokio/tutorial/async",
            "id": "x",
            "publishedDate": "2023-11-16T01:36:32.547Z",
            "author": "Tokio",
            "highlights": ["Futures are lazy.", "They do nothing until polled."],
        },
        {"title": None, "url": "https://example.org/no-title", "text": "Plain text body."},
    ],
}


class TestExa(WebProviderTests):
    provider_cls = Exa
    method, path = "POST", "/search"

    def success(self) -> Respond:
        return Respond(json=SUCCESS)

    def empty(self) -> Respond:
        return Respond(json={"requestId": "r2", "results": []})

    async def test_maps_parameters(self, server: FakeWebServer) -> None:
        self.query = WebQuery("q", limit=3, sites=("tokio.rs",), time_range="day")
        hits, _ = await self.answer(server, self.success())
        seen = server.requests[0]
        body = seen.json()
        assert seen.headers["x-api-key"] == "test-key-123"
        assert body["numResults"] == 3 and body["includeDomains"] == ["tokio.rs"]
        assert body["startPublishedDate"].endswith("Z")
        assert hits[0].snippet == "Futures are lazy. … They do nothing until polled."
        assert hits[0].published == "2023-11-16T01:36:32.547Z"
        assert hits[1].title == "https://example.org/no-title"
