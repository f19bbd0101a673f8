"""Jina Reader: ``GET https://r.jina.ai/<url>``; JSON via ``Accept`` (https://jina.ai/reader/).

It works without a key at a low rate limit, so a pin works keyless; auto resolution only
picks it when ``JINA_API_KEY`` is set (a third-party service is never a silent default).
"""

from __future__ import annotations

from typing import Any, ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import RemoteFetcher, json_object
from unifind.web.model import Page, PlugConfig


class JinaReader(RemoteFetcher):
    name: ClassVar[str] = "jina"
    key_env: ClassVar[str | None] = "JINA_API_KEY"
    key_optional: ClassVar[bool] = True
    default_base_url: ClassVar[str] = "https://r.jina.ai"
    docs: ClassVar[str] = "https://jina.ai/reader/"

    def build_request(self, url: str, config: PlugConfig) -> httpx.Request:
        headers = {"Accept": "application/json", "X-Return-Format": "markdown"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        return httpx.Request("GET", config.base_url.rstrip("/") + "/" + url, headers=headers)

    def parse_response(self, reply: Reply, url: str) -> Page:
        body = json_object(reply)
        data: Any = body.get("data")
        if not isinstance(data, dict) or not isinstance(data.get("content"), str):
            raise SourceError(Reason.BAD_RESPONSE, "response has no data.content")
        final = data.get("url") or url
        return Page(
            url=url,
            text=data["content"].strip(),
            title=data.get("title") or None,
            final_url=final if final != url else None,
            published=data.get("publishedTime") or None,
        )
