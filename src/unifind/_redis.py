"""State shared by several worker processes, kept in Redis when ``redis_url`` is set (L1).

Three things must agree across ``unifind serve --workers N``: a request's citation numbers,
the web cache and the providers suspended after HTTP 429. Each has a per-process default;
this module gives them one Redis connection policy and one outage rule: Redis down never
fails a search. A call that can't reach Redis raises :class:`Unavailable`, the caller falls
back to its per-process state, a warning is logged once per outage, and Redis is not tried
again for :data:`RETRY_AFTER_S` seconds (a dead server costs one refused connect per
window, not one per call).

The ``redis`` package is imported on first use (``pip install "unifind[redis]"``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from unifind._deps import require

if TYPE_CHECKING:
    from unifind.config import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds a failed Redis is left alone before the next try.
RETRY_AFTER_S = 5.0
#: Connect and read timeout (seconds) unless the URL sets ``socket_timeout`` /
#: ``socket_connect_timeout`` (redis-py reads them from the query string).
TIMEOUT_S = 1.0
#: How long a request's citation numbers live after its last search (24 h).
CITATION_TTL_S = 86_400.0

# One round trip assigns a batch: a known key keeps its number, a new key takes the next.
# Fields are never deleted one by one, so HLEN + 1 is the next number (a counter field or
# key would only duplicate it and need its own TTL). Lua runs atomically (Redis EVAL docs).
_ASSIGN = """
local out = {}
for i = 2, #ARGV do
  local n = redis.call('HGET', KEYS[1], ARGV[i])
  if not n then
    n = redis.call('HLEN', KEYS[1]) + 1
    redis.call('HSET', KEYS[1], ARGV[i], n)
  end
  out[i - 1] = tonumber(n)
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return out
"""

# A hold only ever grows: a short Retry-After must not cut a longer suspension short.
_HOLD = """
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1
"""


class Unavailable(Exception):
    """Redis could not answer; use the per-process state instead."""


def redact(url: str) -> str:
    """``url`` without its password, for logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


async def _holder(client: Any) -> AsyncGenerator[Any, None]:
    """Keeps an async client until its event loop shuts down, then closes it.

    ``asyncio.run`` closes its loop without telling anyone; its ``shutdown_asyncgens`` step
    is the one hook it runs first, and it finalises every suspended async generator.
    """
    try:
        yield client
    finally:
        await client.aclose()


