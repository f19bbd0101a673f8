from __future__ import annotations

from unifind.testing.web_provider import WebProviderTests
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.web.model import WebQuery
from unifind.web.providers.jina import JinaSearch

# Shaped like s.jina.ai with Accept: application/json.
SUCCESS = {
    "code": 200,
    "status": 20000,
    "data": [
        {
            "title": "Jina Reader",
            "url": "https://jina.ai/reader/",
            "description": "Read URLs.",
            "content": "",
        },
        {
            "title": "Docs",
            "url": "https://docs.jina.ai/",
            "description": "API docs.",
            "date": "2024-06-01",
        },
    ],
}


class TestJinaSearch(WebProviderTests):
    provider_cls = JinaSearch
    method, path = "GET", "/"

    def success(self) -> Respond:
        return Respond(json=SUCCESS)

    def empty(self) -> Respond:
        return Respond(json={"code": 200, "status": 20000, "data": []})

    async def test_maps_parameters(self, server: FakeWebServer) -> None:
        self.query = WebQuery("q", limit=3, sites=("jina.ai",))
        await self.answer(server, self.success())
        seen = server.requests[0]
        assert seen.query == {"q": ["q"], "site": ["jina.ai"], "num": ["3"]}
        assert seen.headers["authorization"] == "Bearer test-key-123"
        assert seen.headers["accept"] == "application/json"
