"""Tavily: ``POST /search`` with a Bearer key (https://docs.tavily.com/documentation/api-reference/endpoint/search).

Parameters used: ``include_domains`` (≤ 300) and ``exclude_domains`` (≤ 150), ``topic``
(``general``/``news``), ``time_range`` or ``start_date``/``end_date`` (``YYYY-MM-DD``), and
``country``, which Tavily takes as a lower-case English name and only for ``general``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import httpx

from unifind._http import Reply
from unifind.web.base import SearchProvider, hits, json_object, list_field
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery

#: ISO 3166-1 alpha-2 → the name Tavily's ``country`` enum uses (a subset: the common ones).
COUNTRY = {
    "us": "united states", "gb": "united kingdom", "uk": "united kingdom", "de": "germany",
    "fr": "france", "es": "spain", "it": "italy", "nl": "netherlands", "ca": "canada",
    "au": "australia", "jp": "japan", "cn": "china", "in": "india", "br": "brazil",
    "mx": "mexico", "kr": "south korea", "se": "sweden", "ch": "switzerland", "pl": "poland",
    "at": "austria", "be": "belgium", "ie": "ireland", "nz": "new zealand", "sg": "singapore",
    "za": "south africa", "ru": "russia", "tr": "turkey", "il": "israel", "ar": "argentina",
}  # fmt: skip


class Tavily(SearchProvider):
    name: ClassVar[str] = "tavily"
    key_env: ClassVar[str | None] = "TAVILY_API_KEY"
    default_base_url: ClassVar[str] = "https://api.tavily.com"
    docs: ClassVar[str] = "https://docs.tavily.com/documentation/api-reference/endpoint/search"
    capabilities: ClassVar[Capabilities] = Capabilities(
        sites="native",
        exclude_sites="native",
        max_sites=150,
        time_range=True,
        dates=True,
        country=True,
        topics=("general", "news"),
        max_results=20,
        published=True,
        # Development keys: 100 requests per minute (docs.tavily.com "Rate limits").
        rate=100 / 60,
        burst=5,
    )

    def limitations(self, query: WebQuery) -> list[str]:
        out = super().limitations(query)
        if query.country and query.country not in COUNTRY:
            out.append(f"country: tavily has no name here for {query.country!r}; ignored")
        if query.country and query.topic == "news":
            out.append("country: tavily takes a country only for general search; ignored")
        return out

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        body: dict[str, Any] = {
            "query": query.text,
            "max_results": min(query.limit, self.capabilities.max_results),
            "search_depth": config.options.get("search_depth", "basic"),
            "topic": query.topic or config.options.get("topic", "general"),
        }
        if query.sites:
            body["include_domains"] = list(query.sites)
        if query.exclude_sites:
            body["exclude_domains"] = list(query.exclude_sites)
        if query.time_range:
            body["time_range"] = query.time_range  # day | week | month | year, as ours
        if query.start_date:
            body["start_date"] = query.start_date.isoformat()
        if query.end_date:
            body["end_date"] = query.end_date.isoformat()
        if query.country in COUNTRY and body["topic"] == "general":
            body["country"] = COUNTRY[query.country]
        headers = {"Authorization": f"Bearer {config.api_key}"}
        return httpx.Request("POST", config.url("/search"), json=body, headers=headers)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        rows = list_field(json_object(reply), "results", required=True)
        # ``published_date`` is only sent for topic="news".
        return hits(rows, url="url", title="title", snippet="content", published="published_date")
