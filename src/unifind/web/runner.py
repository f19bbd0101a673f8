"""The one place a plug meets the network: deadline, key check, suspension, status mapping.

Whatever happens inside a provider or fetcher comes out as a :class:`LegReport`; only
cancellation propagates (a race/any loser must stop at once).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from unifind._http import Http, HttpError, header_problem
from unifind._redis import RedisLink, Unavailable
from unifind.errors import SourceError
from unifind.types import LegReport, Reason, Status
from unifind.web.base import Fetcher, SearchProvider
from unifind.web.model import Page, PlugConfig, WebHit, WebQuery
from unifind.web.ratelimit import Rate, RateLimiter, TooLong

#: How long a provider rests after a 429 that named no Retry-After.
DEFAULT_SUSPENSION_S = 60.0


@dataclass
class Suspensions:
    """Providers that answered 429, and until when (monotonic) they must not be called.

    With ``shared`` (``redis_url`` set) a suspension is also a Redis key whose TTL is its
    length, so a 429 seen by one worker rests the provider in every worker. The local
    record is kept too: while Redis is down the process still honours what it saw.
    """

    until: dict[str, float] = field(default_factory=dict)
    clock: Any = time.monotonic
    shared: RedisLink | None = None

    def suspend(self, name: str, seconds: float) -> None:
        self.until[name] = max(self.until.get(name, 0.0), self.clock() + seconds)

    def remaining(self, name: str) -> float:
        left = float(self.until.get(name, 0.0) - self.clock())
        if left <= 0:
            self.until.pop(name, None)
            return 0.0
        return left

    async def asuspend(self, name: str, seconds: float) -> None:
        """:meth:`suspend` here and, when shared, in every worker."""
        self.suspend(name, seconds)
        if self.shared is not None:
            with contextlib.suppress(Unavailable):
                await self.shared.hold(f"suspend:{name}", seconds)

    async def aremaining(self, name: str) -> float:
        """Seconds left of the longest suspension seen here or (when shared) by any worker."""
        left = self.remaining(name)
        if self.shared is not None:
            with contextlib.suppress(Unavailable):
                left = max(left, await self.shared.held(f"suspend:{name}"))
        return left


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


async def _precheck(
    plug: SearchProvider | Fetcher, config: PlugConfig, suspensions: Suspensions
) -> SourceError | None:
    name = plug.name
    if plug.key_env and not plug.key_optional and not config.api_key:
        return SourceError(
            Reason.NO_KEY, f"{name}: no API key; set {plug.key_env} or web.{name}.api_key"
        )
    problem = header_problem(config.api_key) if config.api_key else None
    if problem:
        # A placeholder pasted from docs ("…") would fail deep in httpx's header encoding.
        source = config.key_source or plug.key_env or f"web.{name}.api_key"
        return SourceError(Reason.NO_KEY, f"{name}: {source} {problem}: set the real key")
    if plug.needs_base_url and not config.base_url:
        env = f"UNIFIND_{name.upper()}_BASE_URL"
        return SourceError(
            Reason.NOT_CONFIGURED, f"{name}: no base URL; set {env} or web.{name}.base_url"
        )
    left = await suspensions.aremaining(name)
    if left:
        return SourceError(
            Reason.RATE_LIMITED,
            f"{name}: suspended for {left:.0f}s more after HTTP 429 (not called)",
        )
    return None


async def _failure(
    plug: SearchProvider | Fetcher, exc: BaseException, suspensions: Suspensions
) -> SourceError:
    """Any exception from a plug as a SourceError whose text names the plug."""
    name = plug.name
    if isinstance(exc, HttpError):
        if exc.status == 429:
            seconds = exc.retry_after if exc.retry_after is not None else DEFAULT_SUSPENSION_S
            await suspensions.asuspend(name, seconds)
        hint = plug.status_hints.get(exc.status or 0)
        text = f"{name}: {exc}" + (f" — {hint}" if hint else "")
        return SourceError(exc.reason, text)
    if isinstance(exc, SourceError):
        return SourceError(exc.reason, f"{name}: {exc}")
    if isinstance(exc, TimeoutError):
        return SourceError(Reason.TIMEOUT, f"{name}: no answer within the deadline")
    if isinstance(exc, UnicodeEncodeError) and exc.encoding == "ascii":
        # httpx encodes header values as ASCII; the key is checked before, so this is
        # another configured header value (a user_agent, say).
        return SourceError(
            Reason.NOT_CONFIGURED,
            f"{name}: a request header from web.{name} contains non-ASCII characters "
            f"(U+{ord(exc.object[exc.start]):04X}); it looks like a placeholder",
        )
    # A parser bug is still a status, never an exception out of a search (DESIGN §4).
    return SourceError(Reason.ERROR, f"{name}: {type(exc).__name__}: {exc}")


def _report(
    name: str,
    t0: float,
    *,
    error: SourceError | None = None,
    hits: int = 0,
    note: str | None = None,
) -> LegReport:
    if error is None:
        return LegReport(
            leg="web", backend=name, status=Status.OK, hits=hits, took_ms=_ms(t0), note=note
        )
    return LegReport(
        leg="web",
        backend=name,
        status=Status.DEGRADED,
        reason=error.reason,
        error=str(error),
        took_ms=_ms(t0),
        note=note,
    )


async def _take_slot(
    name: str,
    limiter: RateLimiter | None,
    rate: Rate | None,
    t0: float,
    timeout_s: float,
    http: Http,
) -> float:
    """Wait for the provider's bucket; SourceError when its slot is past the deadline."""
    if limiter is None or rate is None:
        return 0.0
    http.prepare()
    left = timeout_s - (time.perf_counter() - t0)
    try:
        # Keep a tenth of the deadline for the call itself.
        return await limiter.acquire(name, rate, most_s=max(0.0, left * 0.9 - 0.05))
    except TooLong as exc:
        raise SourceError(
            Reason.RATE_LIMITED,
            f"its rate limit ({rate.per_s:g}/s, burst {rate.burst}) has no slot for "
            f"{exc.wait_s:.1f}s, past this call's deadline; not called",
        ) from None


