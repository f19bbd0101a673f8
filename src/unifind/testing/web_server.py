"""A scripted HTTP server on 127.0.0.1 for testing web providers and fetchers over real HTTP.

::

    with FakeWebServer() as server:
        server.route("POST", "/search", Respond(json={"results": []}))
        server.route("GET", "/slow", Respond(delay_s=2))
        ... base_url=server.url ...
        assert server.requests[0].json()["query"] == "x"

A route answers its responses in turn, repeating the last. ``Respond(drop=True)`` closes
the connection without answering. Unrouted paths answer 404.
"""

from __future__ import annotations

import json as jsonlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

_UNSET: Any = object()


@dataclass(frozen=True)
class Respond:
    """One scripted answer."""

    status: int = 200
    json: Any = _UNSET
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = None
    delay_s: float = 0.0
    """Sleep before answering (to provoke client timeouts)."""
    drop: bool = False
    """Close the connection without a response."""

    def encoded(self) -> tuple[bytes, str]:
        if self.json is not _UNSET:
            return jsonlib.dumps(self.json).encode(), self.content_type or "application/json"
        raw = self.body.encode() if isinstance(self.body, str) else self.body
        return raw, self.content_type or "text/plain; charset=utf-8"


@dataclass(frozen=True)
class Seen:
    """A request the server received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    """Lower-cased names."""
    body: bytes

    def json(self) -> Any:
        return jsonlib.loads(self.body)

    def form(self) -> dict[str, list[str]]:
        return parse_qs(self.body.decode())


Handler = Callable[[Seen], Respond]


class FakeWebServer:
    """Threaded loopback server; use as a context manager."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self._routes: dict[tuple[str, str], list[Respond] | Handler] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first (use it as a context manager)"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def route(self, method: str, path: str, *answers: Respond | Handler) -> None:
        """Answer ``method path`` (a trailing ``*`` matches a prefix) with ``answers`` in turn."""
        if len(answers) == 1 and callable(answers[0]):
            self._routes[(method.upper(), path)] = answers[0]
        else:
            self._routes[(method.upper(), path)] = [a for a in answers if isinstance(a, Respond)]

    def count(self, method: str | None = None, path: str | None = None) -> int:
        return sum(
            1
            for r in self.requests
            if (method is None or r.method == method) and (path is None or r.path == path)
        )

    def _answer(self, seen: Seen) -> Respond:
        with self._lock:
            self.requests.append(seen)
            for (method, path), answers in self._routes.items():
                if method != seen.method:
                    continue
                if path == seen.path or (path.endswith("*") and seen.path.startswith(path[:-1])):
                    if callable(answers):
                        return answers(seen)
                    return answers.pop(0) if len(answers) > 1 else answers[0]
        return Respond(404, json={"error": f"no route for {seen.method} {seen.path}"})

    def __enter__(self) -> FakeWebServer:
        owner = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Buffer the answer so headers and body leave in one segment: two small writes
            # meet the client's delayed ACK (Nagle, RFC 896) and cost ~40 ms per request.
            wbufsize = 1 << 16

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                seen = Seen(
                    self.command,
                    parts.path,
                    parse_qs(parts.query),
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                )
                answer = owner._answer(seen)
                if answer.delay_s:
                    time.sleep(answer.delay_s)
                if answer.drop:
                    self.close_connection = True
                    return
                raw, ctype = answer.encoded()
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(raw)))
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (a timeout test)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle

        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.block_on_close = False  # a sleeping handler must not hold up the test's exit
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


class RateLimitedRoute:
    """A route handler that answers like a provider with a rate limit: ``per_s`` requests a
    second (GCRA with ``tolerance_s`` of jitter allowed), HTTP 429 with ``Retry-After`` past
    it, ``answer`` otherwise. ``limited`` counts the 429s it gave."""

    def __init__(self, answer: Respond, per_s: float, tolerance_s: float = 0.05) -> None:
        self.answer, self.step, self.tolerance_s = answer, 1.0 / per_s, tolerance_s
        self.limited = 0
        self.served = 0
        self._tat = 0.0
        self._lock = threading.Lock()

    def __call__(self, seen: Seen) -> Respond:
        with self._lock:
            now = time.monotonic()
            if now < self._tat - self.tolerance_s:
                self.limited += 1
                wait = max(1, round(self._tat - now + 0.5))
                return Respond(
                    429, json={"error": "rate limited"}, headers={"Retry-After": str(wait)}
                )
            self._tat = max(self._tat, now) + self.step
            self.served += 1
            return self.answer


def closed_port_url() -> str:
    """A loopback URL where nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@contextmanager
def fake_web_server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as server:
        yield server
