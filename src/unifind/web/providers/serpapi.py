"""SerpAPI: ``GET /search.json?engine=…`` with ``api_key`` (https://serpapi.com/search-api).

One API over many engines; each names its query parameter differently (Yandex ``text``,
Yahoo ``p``, Naver ``query``) and only some take a recency filter, so both are data here.
Language (``hl``), country (``gl``), safe search (``safe``), date ranges (``tbs=cdr``) and
news (``tbm=nws``, answered under ``news_results``) are the google engine's
(https://serpapi.com/search-api); other engines report them as ignored.
"""

from __future__ import annotations

from typing import ClassVar

import httpx

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import SearchProvider, hits, json_object, list_field
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery
from unifind.web.providers._google import tbs

#: engine → name of its query parameter (serpapi.com/<engine>-search-api pages).
QUERY_PARAM = {
    "google": "q",
    "bing": "q",
    "baidu": "q",
    "yandex": "text",
    "yahoo": "p",
    "duckduckgo": "q",
    "naver": "query",
    "ecosia": "q",
    "seznam": "q",
}
#: engine → (parameter, {time_range: value}) for engines with a documented recency filter.
RECENCY = {
    "google": ("tbs", {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}),
    "duckduckgo": ("df", {"day": "d", "week": "w", "month": "m", "year": "y"}),
}
#: engine → its result-count parameter, where it has one.
COUNT_PARAM = {"google": "num", "bing": "count", "baidu": "rn"}
#: 200 answers whose "error" only means "nothing found" (SerpAPI reports it that way).
_EMPTY = ("hasn't returned any results", "no results")


class SerpAPI(SearchProvider):
    name: ClassVar[str] = "serpapi"
    key_env: ClassVar[str | None] = "SERPAPI_API_KEY"
    default_base_url: ClassVar[str] = "https://serpapi.com"
    docs: ClassVar[str] = "https://serpapi.com/search-api"
    capabilities: ClassVar[Capabilities] = Capabilities(
        sites="operator",
        time_range=True,
        dates=True,
        language=True,
        country=True,
        topics=("general", "news"),
        safe_search=True,
        engines=tuple(QUERY_PARAM),
        max_results=100,
        published=True,
        paging=True,
        rate=1.0,  # hourly throughput is capped at 20% of the monthly plan; stay slow
        burst=2,
    )

    def limitations(self, query: WebQuery) -> list[str]:
        out = [n for n in super().limitations(query) if not n.startswith("time_range")]
        engine = query.engine or "google"
        if query.time_range and engine not in RECENCY:
            out.append(f"time_range: serpapi engine {engine!r} has no date filter; not applied")
        if engine != "google":
            google_only = ("start_date", "end_date", "language", "country", "topic", "safe_search")
            for opt in google_only:
                if getattr(query, opt):
                    out.append(f"{opt}: serpapi passes it to the google engine only; ignored")
        return out

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        engine = query.engine or str(config.options.get("engine", "google"))
        params: dict[str, str | int] = {
            "engine": engine,
            QUERY_PARAM.get(engine, "q"): query.text_with_sites(),
            "api_key": config.api_key or "",
        }
        if engine in COUNT_PARAM:
            params[COUNT_PARAM[engine]] = min(query.limit, self.capabilities.max_results)
        if query.offset and engine == "google":
            params["start"] = query.offset
        if query.time_range and engine in RECENCY:
            param, values = RECENCY[engine]
            params[param] = values[query.time_range]
        if engine == "google":
            _google_options(params, query)
        return httpx.Request("GET", config.url("/search.json"), params=params)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        data = json_object(reply)
        error = data.get("error")
        if isinstance(error, str) and error:
            if any(s in error.lower() for s in _EMPTY):
                return []
            raise SourceError(Reason.BAD_RESPONSE, f"error in a 200 answer: {error[:200]}")
        field = "news_results" if query.topic == "news" else "organic_results"
        if field not in data and "search_metadata" not in data:
            raise SourceError(Reason.BAD_RESPONSE, f"response has no {field!r}")
        rows = list_field(data, field)
        return hits(rows, url="link", title="title", snippet="snippet", published="date")


def _google_options(params: dict[str, str | int], query: WebQuery) -> None:
    if (query.start_date or query.end_date) and (recency := tbs(query)):
        params["tbs"] = recency
    if query.country:
        params["gl"] = query.country
    if query.language:
        params["hl"] = query.language
    if query.safe_search:
        params["safe"] = "off" if query.safe_search == "off" else "active"
    if query.topic == "news":
        params["tbm"] = "nws"
