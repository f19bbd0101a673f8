"""Server-sent events for a streamed search: one event per ``OpEvent``, heartbeats, and
cancellation when the client goes away.

Wire format (https://html.spec.whatwg.org/multipage/server-sent-events.html)::

    event: leg
    data: {"leg": "kb", "backend": "docs", "status": "ok", ...}

    : heartbeat

The events run in their own task; this response only forwards them. When the client
disconnects (``http.disconnect`` on ``receive``, or a failed ``send``), that task is
cancelled, which closes the operation's event stream and so cancels the legs still
running: a client that leaves stops the work it started.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import Any

from fastapi.responses import Response

from unifind.errors import InputError
from unifind.http_api._errors import error_body, input_error_body
from unifind.ops import OpEvent

log = logging.getLogger("unifind.http")

_END = b""
HEARTBEAT = b": heartbeat\n\n"


def encode(ev: OpEvent) -> bytes:
    """One event as SSE bytes; ``done`` carries the whole output model (None fields left out)."""
    if ev.kind == "done":
        data = ev.data["output"].model_dump_json(exclude_none=True)
    else:
        payload = dict(ev.data)
        if ev.message:
            payload["message"] = ev.message
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return f"event: {ev.kind}\ndata: {data}\n\n".encode()


def _error_event(body: dict[str, Any]) -> bytes:
    return f"event: error\ndata: {json.dumps(body, ensure_ascii=False)}\n\n".encode()


class EventStream(Response):
    """``text/event-stream`` of a search's events, with heartbeats every ``heartbeat_s``."""

    media_type = "text/event-stream"

    def __init__(self, events: AsyncIterator[OpEvent], *, heartbeat_s: float) -> None:
        # Not Response.__init__: it would declare Content-Length: 0 for the empty body.
        self.status_code = 200
        self.background = None
        self.init_headers({"cache-control": "no-store", "x-accel-buffering": "no"})
        self.events = events
        self.heartbeat_s = heartbeat_s

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        producer = asyncio.ensure_future(self._produce(queue))
        gone = asyncio.ensure_future(_disconnected(receive))
        getter: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait(
                    {getter, gone}, timeout=self.heartbeat_s, return_when=asyncio.FIRST_COMPLETED
                )
                if getter not in done:
                    getter.cancel()
                    if gone in done:
                        return
                    await send({"type": "http.response.body", "body": HEARTBEAT, "more_body": True})
                    continue
                chunk = getter.result()
                if chunk is _END:
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            return  # the client went away mid-send; the finally cancels the search
        finally:
            for task in (producer, gone, getter):
                task.cancel()
            with suppress(asyncio.CancelledError):
                await asyncio.gather(producer, gone, getter, return_exceptions=True)

    async def _produce(self, queue: asyncio.Queue[bytes]) -> None:
        try:
            async for ev in self.events:
                await queue.put(encode(ev))
        except InputError as exc:  # e.g. an unknown collection, found when its leg starts
            await queue.put(_error_event(input_error_body(exc)[1]))
        except Exception as exc:  # the stream must end with an event, never just stop
            log.exception("search stream failed")
            await queue.put(_error_event(error_body(500, f"internal error ({type(exc).__name__})")))
        finally:
            # Closing the operation's stream cancels the legs still running.
            close = getattr(self.events, "aclose", None)
            if close is not None:
                await close()
        await queue.put(_END)


async def _disconnected(receive: Any) -> None:
    """Return when the client disconnects (the request body was already read)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
