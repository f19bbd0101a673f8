"""A small OpenAI-compatible server on 127.0.0.1 for tests: real HTTP over loopback.

::

    with OpenAIServer() as srv:
        srv.script_chat('{"intent": "search"}', "not json", Reply(status=500))
        client = Client(base_url=srv.base_url)  # http://127.0.0.1:<port>/v1
        ...
        assert srv.requests[-1].json["model"] == "gpt-test"

* ``POST /v1/embeddings`` answers with :class:`HashEmbedder` vectors (``float`` or
  ``base64``), shaped like https://platform.openai.com/docs/api-reference/embeddings.
* ``POST /v1/chat/completions`` answers from a scripted queue (plain content, a full
  body, or a :class:`Reply`), streamed as server-sent events when ``"stream": true``.
* ``GET /v1/models`` lists ``models``.
* :meth:`OpenAIServer.inject` queues failures for any path: status, delay, raw body.
* ``Reply(chunks=...)`` sends a body as it is produced (endless or huge streams: a
  newline-less one, a 100 MB answer); ``streamed_bytes`` counts what the client took.
* Every request is recorded in ``requests``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np

from unifind.testing.fakes import HashEmbedder


@dataclass(frozen=True)
class Reply:
    """A canned HTTP answer: ``body`` is sent as JSON unless it is ``str``/``bytes``."""

    status: int = 200
    body: Any = None
    """None → an OpenAI-style error object for non-2xx statuses, ``{}`` otherwise."""
    delay: float = 0.0
    """Seconds to wait before answering (to trigger client timeouts)."""
    headers: dict[str, str] = field(default_factory=dict)
    chunks: Iterable[bytes] | None = None
    """Sent instead of ``body``, one write each as it is produced, with no Content-Length
    (the connection closes after); writing stops when the client hangs up."""


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any
    """The parsed body, or None when it wasn't JSON."""


def _error_body(status: int, message: str) -> dict[str, Any]:
    # The OpenAI error envelope: {"error": {"message", "type", "param", "code"}}.
    return {"error": {"message": message, "type": "test_error", "param": None, "code": status}}


def chat_completion(content: str, *, model: str = "test-model") -> dict[str, Any]:
    """A ``chat.completion`` body whose single choice says ``content``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class OpenAIServer:
    """The server; ``base_url`` ends in ``/v1`` like OpenAI's."""

    def __init__(
        self,
        *,
        embed_dim: int = 64,
        api_key: str | None = None,
        models: tuple[str, ...] = ("test-model", "test-embed"),
    ) -> None:
        self.embed_dim, self.api_key, self.models = embed_dim, api_key, models
        self.requests: list[RecordedRequest] = []
        self.streamed_bytes = 0
        """Bytes of ``Reply(chunks=...)`` bodies written before the client hung up."""
        self._chat: deque[str | dict[str, Any] | Reply] = deque()
        self._faults: dict[str | None, deque[Reply]] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------------
    def script_chat(self, *replies: str | dict[str, Any] | Reply) -> None:
        """Queue chat answers: a str is the assistant's content, a dict the whole body."""
        with self._lock:
            self._chat.extend(replies)

    def inject(self, reply: Reply, *, path: str | None = None, times: int = 1) -> None:
        """Answer the next ``times`` requests (to ``path``, or any path) with ``reply``."""
        with self._lock:
            self._faults.setdefault(path, deque()).extend([reply] * times)

    def _next_fault(self, path: str) -> Reply | None:
        with self._lock:
            for key in (path, None):
                queue = self._faults.get(key)
                if queue:
                    return queue.popleft()
        return None

    def _next_chat(self) -> str | dict[str, Any] | Reply | None:
        with self._lock:
            return self._chat.popleft() if self._chat else None

    # -- lifecycle -------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the server is not running: use `with OpenAIServer() as srv`")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> OpenAIServer:
        handler = type("Handler", (_Handler,), {"server_state": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        # A short poll interval: shutdown() waits up to one interval (default 0.5 s/test).
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- answers ---------------------------------------------------------------------
    def answer(self, method: str, path: str, headers: dict[str, str], payload: Any) -> Reply:
        """The reply to one request (faults first, then auth, then the endpoint)."""
        fault = self._next_fault(path)
        if fault is not None:
            return fault
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            return Reply(401, _error_body(401, "Incorrect API key provided."))
        route = (method, path.rstrip("/"))
        if route == ("GET", "/v1/models"):
            data = [{"id": m, "object": "model", "owned_by": "unifind"} for m in self.models]
            return Reply(200, {"object": "list", "data": data})
        if route not in {("POST", "/v1/embeddings"), ("POST", "/v1/chat/completions")}:
            return Reply(404, _error_body(404, f"no route {method} {path}"))
        if not isinstance(payload, dict):
            return Reply(400, _error_body(400, "the body must be a JSON object"))
        if route[1] == "/v1/embeddings":
            return self._embeddings(payload)
        return self._chat_completion(payload)

    def _embeddings(self, payload: dict[str, Any]) -> Reply:
        inputs = payload.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        if (
            not isinstance(inputs, list)
            or not inputs
            or not all(isinstance(t, str) for t in inputs)
        ):
            return Reply(400, _error_body(400, "'input' must be a string or a list of strings"))
        if any(t == "" for t in inputs):
            return Reply(400, _error_body(400, "'input' cannot contain an empty string"))
        dim = int(payload.get("dimensions") or self.embed_dim)
        rows = HashEmbedder(dim).embed_documents(inputs)
        as_b64 = payload.get("encoding_format") == "base64"
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": (
                    base64.b64encode(row.astype("<f4").tobytes()).decode()
                    if as_b64
                    else [float(x) for x in row]
                ),
            }
            for i, row in enumerate(rows)
        ]
        tokens = sum(len(t.split()) for t in inputs)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        body = {"object": "list", "data": data, "model": payload.get("model"), "usage": usage}
        return Reply(200, body)

    def _chat_completion(self, payload: dict[str, Any]) -> Reply:
        scripted = self._next_chat()
        if scripted is None:
            return Reply(500, _error_body(500, "no scripted chat response left"))
        if isinstance(scripted, Reply):
            return scripted
        model = str(payload.get("model", "test-model"))
        body = chat_completion(scripted, model=model) if isinstance(scripted, str) else scripted
        if payload.get("stream"):
            return Reply(200, _sse(body), headers={"Content-Type": "text/event-stream"})
        return Reply(200, body)


