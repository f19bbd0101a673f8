"""Optional TTL cache of provider answers in an embedded SQLite file, so an agent repeating a
query doesn't pay twice. Only ``ok`` answers are stored; a hit is reported as such.

With ``redis_url`` set the answers live in Redis instead (:class:`RedisWebCache`), so every
worker of ``unifind serve --workers N`` sees them; the SQLite file answers while Redis is down.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from unifind._redis import RedisLink, Unavailable
from unifind.web.model import WebHit, WebQuery

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_cache (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    created REAL NOT NULL,
    hits TEXT NOT NULL
)
"""


def cache_key(provider: str, query: WebQuery) -> str:
    """A digest of everything that changes the answer: provider and every query field."""
    raw = json.dumps([provider, asdict(query)], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


#: Answers kept for zero-key providers when ``web.cache_ttl_s`` is unset: a scraped
#: page's ranking barely moves in an hour, and every repeat risks its bot check.
ZERO_KEY_TTL_S = 3600.0
#: Most answers the SQLite cache holds; the oldest go first.
MAX_ENTRIES = 10_000


class WebCache:
    """Provider answers by (provider, query), valid for ``ttl_s`` seconds, at most
    ``max_entries`` of them."""

    def __init__(
        self,
        path: str | Path,
        ttl_s: float,
        clock: object = time.time,
        max_entries: int = MAX_ENTRIES,
    ) -> None:
        self.path, self.ttl_s = Path(path), float(ttl_s)
        self._clock = clock
        self.max_entries = max_entries

    def _now(self) -> float:
        return float(self._clock())  # type: ignore[operator]

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=5)
        try:
            with conn:  # one transaction, committed on success
                conn.execute(_SCHEMA)
                yield conn
        finally:
            conn.close()

    def _get(self, key: str) -> tuple[list[WebHit], float] | None:
        with self._connect() as conn:
            row = conn.execute(
                "SELECT created, hits FROM web_cache WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        age = self._now() - row[0]
        if age > self.ttl_s:
            return None
        return [WebHit(**h) for h in json.loads(row[1])], age

    def _put(self, key: str, provider: str, hits: list[WebHit]) -> None:
        now = self._now()
        payload = json.dumps([asdict(h) for h in hits], ensure_ascii=False)
        with self._connect() as conn:
            conn.execute("DELETE FROM web_cache WHERE created < ?", (now - self.ttl_s,))
            conn.execute(
                "INSERT OR REPLACE INTO web_cache (key, provider, created, hits) "
                "VALUES (?, ?, ?, ?)",
                (key, provider, now, payload),
            )
            conn.execute(
                "DELETE FROM web_cache WHERE key IN (SELECT key FROM web_cache "
                "ORDER BY created DESC LIMIT -1 OFFSET ?)",
                (self.max_entries,),
            )

    async def get(self, provider: str, query: WebQuery) -> tuple[list[WebHit], float] | None:
        """Cached hits and their age in seconds, or None (absent, expired, or the cache
        file unusable: a cache never fails a search, it only stops saving calls)."""
        try:
            return await asyncio.to_thread(self._get, cache_key(provider, query))
        except (OSError, sqlite3.Error, ValueError) as exc:
            self._broken(exc)
            return None

    async def put(self, provider: str, query: WebQuery, hits: list[WebHit]) -> None:
        try:
            await asyncio.to_thread(self._put, cache_key(provider, query), provider, hits)
        except (OSError, sqlite3.Error) as exc:
            self._broken(exc)

    def _broken(self, exc: BaseException) -> None:
        log.warning("web cache %s unusable, answering without it: %s", self.path, exc)


class RedisWebCache(WebCache):
    """The same cache in Redis, one key per answer expiring with the TTL; shared by workers."""

    def __init__(
        self, path: str | Path, ttl_s: float, link: RedisLink, clock: object = time.time
    ) -> None:
        super().__init__(path, ttl_s, clock)
        self.link = link

    async def get(self, provider: str, query: WebQuery) -> tuple[list[WebHit], float] | None:
        key = self.link.key("web", cache_key(provider, query))
        try:
            raw = await self.link.acall(lambda r: r.get(key))
        except Unavailable:
            return await super().get(provider, query)
        if raw is None:
            return None
        created, hits = json.loads(raw)
        # Redis expires the key; the age check also covers clocks of other workers.
        age = max(0.0, self._now() - float(created))
        if age > self.ttl_s:
            return None
        return [WebHit(**h) for h in hits], age

    async def put(self, provider: str, query: WebQuery, hits: list[WebHit]) -> None:
        key = self.link.key("web", cache_key(provider, query))
        payload = json.dumps([self._now(), [asdict(h) for h in hits]], ensure_ascii=False)
        ms = max(1, round(self.ttl_s * 1000))
        try:
            await self.link.acall(lambda r: r.set(key, payload, px=ms))
        except Unavailable:
            await super().put(provider, query, hits)


def open_cache(
    path: str | Path, ttl_s: float, link: RedisLink | None = None, max_entries: int = MAX_ENTRIES
) -> WebCache | None:
    """The web cache for these settings: None when ``ttl_s`` is 0, Redis when linked
    (there keys expire with the TTL; ``max_entries`` bounds the SQLite file)."""
    if ttl_s <= 0:
        return None
    if link is None:
        return WebCache(path, ttl_s, max_entries=max_entries)
    return RedisWebCache(path, ttl_s, link)