class RedisLink:
    """One Redis URL and key prefix: a sync client, one async client per event loop (a
    redis.asyncio pool belongs to the loop that opened it) and the outage breaker."""

    def __init__(
        self,
        url: str,
        prefix: str = "unifind:",
        *,
        retry_after_s: float = RETRY_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url, self.prefix = url, prefix
        self.retry_after_s = retry_after_s
        self._clock = clock
        self._sync: Any = None
        self._async: dict[
            int, tuple[asyncio.AbstractEventLoop, Any, AsyncGenerator[Any, None]]
        ] = {}
        self._down_until = 0.0
        self._down = False
        self._lock = threading.Lock()

    def key(self, *parts: str) -> str:
        """A key in this deployment's namespace: ``<prefix>part:part``."""
        return self.prefix + ":".join(parts)

    def _options(self, asynchronous: bool) -> dict[str, Any]:
        backoff = require("redis.backoff", "redis")
        retry = require("redis.asyncio.retry" if asynchronous else "redis.retry", "redis")
        # One immediate retry heals a pooled connection that a Redis restart closed;
        # redis-py's default (3 retries with backoff) would stall a search when it is down.
        return {
            "socket_timeout": TIMEOUT_S,
            "socket_connect_timeout": TIMEOUT_S,
            "retry": retry.Retry(backoff.NoBackoff(), 1),
        }

    def _sync_client(self) -> Any:
        with self._lock:
            if self._sync is None:
                redis = require("redis", "redis")
                self._sync = redis.Redis.from_url(self.url, **self._options(False))
            return self._sync

    async def _async_client(self) -> Any:
        loop = asyncio.get_running_loop()
        held = self._async.get(id(loop))
        if held is not None and held[0] is loop:
            return held[1]
        aioredis = require("redis.asyncio", "redis")
        client = aioredis.Redis.from_url(self.url, **self._options(True))
        holder = _holder(client)
        await anext(holder)  # no I/O before its yield: nothing else runs on this loop here
        with self._lock:  # loops of other threads (sync facades) share the dict
            for key, (old, _, _) in list(self._async.items()):
                if old.is_closed():  # its holder already closed the client
                    self._async.pop(key, None)
            self._async[id(loop)] = (loop, client, holder)
        return client

    def _check(self) -> None:
        if self._down and self._clock() < self._down_until:
            raise Unavailable(f"Redis at {redact(self.url)} is down")

    def _failed(self, exc: BaseException) -> Unavailable:
        with self._lock:
            if not self._down:
                log.warning(
                    "Redis at %s unreachable (%s: %s); using per-process state, retrying in %gs",
                    redact(self.url),
                    type(exc).__name__,
                    exc,
                    self.retry_after_s,
                )
            self._down, self._down_until = True, self._clock() + self.retry_after_s
        return Unavailable(f"Redis at {redact(self.url)}: {exc}")

    def _ok(self) -> None:
        if self._down:
            with self._lock:
                self._down = False
            log.warning("Redis at %s answers again; sharing state through it", redact(self.url))

    def _errors(self) -> tuple[type[BaseException], ...]:
        redis = require("redis", "redis")
        return (redis.RedisError, OSError)

    def call(self, fn: Callable[[Any], T]) -> T:
        """``fn(sync_client)``; :class:`Unavailable` when Redis can't answer."""
        self._check()
        try:
            out = fn(self._sync_client())
        except self._errors() as exc:
            raise self._failed(exc) from exc
        self._ok()
        return out

    async def acall(self, fn: Callable[[Any], Awaitable[T]]) -> T:
        """``await fn(async_client)``; :class:`Unavailable` when Redis can't answer."""
        self._check()
        try:
            out = await fn(await self._async_client())
        except self._errors() as exc:
            raise self._failed(exc) from exc
        self._ok()
        return out

    # -- primitives ---------------------------------------------------------------------

    async def hold(self, name: str, seconds: float) -> None:
        """Make ``name`` held for at least ``seconds`` more, for every worker."""
        ms = max(1, round(seconds * 1000))
        await self.acall(lambda r: r.eval(_HOLD, 1, self.key("hold", name), ms))

    async def held(self, name: str) -> float:
        """Seconds ``name`` stays held (0.0 when it isn't)."""
        ms = await self.acall(lambda r: r.pttl(self.key("hold", name)))
        return max(0.0, int(ms) / 1000)

    async def aclose(self) -> None:
        """Close the current loop's async client (others close with their loops)."""
        with self._lock:
            held = self._async.pop(id(asyncio.get_running_loop()), None)
        if held is not None:
            await held[2].aclose()

    def close(self) -> None:
        """Close the sync client's connections."""
        with self._lock:
            client, self._sync = self._sync, None
        if client is not None:
            client.close()


class RedisCitationIds:
    """Citation numbers shared by every worker: one Redis hash per request (dedupe key →
    number), assigned in one atomic round trip; implements ``unifind.cite.ids.IdStore``."""

    def __init__(
        self, link: RedisLink, ttl_s: float = CITATION_TTL_S, tenant: str | None = None
    ) -> None:
        self.link, self.ttl_s, self.tenant = link, ttl_s, tenant
        self._script: Any = None

    def hash_key(self, request_id: str) -> str:
        """The Redis hash holding one request's numbers (of this store's tenant)."""
        if self.tenant is None:
            return self.link.key("cite", request_id)
        # A tenant's requests live under their own name, so another tenant reusing a
        # request id starts its own numbering (issue #20); hashed, since a name may hold ":".
        tag = hashlib.sha256(self.tenant.encode()).hexdigest()[:24]
        return self.link.key(f"cite@{tag}", request_id)

    def _assign(self, client: Any, request_id: str, keys: Sequence[str]) -> list[int]:
        if self._script is None:
            self._script = client.register_script(_ASSIGN)
        ms = max(1, round(self.ttl_s * 1000))
        found = self._script(keys=[self.hash_key(request_id)], args=[ms, *keys], client=client)
        return [int(n) for n in found]

    def assign(self, request_id: str, keys: Sequence[str]) -> list[int] | None:
        """The number of each key, or None while Redis can't answer."""
        if not keys:
            return []
        try:
            return self.link.call(lambda r: self._assign(r, request_id, keys))
        except Unavailable:
            return None


_links: dict[tuple[str, str], RedisLink] = {}
_citations: dict[tuple[str, str, float, str | None], RedisCitationIds] = {}


def link_for(settings: Settings) -> RedisLink | None:
    """The process's link for ``settings.redis_url`` (None when unset); one per URL+prefix,
    so every Searcher and leg of a worker shares its clients and its outage breaker."""
    if not settings.redis_url:
        return None
    key = (settings.redis_url, settings.redis_prefix)
    if key not in _links:
        _links[key] = RedisLink(*key)
    return _links[key]


def citation_ids_for(settings: Settings, tenant: str | None = None) -> RedisCitationIds | None:
    """The citation-number store of ``tenant`` for ``settings`` (None: no Redis)."""
    link = link_for(settings)
    if link is None:
        return None
    key = (link.url, link.prefix, settings.citation_ttl_s, tenant)
    if key not in _citations:
        _citations[key] = RedisCitationIds(link, settings.citation_ttl_s, tenant)
    return _citations[key]


def close_links() -> None:
    """Close and forget every link of this process (a worker shutting down; tests)."""
    links = list(_links.values())
    _links.clear()
    _citations.clear()
    for link in links:
        link.close()
