"""Exa: ``POST /search`` with ``x-api-key`` (https://docs.exa.ai/reference/search)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import httpx

from unifind._http import Reply
from unifind.web.base import SearchProvider, json_object, list_field
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery

SPAN = {"day": 1, "week": 7, "month": 31, "year": 366}


class Exa(SearchProvider):
    name: ClassVar[str] = "exa"
    key_env: ClassVar[str | None] = "EXA_API_KEY"
    default_base_url: ClassVar[str] = "https://api.exa.ai"
    docs: ClassVar[str] = "https://docs.exa.ai/reference/search"
    capabilities: ClassVar[Capabilities] = Capabilities(
        sites="native", time_range=True, max_results=100, published=True
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        body: dict[str, Any] = {
            "query": query.text,
            "numResults": min(query.limit, self.capabilities.max_results),
            "type": config.options.get("type", "auto"),
            # Highlights are Exa's query-relevant excerpts: the snippet other providers give.
            "contents": {"highlights": {"numSentences": 3}},
        }
        if query.sites:
            body["includeDomains"] = list(query.sites)
        if query.time_range:
            since = datetime.now(UTC) - timedelta(days=SPAN[query.time_range])
            body["startPublishedDate"] = since.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        headers = {"x-api-key": config.api_key or ""}
        return httpx.Request("POST", config.url("/search"), json=body, headers=headers)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        out: list[WebHit] = []
        for row in list_field(json_object(reply), "results", required=True):
            url = row.get("url")
            if not isinstance(url, str) or not url:
                continue
            snippet = row.get("highlights") or row.get("summary") or row.get("text") or ""
            if isinstance(snippet, list):
                snippet = " … ".join(str(s) for s in snippet)
            out.append(
                WebHit(
                    title=str(row.get("title") or url),
                    url=url,
                    snippet=" ".join(str(snippet).split())[:500],
                    published=row.get("publishedDate") or None,
                )
            )
        return out
