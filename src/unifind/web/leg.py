"""The web leg: resolve a provider by the law, run it honestly, shape its hits as Items.

``WebLeg.search`` never raises for a source failure: every provider it consulted gets a
report (DESIGN §3). Bad input (an unknown provider or engine named in the request, a
non-http URL) raises :class:`~unifind.errors.InputError` before anything runs.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from unifind._http import Http, HttpPolicy
from unifind._redis import RedisLink, link_for
from unifind._sections import did_you_mean
from unifind.config import Settings
from unifind.errors import ConfigError, InputError, UnknownName
from unifind.types import Item, LegReport, Match, Reason, SearchRequest, SearchResult, Status
from unifind.web.base import Fetcher, SearchProvider
from unifind.web.cache import MAX_ENTRIES, ZERO_KEY_TTL_S, open_cache
from unifind.web.model import FetchResult, Page, PlugConfig, WebHit, WebQuery
from unifind.web.params import LocalFilter, plan
from unifind.web.ratelimit import Rate, RateLimiter
from unifind.web.resolve import Choice, Resolver
from unifind.web.runner import Suspensions, run_fetch, run_search
from unifind.web.urls import canonical, unwrap

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_CHARS = 20_000


class WebLeg:
    """Web search and fetch over the provider and fetcher registries."""

    def __init__(
        self,
        config: Mapping[str, Any] | None = None,
        *,
        home: Path | None = None,
        http: Http | None = None,
        env: Mapping[str, str] | None = None,
        redis: RedisLink | None = None,
    ) -> None:
        self.config: dict[str, Any] = dict(config or {})
        env = os.environ if env is None else env
        self.http = http or Http(HttpPolicy(retries=int(self.config.get("retries", 2))))
        self.searchers = Resolver("search", self.config, env)
        self.fetchers = Resolver("fetch", self.config, env)
        _check_sections(self.config, {*self.searchers.names(), *self.fetchers.names()})
        # With redis (settings.redis_url) the cache and suspensions are shared by workers.
        self.suspensions = Suspensions(shared=redis)
        self.limiter = RateLimiter(shared=redis)
        self.rate_limit = bool(self.config.get("rate_limit", True))
        self.fallback = bool(self.config.get("fallback", False))
        self.timeout_s = float(self.config.get("timeout_s", DEFAULT_TIMEOUT_S))
        # Unset: only zero-key providers are cached (ZERO_KEY_TTL_S); a number: every
        # provider for that long (0: none); ``cache: false`` turns it off.
        configured = self.config.get("cache_ttl_s")
        self.cache_all = configured is not None
        ttl = float(configured) if configured is not None else ZERO_KEY_TTL_S
        if self.config.get("cache", True) is False:
            ttl = 0.0
        home = home or Path("~/.unifind").expanduser()
        entries = int(self.config.get("cache_max_entries", MAX_ENTRIES))
        self.cache = open_cache(home / "web-cache.sqlite", ttl, redis, entries)

    @classmethod
    def from_settings(cls, settings: Settings, **kw: Any) -> WebLeg:
        kw.setdefault("redis", link_for(settings))
        return cls(settings.web, home=settings.home, **kw)

    async def aclose(self) -> None:
        await self.http.aclose()

    # -- search -------------------------------------------------------------------------

    async def search(self, req: SearchRequest, *, fallback: bool | None = None) -> SearchResult:
        """Search by the resolution law; failures are reports, never exceptions."""
        t0 = time.perf_counter()
        choices, notes = self._search_choices(req)
        budget = self._budget(req.timeout_s)
        allow = self.fallback if fallback is None else fallback
        reports: list[LegReport] = []
        hits: list[WebHit] = []
        for choice in choices if allow else choices[:1]:
            left = budget - (time.perf_counter() - t0)
            if reports and left <= 0:
                break
            note = _fallback_note(choice, reports[-1]) if reports else choice.note
            provider: SearchProvider = self.searchers.plug(choice.name)
            planned = plan(req, provider)
            query = planned.query
            notes += planned.notes + provider.limitations(query)
            hits, report = await self._ask(provider, query, note, max(left, 0.001))
            reports.append(report)
            if report.status is Status.OK:
                items = _items(hits, provider, planned.local, req)
                notes += planned.local.notes(provider.name)
                return self._result(req, t0, reports, notes, items)
        if not choices:
            reports.append(
                LegReport(
                    leg="web",
                    backend="*",
                    status=Status.DISABLED,
                    reason=Reason.NOT_CONFIGURED,
                    note="no web provider is usable",
                )
            )
        return self._result(req, t0, reports, notes, ())

    def _search_choices(self, req: SearchRequest) -> tuple[list[Choice], list[str]]:
        if req.type != "web":
            raise InputError(f"the web leg answers web requests, not {req.type!r}")
        if req.provider and req.provider not in self.searchers.names():
            raise UnknownName("web provider", req.provider, self.searchers.names())
        choices, notes = self.searchers.candidates(self.searchers.pin(req.provider))
        if req.engine and choices:
            caps = self.searchers.plug(choices[0].name).capabilities
            if caps.engines and req.engine not in caps.engines:
                raise InputError(
                    f"{choices[0].name} has no engine {req.engine!r}; "
                    f"valid: {', '.join(caps.engines)}"
                )
        return choices, list(notes)

    def _budget(self, timeout_s: float | None) -> float:
        # Keep under the engine's own deadline for this request so the report can name
        # the provider that was slow instead of a bare leg timeout.
        return timeout_s * 0.9 if timeout_s else self.timeout_s

    async def _ask(
        self, provider: SearchProvider, query: WebQuery, note: str, timeout_s: float
    ) -> tuple[list[WebHit], LegReport]:
        t0 = time.perf_counter()
        cache = self.cache if self.cache_all or not provider.capabilities.keyed else None
        if cache is not None:
            cached = await cache.get(provider.name, query)
            if cached is not None:
                found, age = cached
                report = LegReport(
                    leg="web",
                    backend=provider.name,
                    status=Status.OK,
                    hits=len(found),
                    took_ms=round((time.perf_counter() - t0) * 1000, 3),
                    note=f"cache hit (age {age:.0f}s); {note}",
                )
                return found, report
        config = self.searchers.config(provider.name)
        found, report = await run_search(
            provider,
            query,
            config,
            http=self.http,
            suspensions=self.suspensions,
            timeout_s=timeout_s,
            note=note,
            limiter=self.limiter,
            rate=self.rate_for(provider, config),
        )
        if cache is not None and report.status is Status.OK:
            await cache.put(provider.name, query, found)
        return found, report

    def rate_for(self, provider: SearchProvider, config: PlugConfig) -> Rate | None:
        """The provider's bucket: ``web.<name>.rate``/``burst``, else its documented free
        tier; None when ``web.rate_limit`` is false or the rate is 0."""
        if not self.rate_limit:
            return None
        caps = provider.capabilities
        try:
            per_s = float(config.options.get("rate", caps.rate))
            burst = int(config.options.get("burst", caps.burst))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"web.{provider.name}.rate/burst must be numbers ({exc})") from exc
        if per_s < 0 or burst < 1:
            raise ConfigError(f"web.{provider.name}: rate must be >= 0 and burst >= 1")
        return Rate(per_s, burst) if per_s > 0 else None

    @staticmethod
    def _result(
        req: SearchRequest,
        t0: float,
        reports: list[LegReport],
        notes: list[str],
        items: tuple[Item, ...],
    ) -> SearchResult:
        return SearchResult(
            type="web",
            query=req.query,
            items=items,
            reports=tuple(reports),
            notes=tuple(dict.fromkeys(notes)),
            took_ms=round((time.perf_counter() - t0) * 1000, 3),
        )

    # -- fetch --------------------------------------------------------------------------

    async def fetch(
        self,
        url: str,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        provider: str | None = None,
        fallback: bool | None = None,
        timeout_s: float | None = None,
        start_char: int = 0,
        stay_on_site: bool = False,
    ) -> FetchResult:
        """Readable text of ``url`` from ``start_char``, capped at ``max_chars`` with the
        overflow counted and the next page's start given.

        ``stay_on_site``: a redirect to another site (``urls.site_of``) is not followed but
        fails the fetch with ``forbidden`` and ``urls.OFF_SITE`` in its error. Only a fetcher
        that follows redirects itself can honour it: the local one (a crawl pins it)."""
        if not url.startswith(("http://", "https://")):
            raise InputError(f"fetch needs an http(s) URL, got {url!r}")
        if max_chars < 1:
            raise InputError(f"max_chars must be at least 1, got {max_chars}")
        if start_char < 0:
            raise InputError(f"start_char must be 0 or more, got {start_char}")
        if provider and provider not in self.fetchers.names():
            raise UnknownName("web fetcher", provider, self.fetchers.names())
        choices, _ = self.fetchers.candidates(self.fetchers.pin(provider))
        allow = self.fallback if fallback is None else fallback
        t0, budget = time.perf_counter(), self._budget(timeout_s)
        report: LegReport | None = None
        failed: list[LegReport] = []
        for choice in choices if allow else choices[:1]:
            left = budget - (time.perf_counter() - t0)
            if report is not None and left <= 0:
                break
            if report is not None:
                failed.append(report)
            note = _fallback_note(choice, report) if report else choice.note
            fetcher: Fetcher = self.fetchers.plug(choice.name)
            config = self.fetchers.config(choice.name)
            if stay_on_site:
                config = replace(config, options={**config.options, "stay_on_site": True})
            page, report = await run_fetch(
                fetcher,
                url,
                config,
                http=self.http,
                suspensions=self.suspensions,
                timeout_s=max(left, 0.001),
                note=note,
            )
            if page is not None:
                return _fetched(page, report, max_chars, tuple(failed), start_char)
        if report is None:
            report = LegReport(
                leg="web",
                backend="*",
                status=Status.DISABLED,
                reason=Reason.NOT_CONFIGURED,
                note="no fetcher is usable",
            )
        return FetchResult(url=url, report=report, attempts=tuple(failed))

    async def fetch_many(
        self, urls: Sequence[str], *, concurrency: int = 4, **kw: Any
    ) -> list[FetchResult]:
        """:meth:`fetch` each URL, ``concurrency`` at a time; results in the given order.

        Bad input (a non-http URL) raises before anything is fetched."""
        if not urls:
            raise InputError("fetch needs at least one URL")
        for url in urls:
            if not url.startswith(("http://", "https://")):
                raise InputError(f"fetch needs http(s) URLs, got {url!r}")
        gate = asyncio.Semaphore(max(1, concurrency))

        async def one(url: str) -> FetchResult:
            async with gate:
                return await self.fetch(url, **kw)

        return list(await asyncio.gather(*(one(u) for u in urls)))


def _check_sections(config: Mapping[str, Any], plugs: set[str]) -> None:
    """A ``web.<name>:`` section naming no provider or fetcher is a typo (``tavly:``), not a
    section to ignore: its key would silently never be used."""
    for name, value in config.items():
        if isinstance(value, Mapping) and name not in plugs:
            raise ConfigError(
                f"web.{name}: no provider or fetcher is called {name!r}{did_you_mean(name, plugs)}"
            )


def _fallback_note(choice: Choice, failed: LegReport) -> str:
    reason = failed.reason.value if failed.reason else failed.status.value
    return f"fallback after {failed.backend} failed ({reason}); {choice.note}"


def _items(
    hits: list[WebHit], provider: SearchProvider, local: LocalFilter, req: SearchRequest
) -> tuple[Item, ...]:
    """Unwrap, keep http(s), apply the local filter, dedupe by canonical URL, slice."""
    seen: set[str] = set()
    items: list[Item] = []
    offset = (req.page - 1) * req.limit if req.page else req.offset
    skip = offset if offset and not provider.capabilities.paging else 0
    for rank, found in enumerate(hits, start=1):
        url = unwrap(found.url)
        if not url.startswith(("http://", "https://")):
            continue
        if not local.keep(url, found):
            continue
        key = canonical(url)
        if key in seen:
            continue
        seen.add(key)
        score = 1.0 / rank
        meta = {"provider": provider.name, "published": found.published}
        items.append(
            Item(
                type="web",
                title=found.title,
                url=url,
                content=found.snippet,
                score=score,
                source=req.source,
                weight=req.effective_weight,
                metadata={k: v for k, v in meta.items() if v is not None},
                matched=(Match(leg="web", backend=provider.name, rank=rank, score=score),),
            )
        )
    return tuple(items[skip : skip + req.limit])


def cap_text(text: str, max_chars: int) -> tuple[str, int]:
    """``text`` cut to ``max_chars`` (at a nearby word boundary) and the number of chars cut."""
    if len(text) <= max_chars:
        return text, 0
    cut = text[:max_chars]
    space = cut.rfind(" ", int(max_chars * 0.9))
    if space > 0:
        cut = cut[:space]
    cut = cut.rstrip()
    return cut, len(text) - len(cut)


def _fetched(
    page: Page,
    report: LegReport,
    max_chars: int,
    failed: tuple[LegReport, ...],
    start: int = 0,
) -> FetchResult:
    start = min(start, len(page.text))
    text, cut = cap_text(page.text[start:], max_chars)
    if page.notes:
        report = replace_note(report, "; ".join(page.notes))
    return FetchResult(
        url=page.url,
        report=report,
        attempts=failed,
        final_url=page.final_url,
        title=page.title,
        text=text,
        content_type=page.content_type,
        published=page.published,
        total_chars=len(page.text),
        truncated_chars=cut,
        start_char=start,
        next_start=len(page.text) - cut if cut else None,
        links=page.links,
    )


def replace_note(report: LegReport, extra: str) -> LegReport:
    note = f"{report.note}; {extra}" if report.note else extra
    return report.model_copy(update={"note": note})


__all__ = ["WebLeg", "cap_text"]
