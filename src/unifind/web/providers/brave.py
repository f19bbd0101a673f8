"""Brave Search: ``GET /res/v1/web/search`` with ``X-Subscription-Token``.

https://api-dashboard.search.brave.com/app/documentation/web-search/query
"""

from __future__ import annotations

from typing import ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import SearchProvider, hits, json_object, list_field
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery

FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}


class Brave(SearchProvider):
    name: ClassVar[str] = "brave"
    key_env: ClassVar[str | None] = "BRAVE_API_KEY"
    default_base_url: ClassVar[str] = "https://api.search.brave.com"
    docs: ClassVar[str] = "https://api-dashboard.search.brave.com/app/documentation/web-search"
    capabilities: ClassVar[Capabilities] = Capabilities(
        sites="operator", time_range=True, max_results=20, published=True, paging=True
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        count = min(query.limit, self.capabilities.max_results)
        params: dict[str, str | int] = {"q": query.text_with_sites(), "count": count}
        if query.offset:
            # Brave's offset counts pages of ``count`` results, at most 9.
            params["offset"] = min(9, query.offset // count)
        if query.time_range:
            params["freshness"] = FRESHNESS[query.time_range]
        headers = {"X-Subscription-Token": config.api_key or "", "Accept": "application/json"}
        return httpx.Request(
            "GET", config.url("/res/v1/web/search"), params=params, headers=headers
        )

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        data = json_object(reply)
        if data.get("type") != "search" and "query" not in data:
            raise SourceError(Reason.BAD_RESPONSE, "not a Brave web search response")
        rows = list_field(data, "web", "results")
        for row in rows:  # page_age is ISO; age ("3 days ago") is the fallback Brave gives
            row.setdefault("page_age", row.get("age"))
        return hits(rows, url="url", title="title", snippet="description", published="page_age")
