"""Firecrawl scrape: ``POST /v1/scrape`` → markdown (https://docs.firecrawl.dev/api-reference/v1-endpoint/scrape)."""

from __future__ import annotations

from typing import Any, ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import RemoteFetcher, json_object
from unifind.web.model import Page, PlugConfig


class FirecrawlScrape(RemoteFetcher):
    name: ClassVar[str] = "firecrawl"
    key_env: ClassVar[str | None] = "FIRECRAWL_API_KEY"
    default_base_url: ClassVar[str] = "https://api.firecrawl.dev"
    docs: ClassVar[str] = "https://docs.firecrawl.dev/api-reference/v1-endpoint/scrape"

    def build_request(self, url: str, config: PlugConfig) -> httpx.Request:
        body = {"url": url, "formats": ["markdown"], "onlyMainContent": True}
        headers = {"Authorization": f"Bearer {config.api_key}"}
        return httpx.Request("POST", config.url("/v1/scrape"), json=body, headers=headers)

    def parse_response(self, reply: Reply, url: str) -> Page:
        body = json_object(reply)
        if body.get("success") is False:
            raise SourceError(Reason.BAD_RESPONSE, f"success=false: {body.get('error', '')}"[:200])
        data: Any = body.get("data")
        if not isinstance(data, dict) or not isinstance(data.get("markdown"), str):
            raise SourceError(Reason.BAD_RESPONSE, "response has no data.markdown")
        meta: dict[str, Any] = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
        status = meta.get("statusCode")
        if isinstance(status, int) and status >= 400:
            raise SourceError(Reason.BAD_RESPONSE, f"the page answered HTTP {status} to firecrawl")
        final = meta.get("url") or meta.get("sourceURL") or url
        return Page(
            url=url,
            text=data["markdown"].strip(),
            title=meta.get("title") or None,
            final_url=final if final != url else None,
            published=meta.get("publishedTime") or None,
        )
