"""Serper (Google results): ``POST /search`` with ``X-API-KEY`` (https://serper.dev/playground)."""

from __future__ import annotations

from typing import Any, ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import SearchProvider, hits, json_object, list_field
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery

#: Google's ``tbs=qdr:`` recency filter, which Serper passes through.
TBS = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}


class Serper(SearchProvider):
    name: ClassVar[str] = "serper"
    key_env: ClassVar[str | None] = "SERPER_API_KEY"
    default_base_url: ClassVar[str] = "https://google.serper.dev"
    docs: ClassVar[str] = "https://serper.dev/playground"
    capabilities: ClassVar[Capabilities] = Capabilities(
        sites="operator", time_range=True, max_results=100, published=True, paging=True
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        num = min(query.limit, self.capabilities.max_results)
        body: dict[str, Any] = {"q": query.text_with_sites(), "num": num}
        if query.offset:
            body["page"] = query.offset // num + 1
        if query.time_range:
            body["tbs"] = TBS[query.time_range]
        for opt in ("gl", "hl", "location"):
            if opt in config.options:
                body[opt] = config.options[opt]
        headers = {"X-API-KEY": config.api_key or ""}
        return httpx.Request("POST", config.url("/search"), json=body, headers=headers)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        data = json_object(reply)
        # Serper omits "organic" when Google has nothing, but always echoes its parameters.
        if "organic" not in data and "searchParameters" not in data:
            raise SourceError(
                Reason.BAD_RESPONSE, "response has neither 'organic' nor 'searchParameters'"
            )
        rows = list_field(data, "organic")
        return hits(rows, url="link", title="title", snippet="snippet", published="date")
