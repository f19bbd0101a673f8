from __future__ import annotations

from unifind.testing.web_provider import WebProviderTests
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Reason
from unifind.web.model import WebQuery
from unifind.web.providers.serper import Serper

# Shaped like a google.serper.dev /search answer.
SUCCESS = {
    "searchParameters": {"q": "unifind conformance", "type": "search", "engine": "google"},
    "organic": [
        {
            "title": "Rust async book",
            "link": "https://rust-lang.github.io/async-book/",
            "snippet": "Asynchronous programming in Rust.",
            "position": 1,
        },
        {
            "title": "Tokio",
            "link": "https://tokio.rs/",
            "snippet": "An async runtime.",
            "date": "Mar 3, 2024",
            "position": 2,
        },
    ],
    "credits": 1,
}


class TestSerper(WebProviderTests):
    provider_cls = Serper
    method, path = "POST", "/search"

    def success(self) -> Respond:
        return Respond(json=SUCCESS)

    def empty(self) -> Respond:
        return Respond(json={"searchParameters": {"q": "x"}, "credits": 1})

    async def test_maps_sites_time_range_and_key(self, server: FakeWebServer) -> None:
        self.query = WebQuery("q", limit=5, sites=("docs.rs",), time_range="day")
        hits, _ = await self.answer(server, self.success())
        seen = server.requests[0]
        assert seen.headers["x-api-key"] == "test-key-123"
        assert seen.json() == {"q": "q site:docs.rs", "num": 5, "tbs": "qdr:d"}
        assert hits[1].published == "Mar 3, 2024"

    async def test_credits_message_in_a_400(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(
            server, Respond(400, json={"message": "Not enough credits"})
        )
        self.assert_degraded(hits, report, Reason.RATE_LIMITED)
        assert "Not enough credits" in (report.error or "")
