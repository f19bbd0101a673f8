"""Jina search: ``GET https://s.jina.ai/?q=…`` with a Bearer key, JSON via ``Accept``.

https://jina.ai/reader/#apiform — ``X-Respond-With: no-content`` asks for the result list
only (title, url, description), without reading every page.
"""

from __future__ import annotations

from typing import ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import SearchProvider, hits, json_object, list_field
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery


class JinaSearch(SearchProvider):
    name: ClassVar[str] = "jina"
    key_env: ClassVar[str | None] = "JINA_API_KEY"
    default_base_url: ClassVar[str] = "https://s.jina.ai"
    docs: ClassVar[str] = "https://jina.ai/reader/"
    capabilities: ClassVar[Capabilities] = Capabilities(
        sites="native",
        exclude_sites="none",
        language=True,
        country=True,
        max_results=10,
        published=True,
        rate=100 / 60,  # with a key: 100 requests per minute on s.jina.ai
        burst=2,
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        params: list[tuple[str, str | int | float | bool | None]] = [("q", query.text)]
        params += [("site", s) for s in query.sites]
        if query.limit < self.capabilities.max_results:
            params.append(("num", query.limit))
        if query.country:
            params.append(("gl", query.country))
        if query.language:
            params.append(("hl", query.language))
        headers = {
            "Authorization": f"Bearer {config.api_key}",
            "Accept": "application/json",
            "X-Respond-With": "no-content",
        }
        return httpx.Request("GET", config.url("/"), params=params, headers=headers)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        data = json_object(reply)
        code = data.get("code")
        if isinstance(code, int) and code >= 400:
            raise SourceError(Reason.BAD_RESPONSE, f"error {code}: {data.get('message', '')}"[:200])
        rows = list_field(data, "data", required=True)
        return hits(rows, url="url", title="title", snippet="description", published="date")
