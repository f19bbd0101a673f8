"""Serper (Google results): ``POST /search`` (``/news`` for news) with ``X-API-KEY``.

https://serper.dev/playground — parameters used: ``gl`` (country), ``hl`` (language),
``tbs`` (Google's recency and ``cdr`` date range), ``page``; sites as operators in ``q``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import SearchProvider, hits, json_object, list_field
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery
from unifind.web.providers._google import tbs


class Serper(SearchProvider):
    name: ClassVar[str] = "serper"
    key_env: ClassVar[str | None] = "SERPER_API_KEY"
    default_base_url: ClassVar[str] = "https://google.serper.dev"
    docs: ClassVar[str] = "https://serper.dev/playground"
    capabilities: ClassVar[Capabilities] = Capabilities(
        sites="operator",
        time_range=True,
        dates=True,
        language=True,
        country=True,
        topics=("general", "news"),
        max_results=100,
        published=True,
        paging=True,
        rate=5.0,  # no documented per-second cap on the free credits; stay polite
        burst=5,
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        num = min(query.limit, self.capabilities.max_results)
        body: dict[str, Any] = {"q": query.text_with_sites(), "num": num}
        if query.offset:
            body["page"] = query.offset // num + 1
        if recency := tbs(query):
            body["tbs"] = recency
        for opt in ("gl", "hl", "location"):
            if opt in config.options:
                body[opt] = config.options[opt]
        if query.country:
            body["gl"] = query.country
        if query.language:
            body["hl"] = query.language
        headers = {"X-API-KEY": config.api_key or ""}
        path = "/news" if query.topic == "news" else "/search"
        return httpx.Request("POST", config.url(path), json=body, headers=headers)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        data = json_object(reply)
        # Serper omits "organic" when Google has nothing, but always echoes its parameters.
        field = "news" if query.topic == "news" else "organic"
        if field not in data and "searchParameters" not in data:
            raise SourceError(
                Reason.BAD_RESPONSE, f"response has neither {field!r} nor 'searchParameters'"
            )
        rows = list_field(data, field)
        return hits(rows, url="link", title="title", snippet="snippet", published="date")
