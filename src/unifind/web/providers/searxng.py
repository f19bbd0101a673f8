"""SearXNG, self-hosted and keyless: ``GET /search?format=json``.

https://docs.searxng.org/dev/search_api.html — the instance must list ``json`` under
``search.formats`` in its settings.yml, otherwise it answers 403. Parameters used:
``categories`` (``news``), ``language`` (``en``, or ``en-US`` with a country),
``safesearch`` (0/1/2), ``time_range``, ``pageno``, ``engines``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import SearchProvider, hits, json_object, list_field
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery

SAFE = {"off": 0, "moderate": 1, "strict": 2}


class SearXNG(SearchProvider):
    name: ClassVar[str] = "searxng"
    default_base_url: ClassVar[str] = ""  # no public default: a self-hosted instance is a choice
    docs: ClassVar[str] = "https://docs.searxng.org/dev/search_api.html"
    status_hints: ClassVar[Mapping[int, str]] = {
        403: "is the JSON format enabled (search.formats in settings.yml)?"
    }
    capabilities: ClassVar[Capabilities] = Capabilities(
        keyed=False,
        sites="operator",
        time_range=True,
        language=True,
        topics=("general", "news"),
        safe_search=True,
        any_engine=True,
        max_results=20,
        published=True,
        paging=True,
        rate=2.0,  # a self-hosted instance's limiter is the owner's; this stays under it
        burst=4,
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        params: dict[str, str | int] = {"q": query.text_with_sites(), "format": "json"}
        if query.offset:
            params["pageno"] = query.offset // max(1, query.limit) + 1
        if query.time_range:
            params["time_range"] = query.time_range
        engines = query.engine or config.options.get("engines")
        if engines:
            params["engines"] = engines if isinstance(engines, str) else ",".join(engines)
        if lang := query.language or config.options.get("language"):
            params["language"] = lang
        if query.topic == "news":
            params["categories"] = "news"
        if query.safe_search:
            params["safesearch"] = SAFE[query.safe_search]
        return httpx.Request("GET", config.url("/search"), params=params)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        data = json_object(reply)
        rows = list_field(data, "results", required=True)
        failed = data.get("unresponsive_engines") or []
        if not rows and failed:
            # Empty because every upstream engine failed is not "no results" (DESIGN §3).
            names = ", ".join(
                " ".join(map(str, f)) if isinstance(f, list) else str(f) for f in failed
            )
            raise SourceError(Reason.UNREACHABLE, f"no results; upstream engines failed: {names}")
        return hits(rows, url="url", title="title", snippet="content", published="publishedDate")
