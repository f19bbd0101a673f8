"""Exa contents: ``POST /contents`` with ``x-api-key`` (https://docs.exa.ai/reference/get-contents)."""

from __future__ import annotations

from typing import ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import RemoteFetcher, json_object, list_field
from unifind.web.model import Page, PlugConfig


class ExaContents(RemoteFetcher):
    name: ClassVar[str] = "exa"
    key_env: ClassVar[str | None] = "EXA_API_KEY"
    default_base_url: ClassVar[str] = "https://api.exa.ai"
    docs: ClassVar[str] = "https://docs.exa.ai/reference/get-contents"

    def build_request(self, url: str, config: PlugConfig) -> httpx.Request:
        body = {"urls": [url], "text": True}
        headers = {"x-api-key": config.api_key or ""}
        return httpx.Request("POST", config.url("/contents"), json=body, headers=headers)

    def parse_response(self, reply: Reply, url: str) -> Page:
        data = json_object(reply)
        rows = list_field(data, "results", required=True)
        if not rows:
            # Per-URL failures come back in "statuses":
            # {"status": "error", "error": {"tag": "CRAWL_NOT_FOUND"}}.
            statuses = list_field(data, "statuses")
            detail = statuses[0].get("error") if statuses else None
            raise SourceError(
                Reason.BAD_RESPONSE, f"no content for {url} ({detail or 'no results'})"
            )
        row = rows[0]
        text = row.get("text")
        if not isinstance(text, str):
            raise SourceError(Reason.BAD_RESPONSE, "result has no text")
        final = row.get("url") or url
        return Page(
            url=url,
            text=text.strip(),
            title=row.get("title") or None,
            final_url=final if final != url else None,
            published=row.get("publishedDate") or None,
        )
