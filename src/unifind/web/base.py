"""The two plug-in contracts of the web leg: search providers and fetchers (DESIGN §5).

**SearchProvider** — sans-IO. One module per service; capabilities declared as data at the
top of the class. It only builds the request (:meth:`~SearchProvider.build_request`) and
parses the reply (:meth:`~SearchProvider.parse_response`); the runner owns the network,
deadlines, retries and status mapping. A parser:

- returns ``[]`` for a well-formed empty answer (that is a valid ``ok``);
- raises :class:`~unifind.errors.SourceError` for anything else it can't read (missing
  fields, an HTML page where JSON was promised, an error object inside a 200) — never
  turns an error text into a hit;
- returns URLs as the provider gave them; the leg unwraps redirect wrappers, canonicalises
  and dedupes.

**Fetcher** — turns a URL into readable text (never raw HTML). Remote services subclass
:class:`RemoteFetcher` (sans-IO, like providers); the local fetcher does its own I/O because
it must check every redirect hop (SSRF).

Registration: an entry point in ``unifind.web_providers`` / ``unifind.web_fetchers`` or
``registry("web_providers").register(name, cls)``; the class is instantiated with no
arguments. Check a plug with :mod:`unifind.testing.web_provider`.
"""

from __future__ import annotations

import html
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

import httpx

from unifind._http import Http, Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.model import Capabilities, Page, PlugConfig, WebHit, WebQuery


class _Plug:
    name: ClassVar[str]
    key_env: ClassVar[str | None] = None
    """The usual environment variable of the key (``TAVILY_API_KEY``); None for keyless plugs."""
    key_optional: ClassVar[bool] = False
    """Works without a key when pinned, but auto resolution only counts it when keyed."""
    default_base_url: ClassVar[str] = ""
    """Empty means the user must configure one (self-hosted services like SearXNG)."""
    needs_base_url: ClassVar[bool] = True
    """False for plugs that call no service of their own (the local fetcher)."""
    docs: ClassVar[str] = ""
    """Where its HTTP API is documented."""
    status_hints: ClassVar[Mapping[int, str]] = {}
    """Extra advice appended to an HTTP error of that status (SearXNG's 403: enable JSON)."""

    @classmethod
    def keyed(cls) -> bool:
        return cls.key_env is not None


class SearchProvider(_Plug, ABC):
    """A web search service: query in, ``WebHit`` list out."""

    capabilities: ClassVar[Capabilities]

    def limitations(self, query: WebQuery) -> list[str]:
        """What of ``query`` this provider can't honour, as notes (the leg reports them).

        Domains, dates, language, country, topic and safe search are planned before the
        query is built (:mod:`unifind.web.params`); this hook adds what only the provider
        knows (an engine of SerpAPI without a date filter)."""
        caps, out = self.capabilities, []
        if query.engine and not (caps.engines or caps.any_engine):
            out.append(f"engine: {self.name} has no engine choice; {query.engine!r} ignored")
        if query.limit > caps.max_results:
            out.append(f"limit: {self.name} returns at most {caps.max_results} results per call")
        return out

    @abstractmethod
    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        """The HTTP request for ``query``, under ``config.base_url``, carrying the key."""

    @abstractmethod
    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        """Hits from a 2xx reply, best first; raise SourceError for an unreadable one."""


class Fetcher(_Plug, ABC):
    """A URL → readable text service."""

    @abstractmethod
    async def fetch(self, url: str, *, http: Http, config: PlugConfig) -> Page:
        """Fetch and extract ``url``; failures raise SourceError (the runner reports them)."""


class RemoteFetcher(Fetcher):
    """A fetcher that is one HTTP call to a service; sans-IO like providers."""

    @abstractmethod
    def build_request(self, url: str, config: PlugConfig) -> httpx.Request: ...

    @abstractmethod
    def parse_response(self, reply: Reply, url: str) -> Page: ...

    async def fetch(self, url: str, *, http: Http, config: PlugConfig) -> Page:
        return self.parse_response(await http.send(self.build_request(url, config)), url)


# --- helpers shared by parsers -------------------------------------------------------------

_CAPTCHA = re.compile(
    r"captcha|are you a robot|unusual traffic|bots use duckduckgo|anomaly-modal|"
    r"cf-challenge|challenge-platform|verify you are human",
    re.IGNORECASE,
)


def looks_like_captcha(text: str) -> bool:
    """True for a bot-check / challenge page served instead of results."""
    return bool(_CAPTCHA.search(text[:20000]))


def json_body(reply: Reply) -> Any:
    """The reply as JSON, or SourceError: a captcha is ``rate_limited``, else ``bad_response``."""
    head = reply.content[:512].lstrip().lower()
    if head.startswith((b"<!doctype", b"<html", b"<")):
        if looks_like_captcha(reply.text):
            raise SourceError(
                Reason.RATE_LIMITED,
                "answered with a bot-check (captcha) page instead of results; retry later",
            )
        raise SourceError(Reason.BAD_RESPONSE, "answered with an HTML page instead of JSON")
    return reply.json()


def json_object(reply: Reply) -> dict[str, Any]:
    data = json_body(reply)
    if not isinstance(data, dict):
        raise SourceError(Reason.BAD_RESPONSE, f"expected a JSON object, got {type(data).__name__}")
    return data


def list_field(data: dict[str, Any], *path: str, required: bool = False) -> list[dict[str, Any]]:
    """``data[path...]`` as a list of objects; absent is ``[]`` unless ``required``."""
    cur: Any = data
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            if required:
                raise SourceError(Reason.BAD_RESPONSE, f"response has no {'.'.join(path)!r}")
            return []
        cur = cur[key]
    if cur is None:
        return []
    if not isinstance(cur, list):
        raise SourceError(Reason.BAD_RESPONSE, f"{'.'.join(path)!r} is not a list")
    return [x for x in cur if isinstance(x, dict)]


def hit(
    row: dict[str, Any], *, url: str, title: str, snippet: str, published: str = ""
) -> WebHit | None:
    """A WebHit from ``row`` by field names; None when the row has no usable URL."""
    link = row.get(url)
    if not isinstance(link, str) or not link.strip():
        return None
    date = row.get(published) if published else None
    return WebHit(
        title=_text(row.get(title)) or link,
        url=link.strip(),
        snippet=_text(row.get(snippet)),
        published=str(date) if date else None,
    )


_TAG = re.compile(r"<[^>]{0,200}>")


def _text(value: Any) -> str:
    """Plain one-line text: lists joined, inline tags (Brave's ``<strong>``) and entities undone."""
    if isinstance(value, list):
        value = " … ".join(str(v) for v in value if v)
    if not value:
        return ""
    return " ".join(html.unescape(_TAG.sub("", str(value))).split())


def hits(rows: list[dict[str, Any]], **fields: str) -> list[WebHit]:
    return [h for h in (hit(r, **fields) for r in rows) if h is not None]