async def run_search(
    provider: SearchProvider,
    query: WebQuery,
    config: PlugConfig,
    *,
    http: Http,
    suspensions: Suspensions,
    timeout_s: float,
    note: str | None = None,
    limiter: RateLimiter | None = None,
    rate: Rate | None = None,
) -> tuple[list[WebHit], LegReport]:
    """Ask one provider (after its rate limit's turn); hits and an ok report, or no hits
    and a degraded one."""
    t0 = time.perf_counter()
    error = await _precheck(provider, config, suspensions)
    if error is not None:
        return [], _report(provider.name, t0, error=error, note=note)
    try:
        async with asyncio.timeout(timeout_s):
            waited = await _take_slot(provider.name, limiter, rate, t0, timeout_s, http)
            if waited >= 0.05:
                extra = f"waited {waited:.1f}s for its rate limit"
                note = f"{note}; {extra}" if note else extra
            reply = await http.send(provider.build_request(query, config))
            found = provider.parse_response(reply, query)
    except Exception as exc:
        return [], _report(
            provider.name, t0, error=await _failure(provider, exc, suspensions), note=note
        )
    return found, _report(provider.name, t0, hits=len(found), note=note)


async def run_fetch(
    fetcher: Fetcher,
    url: str,
    config: PlugConfig,
    *,
    http: Http,
    suspensions: Suspensions,
    timeout_s: float,
    note: str | None = None,
) -> tuple[Page | None, LegReport]:
    """Fetch with one fetcher; a page and an ok report, or None and a degraded one."""
    t0 = time.perf_counter()
    error = await _precheck(fetcher, config, suspensions)
    if error is not None:
        return None, _report(fetcher.name, t0, error=error, note=note)
    try:
        async with asyncio.timeout(timeout_s):
            page = await fetcher.fetch(url, http=http, config=config)
    except Exception as exc:
        return None, _report(
            fetcher.name, t0, error=await _failure(fetcher, exc, suspensions), note=note
        )
    if not page.text.strip():
        err = SourceError(Reason.BAD_RESPONSE, f"{fetcher.name}: no readable text at {url}")
        return None, _report(fetcher.name, t0, error=err, note=note)
    return page, _report(fetcher.name, t0, hits=1, note=note)
