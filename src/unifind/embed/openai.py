"""Any OpenAI-compatible ``/embeddings`` endpoint: OpenAI, Azure-style gateways, Ollama, vLLM.

Protocol: https://platform.openai.com/docs/api-reference/embeddings/create. Request
``{"model", "input": [...], "encoding_format": "float"}`` (plus ``dimensions`` for
``text-embedding-3`` models, the only ones that accept it); response ``data[]`` items
with ``index`` and ``embedding``. Inputs may not be empty strings and one request holds
at most 2048 inputs.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np

from unifind._http import header_problem
from unifind.embed.base import Embedder, Vectors, normalize
from unifind.errors import ConfigError, EmbedderMismatch, SourceError
from unifind.types import Reason

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_INPUTS_PER_REQUEST = 2048

#: Native sizes of OpenAI's models (https://platform.openai.com/docs/guides/embeddings).
KNOWN_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


def build_request(model: str, texts: Sequence[str], dimensions: int | None) -> dict[str, Any]:
    """The JSON body for one ``POST /embeddings``."""
    body: dict[str, Any] = {"model": model, "input": list(texts), "encoding_format": "float"}
    if dimensions is not None:
        body["dimensions"] = dimensions
    return body


def parse_response(body: Any, count: int) -> Vectors:
    """``count`` rows from a response body, in input order; ValueError if malformed."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        raise ValueError("the response has no 'data' list")
    if len(data) != count:
        raise ValueError(f"asked for {count} embeddings, got {len(data)}")
    rows: dict[int, list[float]] = {}
    for item in data:
        index = item.get("index") if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if not isinstance(index, int) or not isinstance(vector, list) or not vector:
            raise ValueError("each 'data' item needs an integer 'index' and an 'embedding' list")
        rows[index] = vector
    if sorted(rows) != list(range(count)):
        raise ValueError(f"the indexes {sorted(rows)} are not 0..{count - 1}")
    if len({len(v) for v in rows.values()}) != 1:
        raise ValueError("the embeddings have different lengths")
    try:
        out = np.array([rows[i] for i in range(count)], dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"an embedding holds non-numbers: {exc}") from exc
    if not np.all(np.isfinite(out)):
        raise ValueError("an embedding holds NaN or infinity")
    return out


def _status_reason(status: int) -> Reason:
    if status == 401:
        return Reason.AUTH
    if status == 403:
        return Reason.FORBIDDEN
    if status == 429:
        return Reason.RATE_LIMITED
    if status in (502, 503, 504):
        return Reason.UNREACHABLE
    return Reason.ERROR


def _error_text(response: httpx.Response) -> str:
    # OpenAI-style servers explain themselves in {"error": {"message": ...}}.
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = response.text[:200]
    return str(message).strip() or response.reason_phrase


def _base_url(given: str | None) -> tuple[str, str]:
    """The base URL (argument, then environment, then OpenAI) and its host."""
    base = (
        given
        or os.environ.get("UNIFIND_OPENAI_BASE_URL")
        or os.environ.get("OPENAI_BASE_URL")
        or DEFAULT_BASE_URL
    ).rstrip("/")
    host = urlsplit(base).netloc
    if not host:
        raise ConfigError(f"base URL {base!r} has no host; expected e.g. {DEFAULT_BASE_URL}")
    return base, host


