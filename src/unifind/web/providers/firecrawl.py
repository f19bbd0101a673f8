"""Firecrawl search: ``POST /v1/search`` with a Bearer key.

https://docs.firecrawl.dev/api-reference/v1-endpoint/search — v1 answers
``{"success": true, "data": [...]}``; v2 nests the list under ``data.web``; both are read.
"""

from __future__ import annotations

from typing import Any, ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import SearchProvider, hits, json_object
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery
from unifind.web.providers._google import tbs


class FirecrawlSearch(SearchProvider):
    name: ClassVar[str] = "firecrawl"
    key_env: ClassVar[str | None] = "FIRECRAWL_API_KEY"
    default_base_url: ClassVar[str] = "https://api.firecrawl.dev"
    docs: ClassVar[str] = "https://docs.firecrawl.dev/api-reference/v1-endpoint/search"
    capabilities: ClassVar[Capabilities] = Capabilities(
        sites="operator",
        time_range=True,
        dates=True,  # tbs passes through to Google, cdr date ranges included
        language=True,
        country=True,
        max_results=100,
        rate=5 / 60,  # the free plan: 5 search requests per minute
        burst=1,
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        body: dict[str, Any] = {
            "query": query.text_with_sites(),
            "limit": min(query.limit, self.capabilities.max_results),
        }
        if recency := tbs(query):
            body["tbs"] = recency
        if query.language:
            body["lang"] = query.language
        if query.country:
            body["country"] = query.country
        headers = {"Authorization": f"Bearer {config.api_key}"}
        return httpx.Request("POST", config.url("/v1/search"), json=body, headers=headers)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        data = json_object(reply)
        if data.get("success") is False:
            raise SourceError(Reason.BAD_RESPONSE, f"success=false: {data.get('error', '')}"[:200])
        rows = data.get("data")
        if isinstance(rows, dict):
            rows = rows.get("web")
        if not isinstance(rows, list):
            raise SourceError(Reason.BAD_RESPONSE, "response has no 'data' list")
        objs = [r for r in rows if isinstance(r, dict)]
        return hits(objs, url="url", title="title", snippet="description")
