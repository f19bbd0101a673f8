"""Per-provider token buckets, so parallel calls queue for their turn instead of earning 429s.

The bucket is the Generic Cell Rate Algorithm (GCRA; ITU-T I.371, the "virtual scheduling"
form): one number per provider, the theoretical arrival time ``tat`` of the next call. A call
at ``now`` may go at ``max(now, tat - tau)`` where ``T = 1/rate`` and ``tau = (burst-1)·T``,
and moves ``tat`` on by ``T``. Each caller *reserves* its slot before sleeping, so N parallel
callers get the N next slots in order: no thundering herd, no 429.

With ``redis_url`` set the ``tat`` lives in Redis and is moved by one Lua script timed by the
Redis server's clock, so every worker process shares one bucket per provider. While Redis is
down each process keeps its own bucket (the rate then holds per process, not in total).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from unifind._redis import RedisLink, Unavailable

# KEYS[1] the bucket; ARGV: T (ms), tau (ms), most wait the caller accepts (ms).
# Returns the wait in ms as a string, or "-<wait>" when it exceeds the caller's (no slot taken).
_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local step, tau, most = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local wait = tat - tau - now
if wait < 0 then wait = 0 end
if wait > most then return '-' .. tostring(wait) end
local next_tat = tat + step
redis.call('SET', KEYS[1], tostring(next_tat), 'PX', math.ceil(next_tat - now + 1000))
return tostring(wait)
"""


@dataclass(frozen=True)
class Rate:
    """``per_s`` calls per second on average, ``burst`` at once."""

    per_s: float
    burst: int = 1
    headroom: float = 0.05
    """Calls are spaced this fraction wider than ``1/per_s``: a provider counts arrivals,
    and one call's network delay (a new connection: tens of ms) would otherwise squeeze
    the gap to the next below the limit."""

    @property
    def step(self) -> float:
        return (1.0 + self.headroom) / self.per_s

    @property
    def tau(self) -> float:
        return (max(1, self.burst) - 1) * self.step


class TooLong(Exception):
    """The bucket's next slot is further away than the caller can wait."""

    def __init__(self, wait_s: float) -> None:
        super().__init__(f"next slot in {wait_s:.1f}s")
        self.wait_s = wait_s


@dataclass
class RateLimiter:
    """Buckets by provider name; ``shared`` puts them in Redis for every worker."""

    shared: RedisLink | None = None
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    _tat: dict[str, float] = field(default_factory=dict)

    def _reserve_local(self, name: str, rate: Rate, most_s: float) -> float:
        now = self.clock()
        tat = max(self._tat.get(name, now), now)
        wait = max(0.0, tat - rate.tau - now)
        if wait > most_s:
            raise TooLong(wait)
        self._tat[name] = tat + rate.step
        return wait

    async def _reserve_shared(self, link: RedisLink, name: str, rate: Rate, most_s: float) -> float:
        key = link.key("bucket", name)
        args = (rate.step * 1000, rate.tau * 1000, most_s * 1000)
        raw = await link.acall(lambda r: r.eval(_RESERVE, 1, key, *args))
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        if text.startswith("-"):
            raise TooLong(float(text[1:]) / 1000)
        return float(text) / 1000

    async def reserve(self, name: str, rate: Rate, most_s: float = float("inf")) -> float:
        """Take the next slot of ``name``'s bucket; the seconds to wait for it.

        Raises :class:`TooLong` (taking nothing) when the slot is more than ``most_s`` away.
        """
        if self.shared is not None:
            with contextlib.suppress(Unavailable):
                return await self._reserve_shared(self.shared, name, rate, most_s)
        return self._reserve_local(name, rate, most_s)

    async def acquire(self, name: str, rate: Rate, most_s: float = float("inf")) -> float:
        """Wait for ``name``'s next slot; the seconds waited."""
        wait = await self.reserve(name, rate, most_s)
        if wait > 0:
            await self.sleep(wait)
        return wait
