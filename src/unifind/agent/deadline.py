"""The overall deadline of one ``ask`` (DESIGN §4: "the request has an overall one").

Times are ``time.perf_counter()`` instants. The plan's hooks, the attached URLs, the
searches and the answer's LLM stream each get what is left; what the deadline cuts is
reported (a search as ``degraded``/``timeout``, the answer by its note), never raised.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import TypeVar

from unifind.errors import InputError

ASK_DEADLINE_S = 60.0
"""The overall deadline of an ask when the caller names none (seconds)."""
MAX_DEADLINE_S = 3600.0

T = TypeVar("T")


def deadline_at(deadline_s: float | None, t0: float) -> float:
    """The instant an ask started at ``t0`` must be done by; a bad value is InputError."""
    seconds = ASK_DEADLINE_S if deadline_s is None else deadline_s
    if not 0 < seconds <= MAX_DEADLINE_S:
        limit = f"above 0 and at most {MAX_DEADLINE_S:g} s"
        raise InputError(f"deadline_s must be {limit}, got {seconds}")
    return t0 + seconds


def left(deadline: float) -> float:
    """Seconds until ``deadline`` (0 once it passed)."""
    return max(0.0, deadline - time.perf_counter())


async def until(deadline: float | None, stream: AsyncIterator[T]) -> AsyncGenerator[T, None]:
    """``stream``'s items until ``deadline``; then TimeoutError, the stream closed.

    The timeout wraps each wait for the next item, never a ``yield``: a deadline passing
    while the consumer holds an item must not cancel the consumer's own work.
    """
    try:
        while True:
            wait = None if deadline is None else left(deadline)
            async with asyncio.timeout(wait):
                try:
                    item = await anext(stream)
                except StopAsyncIteration:
                    return
            yield item
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


async def within(deadline: float | None, work: Awaitable[T], fallback: Callable[[], T]) -> T:
    """``work``'s result, or ``fallback()`` once ``deadline`` passes (``work`` cancelled)."""
    try:
        async with asyncio.timeout(None if deadline is None else left(deadline)):
            return await work
    except TimeoutError:
        return fallback()
