from __future__ import annotations

from unifind.testing.web_provider import WebProviderTests
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.web.model import WebQuery
from unifind.web.providers.brave import Brave

# Shaped like Brave's WebSearchApiResponse (type "search", web.results[]).
SUCCESS = {
    "type": "search",
    "query": {"original": "unifind conformance"},
    "web": {
        "type": "search",
        "results": [
            {
                "title": "The <strong>Rust</strong> book",
                "url": "https://doc.rust-lang.org/book/",
                "description": "Learn <strong>Rust</strong> &amp; more.",
                "page_age": "2024-05-01T00:00:00",
                "age": "May 1, 2024",
            },
            {"title": "docs.rs", "url": "https://docs.rs/", "description": "Crate docs."},
        ],
    },
}


class TestBrave(WebProviderTests):
    provider_cls = Brave
    method, path = "GET", "/res/v1/web/search"

    def success(self) -> Respond:
        return Respond(json=SUCCESS)

    def empty(self) -> Respond:
        return Respond(json={"type": "search", "query": {"original": "x"}})

    async def test_maps_parameters_and_cleans_snippets(self, server: FakeWebServer) -> None:
        self.query = WebQuery("q", limit=50, sites=("docs.rs",), time_range="month")
        hits, _ = await self.answer(server, self.success())
        seen = server.requests[0]
        assert seen.headers["x-subscription-token"] == "test-key-123"
        assert seen.query == {"q": ["q site:docs.rs"], "count": ["20"], "freshness": ["pm"]}
        assert hits[0].title == "The Rust book"
        assert hits[0].snippet == "Learn Rust & more."
        assert hits[0].published == "2024-05-01T00:00:00"
