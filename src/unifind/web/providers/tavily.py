"""Tavily: ``POST /search`` with a Bearer key (https://docs.tavily.com/documentation/api-reference/endpoint/search)."""

from __future__ import annotations

from typing import Any, ClassVar

import httpx

from unifind._http import Reply
from unifind.web.base import SearchProvider, hits, json_object, list_field
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery


class Tavily(SearchProvider):
    name: ClassVar[str] = "tavily"
    key_env: ClassVar[str | None] = "TAVILY_API_KEY"
    default_base_url: ClassVar[str] = "https://api.tavily.com"
    docs: ClassVar[str] = "https://docs.tavily.com/documentation/api-reference/endpoint/search"
    capabilities: ClassVar[Capabilities] = Capabilities(
        sites="native", time_range=True, max_results=20, published=True
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        body: dict[str, Any] = {
            "query": query.text,
            "max_results": min(query.limit, self.capabilities.max_results),
            "search_depth": config.options.get("search_depth", "basic"),
            "topic": config.options.get("topic", "general"),
        }
        if query.sites:
            body["include_domains"] = list(query.sites)
        if query.time_range:
            body["time_range"] = query.time_range  # day | week | month | year, as ours
        headers = {"Authorization": f"Bearer {config.api_key}"}
        return httpx.Request("POST", config.url("/search"), json=body, headers=headers)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        rows = list_field(json_object(reply), "results", required=True)
        # ``published_date`` is only sent for topic="news".
        return hits(rows, url="url", title="title", snippet="content", published="published_date")