class OpenAIEmbedder(Embedder):
    """Embeddings from an OpenAI-compatible HTTP endpoint (sync ``httpx``).

    ``base_url``: argument, else ``UNIFIND_OPENAI_BASE_URL``, else ``OPENAI_BASE_URL``,
    else OpenAI. ``api_key``: argument, else ``OPENAI_API_KEY``; required for OpenAI's
    own host, optional elsewhere (Ollama needs none). ``dim``: when not given and the model
    is not a known OpenAI one, learned from the first response. ``model`` may carry the
    ``@host`` of a recorded spec, which must match the base URL. Failures raise
    :class:`SourceError` with a reason and the endpoint's URL.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dim: int | None = None,
        batch_size: int = 64,
        timeout: float = 30,
        client: httpx.Client | None = None,
    ) -> None:
        model, _, pinned_host = model.partition("@")
        if not model:
            raise ConfigError("name the model: openai:<model>, e.g. openai:text-embedding-3-small")
        if not 1 <= batch_size <= MAX_INPUTS_PER_REQUEST:
            raise ConfigError(f"batch_size must be 1..{MAX_INPUTS_PER_REQUEST}, got {batch_size}")
        base, host = _base_url(base_url)
        if pinned_host and pinned_host != host:
            raise EmbedderMismatch(
                f"the spec names embeddings from {pinned_host} but the base URL is {base}: "
                f"set UNIFIND_OPENAI_BASE_URL to the {pinned_host} server"
            )
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key and host == urlsplit(DEFAULT_BASE_URL).netloc:
            raise SourceError(
                Reason.NO_KEY,
                f"{base}/embeddings needs an API key: set OPENAI_API_KEY "
                "(or point UNIFIND_OPENAI_BASE_URL at a server that needs none)",
            )
        if key and (problem := header_problem(key)):
            source = "api_key" if api_key else "OPENAI_API_KEY"
            raise SourceError(Reason.NO_KEY, f"{source} {problem}: set the real key")
        self.model, self.url, self.batch_size = model, f"{base}/embeddings", batch_size
        self.spec = f"openai:{model}@{host}"
        # Only text-embedding-3 and later accept `dimensions` (API reference).
        self._dimensions = dim if dim is not None and model.startswith("text-embedding-3") else None
        self._dim: int | None = dim if dim is not None else KNOWN_DIMS.get(model)
        self._dim_lock = threading.Lock()
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = client or httpx.Client(timeout=timeout)
        if client is None:
            # We own the pool: close it when the embedder goes away, so its sockets are not
            # left for the garbage collector (a ResourceWarning under -W error).
            weakref.finalize(self, self._client.close)

    @property
    def dim(self) -> int:  # type: ignore[override]
        if self._dim is None:
            self._post(["dimension probe"])  # sets _dim from the answer
        assert self._dim is not None
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        # The API refuses empty strings; a blank text has no meaning to embed: zero row.
        todo = [i for i, t in enumerate(texts) if t.strip()]
        parts = [
            self._post([texts[i] for i in todo[s : s + self.batch_size]])
            for s in range(0, len(todo), self.batch_size)
        ]
        out = np.zeros((len(texts), self.dim), np.float32)
        if parts:
            out[todo] = np.concatenate(parts)
        return out

    def _post(self, texts: list[str]) -> Vectors:
        body = build_request(self.model, texts, self._dimensions)
        try:
            response = self._client.post(self.url, json=body, headers=self._headers)
        except httpx.TimeoutException as exc:
            raise SourceError(Reason.TIMEOUT, f"{self.url} timed out: {exc}") from exc
        except httpx.TransportError as exc:
            raise SourceError(Reason.UNREACHABLE, f"{self.url} unreachable: {exc}") from exc
        if response.status_code != 200:
            raise SourceError(
                _status_reason(response.status_code),
                f"{self.url} answered {response.status_code}: {_error_text(response)}",
            )
        try:
            rows = parse_response(response.json(), len(texts))
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise SourceError(Reason.BAD_RESPONSE, f"{self.url} sent a bad answer: {exc}") from exc
        self._check_dim(rows.shape[1])
        return normalize(rows)

    def _check_dim(self, got: int) -> None:
        with self._dim_lock:
            if self._dim is None:
                self._dim = got
        if got != self._dim:
            raise SourceError(
                Reason.BAD_RESPONSE,
                f"{self.url} returned {got}-d vectors for {self.model}, expected {self._dim}",
            )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
