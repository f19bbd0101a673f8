"""Values of the web leg: queries, hits, capabilities, plug configuration, fetched pages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from unifind.types import LegReport, Status

TimeRange = Literal["day", "week", "month", "year"]
SitesSupport = Literal["native", "operator", "none"]
Topic = Literal["general", "news"]
SafeSearch = Literal["off", "moderate", "strict"]


@dataclass(frozen=True)
class WebQuery:
    """What one provider is asked: the leg has already kept only what this provider can
    carry (the rest is filtered locally or reported, see :mod:`unifind.web.params`)."""

    text: str
    limit: int = 10
    offset: int = 0
    sites: tuple[str, ...] = ()
    """Restrict to these hosts (``docs.rs``, ``*.gov``); subdomains included."""
    exclude_sites: tuple[str, ...] = ()
    """Leave out these hosts and their subdomains."""
    time_range: TimeRange | None = None
    start_date: date | None = None
    """Published on or after this day."""
    end_date: date | None = None
    """Published on or before this day."""
    language: str | None = None
    """ISO 639-1 code of the results' language (``en``, ``de``, ``zh``)."""
    country: str | None = None
    """ISO 3166-1 alpha-2 code, lower case (``us``, ``de``): results for that country."""
    topic: Topic | None = None
    """``news`` asks a provider's news vertical; None or ``general`` the web."""
    safe_search: SafeSearch | None = None
    engine: str | None = None
    """For meta-search providers (SerpAPI, SearXNG): which upstream engine to use."""

    def text_with_sites(self) -> str:
        """The query with ``site:`` / ``-site:`` operators, for providers that only have those."""
        parts = [self.text]
        if self.sites:
            ops = " OR ".join(f"site:{s}" for s in self.sites)
            parts.append(f"({ops})" if len(self.sites) > 1 else ops)
        parts += [f"-site:{s}" for s in self.exclude_sites]
        return " ".join(parts)


@dataclass(frozen=True)
class WebHit:
    """One search result as a provider gave it (URL not yet canonicalised)."""

    title: str
    url: str
    snippet: str = ""
    published: str | None = None
    """The date exactly as the provider wrote it (ISO, "3 days ago", ...); None if absent."""


@dataclass(frozen=True)
class Capabilities:
    """What a provider can honour, declared as data so the leg can filter or report the rest."""

    keyed: bool = True
    sites: SitesSupport = "operator"
    """``native``: a parameter; ``operator``: ``site:`` in the query; ``none``: the leg filters."""
    time_range: bool = False
    engines: tuple[str, ...] = ()
    """Upstream engines selectable with ``engine=`` (first is the default)."""
    any_engine: bool = False
    """Engine names are the instance's own (SearXNG): passed through, not checked."""
    max_results: int = 10
    """Most results one call returns; larger limits are cut to this."""
    published: bool = False
    """Results carry a publication date."""
    paging: bool = False
    exclude_sites: SitesSupport = "operator"
    max_sites: int = 20
    """Most domains one call carries (parameter entries or ``site:`` operators); longer
    lists are applied by the leg's local filter instead."""
    dates: bool = False
    """Absolute ``start_date``/``end_date`` are a parameter."""
    language: bool = False
    country: bool = False
    topics: tuple[str, ...] = ("general",)
    """Topics it can be asked for (``news``: a news vertical)."""
    safe_search: bool = False
    rate: float = 1.0
    """Default requests per second of the token bucket (from the documented free tier)."""
    burst: int = 1
    """Default bucket size: calls allowed at once before the rate applies."""


@dataclass(frozen=True)
class PlugConfig:
    """A provider's or fetcher's resolved configuration (config file < env, see resolve.py)."""

    base_url: str
    api_key: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    """Free-form extra settings from ``web.<name>`` (``engines``, ``allow_private``, ...)."""
    key_source: str | None = None
    """Where ``api_key`` came from (``TAVILY_API_KEY``, ``web.tavily.api_key``): for messages."""

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")


@dataclass(frozen=True)
class Page:
    """A fetched page as readable text (markdown-ish), before the leg caps it."""

    url: str
    text: str
    title: str | None = None
    final_url: str | None = None
    """Where redirects ended; None when the same as ``url``."""
    content_type: str | None = None
    published: str | None = None
    notes: tuple[str, ...] = ()
    """Facts worth reporting (a body cut at the byte cap)."""
    links: tuple[str, ...] = ()
    """Absolute http(s) links of an HTML page, in page order (for crawling)."""


class FetchResult(BaseModel):
    """The answer to ``WebLeg.fetch``: the text (capped) or, on failure, an honest report."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    report: LegReport
    """Which fetcher ran, how it went, why it was chosen (``note``)."""
    attempts: tuple[LegReport, ...] = ()
    """Fetchers that failed before ``report``'s one, when fallback was allowed."""
    final_url: str | None = None
    title: str | None = None
    text: str = ""
    """Readable text, at most ``max_chars`` long; empty on failure (never an error text)."""
    content_type: str | None = None
    published: str | None = None
    total_chars: int = 0
    """Length of the whole extracted text, before the cap."""
    truncated_chars: int = 0
    """Characters after this page of text (``total_chars - start_char - len(text)``)."""
    start_char: int = 0
    """Where ``text`` starts in the whole extracted text."""
    next_start: int | None = None
    """``start_char`` of the next page; None when this page reaches the end."""
    links: tuple[str, ...] = ()
    """Absolute http(s) links of an HTML page (local fetcher only), for crawling."""

    @property
    def ok(self) -> bool:
        return self.report.status is Status.OK

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
