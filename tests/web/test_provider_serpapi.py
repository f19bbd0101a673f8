from __future__ import annotations

import pytest

from unifind.testing.web_provider import WebProviderTests
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.web.model import WebQuery
from unifind.web.providers.serpapi import SerpAPI

# Shaped like serpapi.com/search.json (search_metadata + organic_results).
SUCCESS = {
    "search_metadata": {"id": "abc", "status": "Success"},
    "search_parameters": {"engine": "google", "q": "unifind conformance"},
    "organic_results": [
        {
            "position": 1,
            "title": "Tokio",
            "link": "https://tokio.rs/",
            "snippet": "Runtime.",
            "date": "Jan 5, 2024",
        },
        {
            "position": 2,
            "title": "smol",
            "link": "https://github.com/smol-rs/smol",
            "snippet": "Small.",
        },
    ],
}


class TestSerpAPI(WebProviderTests):
    provider_cls = SerpAPI
    method, path = "GET", "/search.json"

    def success(self) -> Respond:
        return Respond(json=SUCCESS)

    def empty(self) -> Respond:
        return Respond(
            json={
                "search_metadata": {"status": "Success"},
                "error": "Google hasn't returned any results for this query.",
            }
        )

    @pytest.mark.parametrize(
        ("engine", "param"),
        [
            ("google", "q"),
            ("bing", "q"),
            ("baidu", "q"),
            ("yandex", "text"),
            ("yahoo", "p"),
            ("duckduckgo", "q"),
            ("naver", "query"),
            ("ecosia", "q"),
            ("seznam", "q"),
        ],
    )
    async def test_engine_query_parameter(
        self, server: FakeWebServer, engine: str, param: str
    ) -> None:
        self.query = WebQuery("q", limit=5, engine=engine)
        await self.answer(server, self.success())
        seen = server.requests[0].query
        assert seen["engine"] == [engine] and seen[param] == ["q"]
        assert seen["api_key"] == ["test-key-123"]

    async def test_time_range_per_engine(self, server: FakeWebServer) -> None:
        self.query = WebQuery("q", time_range="week")
        await self.answer(server, self.success())
        assert server.requests[0].query["tbs"] == ["qdr:w"]
        bing = WebQuery("q", time_range="week", engine="bing")
        assert any("bing" in n for n in SerpAPI().limitations(bing))
        assert SerpAPI().limitations(self.query) == []

    async def test_error_inside_a_200_is_not_a_result(self, server: FakeWebServer) -> None:
        from unifind.types import Reason

        hits, report = await self.answer(server, Respond(json={"error": "Invalid engine"}))
        self.assert_degraded(hits, report, Reason.BAD_RESPONSE)