def sse_chunk(content: str, *, finish: str | None = None) -> bytes:
    """One ``chat.completion.chunk`` server-sent event carrying ``content``."""
    choice = {"index": 0, "delta": {"content": content}, "finish_reason": finish}
    event = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": [choice]}
    return f"data: {json.dumps(event)}\n\n".encode()


def _sse(body: dict[str, Any]) -> str:
    """A completion as ``chat.completion.chunk`` server-sent events ending in ``[DONE]``."""
    content = str(body["choices"][0]["message"].get("content") or "")
    pieces = [content[i : i + 8] for i in range(0, len(content), 8)] or [""]
    base = {"id": body.get("id"), "object": "chat.completion.chunk", "model": body.get("model")}
    events = []
    for i, piece in enumerate(pieces):
        delta: dict[str, Any] = {"content": piece}
        if i == 0:
            delta["role"] = "assistant"
        choice = {"index": 0, "delta": delta, "finish_reason": None}
        events.append({**base, "choices": [choice]})
    events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"


class _Handler(BaseHTTPRequestHandler):
    server_state: OpenAIServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        path = self.path.split("?", 1)[0]
        state = self.server_state
        with state._lock:
            state.requests.append(RecordedRequest(self.command, path, headers, raw, payload))
        reply = state.answer(self.command, path, headers, payload)
        if reply.delay:
            time.sleep(reply.delay)
        self._send(reply)

    def _send(self, reply: Reply) -> None:
        if reply.chunks is not None:
            self._stream(reply)
            return
        body = reply.body
        if body is None:
            ok = 200 <= reply.status < 300
            body = {} if ok else _error_body(reply.status, f"injected {reply.status}")
        if isinstance(body, str):
            data = body.encode()
        elif isinstance(body, bytes):
            data = body
        else:
            data = json.dumps(body).encode()
        # The client may have given up already (a timeout test): nothing left to tell it.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.send_response(reply.status)
            for key, value in {"Content-Type": "application/json", **reply.headers}.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    def _stream(self, reply: Reply) -> None:
        assert reply.chunks is not None
        self.close_connection = True  # no length: the end of the body is the end of the socket
        state = self.server_state
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.send_response(reply.status)
            for key, value in {"Content-Type": "text/event-stream", **reply.headers}.items():
                self.send_header(key, value)
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in reply.chunks:
                self.wfile.write(chunk)
                with state._lock:
                    state.streamed_bytes += len(chunk)

    do_GET = _handle
    do_POST = _handle


def embedding_for(text: str, dim: int = 64) -> np.ndarray[Any, np.dtype[np.float32]]:
    """The vector the server returns for ``text`` (for asserting on clients)."""
    row: np.ndarray[Any, np.dtype[np.float32]] = HashEmbedder(dim).embed_documents([text])[0]
    return row
