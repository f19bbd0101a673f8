"""Exa: ``POST /search`` with ``x-api-key`` (https://docs.exa.ai/reference/search).

Parameters used: ``includeDomains``/``excludeDomains``, ``startPublishedDate`` /
``endPublishedDate`` (ISO 8601), ``category: "news"``, ``userLocation`` (two-letter
country) and ``moderation`` (filters unsafe content: our ``safe_search`` moderate/strict).
"""

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
        sites="native",
        exclude_sites="native",
        max_sites=100,
        time_range=True,
        dates=True,
        country=True,
        topics=("general", "news"),
        safe_search=True,
        max_results=100,
        published=True,
        rate=5.0,  # /search: 5 requests per second (docs.exa.ai "Rate limits")
        burst=5,
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
        if query.exclude_sites:
            body["excludeDomains"] = list(query.exclude_sites)
        since = query.start_date
        if query.time_range:
            since = (datetime.now(UTC) - timedelta(days=SPAN[query.time_range])).date()
        if since:
            body["startPublishedDate"] = f"{since.isoformat()}T00:00:00.000Z"
        if query.end_date:
            body["endPublishedDate"] = f"{query.end_date.isoformat()}T23:59:59.999Z"
        if query.topic == "news":
            body["category"] = "news"
        if query.country:
            body["userLocation"] = query.country.upper()
        if query.safe_search in ("moderate", "strict"):
            body["moderation"] = True
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
