"""Brave Search: ``GET /res/v1/web/search`` (``/res/v1/news/search`` for news) with
``X-Subscription-Token``.

https://api-dashboard.search.brave.com/app/documentation/web-search/query — parameters used:
``country`` (two letters), ``search_lang``, ``safesearch`` (off/moderate/strict), ``freshness``
(``pd``/``pw``/``pm``/``py`` or ``YYYY-MM-DDtoYYYY-MM-DD``), ``offset`` (pages, ≤ 9); sites
as ``site:``/``-site:`` operators in ``q``.
"""

from __future__ import annotations

from datetime import date
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
        sites="operator",
        time_range=True,
        dates=True,
        language=True,
        country=True,
        topics=("general", "news"),
        safe_search=True,
        max_results=20,
        published=True,
        paging=True,
        rate=1.0,  # the free plan: 1 query per second
        burst=1,
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        count = min(query.limit, self.capabilities.max_results)
        params: dict[str, str | int] = {"q": query.text_with_sites(), "count": count}
        if query.offset:
            # Brave's offset counts pages of ``count`` results, at most 9.
            params["offset"] = min(9, query.offset // count)
        if query.time_range:
            params["freshness"] = FRESHNESS[query.time_range]
        elif query.start_date or query.end_date:
            start = query.start_date or date(1990, 1, 1)
            params["freshness"] = f"{start}to{query.end_date or date.today()}"
        if query.country:
            params["country"] = query.country.upper()
        if query.language:
            params["search_lang"] = query.language
        if query.safe_search:
            params["safesearch"] = query.safe_search
        headers = {"X-Subscription-Token": config.api_key or "", "Accept": "application/json"}
        path = "/res/v1/news/search" if query.topic == "news" else "/res/v1/web/search"
        return httpx.Request("GET", config.url(path), params=params, headers=headers)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        data = json_object(reply)
        if data.get("type") not in ("search", "news") and "query" not in data:
            raise SourceError(Reason.BAD_RESPONSE, "not a Brave search response")
        # News answers list results at the top level; web answers under "web".
        rows = list_field(data, "results") if data.get("type") == "news" else []
        rows = rows or list_field(data, "web", "results")
        for row in rows:  # page_age is ISO; age ("3 days ago") is the fallback Brave gives
            row.setdefault("page_age", row.get("age"))
        return hits(rows, url="url", title="title", snippet="description", published="page_age")
