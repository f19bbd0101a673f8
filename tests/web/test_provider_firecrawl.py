from __future__ import annotations

from unifind.testing.web_provider import WebProviderTests
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.web.model import WebQuery
from unifind.web.providers.firecrawl import FirecrawlSearch

# Shaped like docs.firecrawl.dev/api-reference/v1-endpoint/search.
SUCCESS = {
    "success": True,
    "data": [
        {
            "title": "Firecrawl",
            "description": "Web data API for AI.",
            "url": "https://www.firecrawl.dev/",
        },
        {
            "title": "GitHub",
            "description": "Source.",
            "url": "https://github.com/mendableai/firecrawl",
        },
    ],
}


class TestFirecrawlSearch(WebProviderTests):
    provider_cls = FirecrawlSearch
    method, path = "POST", "/v1/search"

    def success(self) -> Respond:
        return Respond(json=SUCCESS)

    def empty(self) -> Respond:
        return Respond(json={"success": True, "data": []})

    async def test_maps_parameters_and_reads_v2_shape(self, server: FakeWebServer) -> None:
        self.query = WebQuery("q", limit=4, sites=("firecrawl.dev",), time_range="year")
        v2 = {"success": True, "data": {"web": SUCCESS["data"]}}
        hits, _ = await self.answer(server, Respond(json=v2))
        body = server.requests[0].json()
        assert body == {"query": "q site:firecrawl.dev", "limit": 4, "tbs": "qdr:y"}
        assert [h.url for h in hits] == [
            "https://www.firecrawl.dev/",
            "https://github.com/mendableai/firecrawl",
        ]
