"""A small OpenAI-compatible chat client (L1), reused by every stage that asks an LLM.

Speaks ``POST {base_url}/chat/completions`` as documented at
https://platform.openai.com/docs/api-reference/chat/create (served by OpenAI and by the
many servers that copy it: vLLM, Ollama, llama.cpp, LiteLLM...). Network policy, retries
and status → reason mapping are :mod:`unifind._http`'s; a failure raises
:class:`~unifind.errors.SourceError` with its reason, never a bare httpx error.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import httpx

from unifind._http import (
    Http,
    HttpPolicy,
    describe_exception,
    header_problem,
    reason_for_status,
)
from unifind.errors import SourceError
from unifind.types import Reason

Message = Mapping[str, str]

MAX_LINE_BYTES = 1_000_000
"""The longest server-sent event line read (one chunk is a few hundred bytes): a stream
that sends more without a newline is a ``bad_response``, not a line to buffer whole
(issue #18: a newline-less stream held 1.2 GB before the deadline)."""
_EOL = re.compile(rb"\r\n|\r|\n")  # SSE ends a line with any of the three (WHATWG HTML 9.2.6)


def bearer(api_key: str | None) -> dict[str, str]:
    """The Authorization header; a key HTTP can't carry is ``no_key`` here, not a
    UnicodeEncodeError inside httpx (callers that know the key's source name it first)."""
    if not api_key:
        return {}
    if problem := header_problem(api_key):
        raise SourceError(Reason.NO_KEY, f"the API key {problem}: set the real key")
    return {"Authorization": f"Bearer {api_key}"}


async def chat(
    messages: Sequence[Message],
    *,
    model: str,
    base_url: str,
    api_key: str | None = None,
    response_format: Mapping[str, Any] | None = None,
    timeout: float = 30.0,
    temperature: float | None = 0.0,
    http: Http | None = None,
) -> str:
    """The assistant's reply text for ``messages``.

    ``response_format={"type": "json_object"}`` asks for JSON mode; servers that ignore it
    still answer, so callers validate what comes back anyway.
    """
    payload: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages]}
    if response_format is not None:
        payload["response_format"] = dict(response_format)
    if temperature is not None:
        payload["temperature"] = temperature
    headers = bearer(api_key)
    url = f"{base_url.rstrip('/')}/chat/completions"
    client = http or Http(policy=HttpPolicy(timeout_s=timeout, retries=1))
    try:
        reply = await client.send(httpx.Request("POST", url, json=payload, headers=headers))
    finally:
        if http is None:
            await client.aclose()
    try:
        content = reply.json()["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise SourceError(
            Reason.BAD_RESPONSE, f"{url} answered without choices[0].message"
        ) from exc
    if not isinstance(content, str):
        raise SourceError(Reason.BAD_RESPONSE, f"{url} answered with empty content")
    return content


async def stream_chat(
    messages: Sequence[Message],
    *,
    model: str,
    base_url: str,
    api_key: str | None = None,
    timeout: float = 60.0,
    temperature: float | None = 0.0,
    transport: httpx.AsyncBaseTransport | None = None,
) -> AsyncIterator[str]:
    """The assistant's reply as content deltas, read from ``"stream": true`` server-sent
    ``chat.completion.chunk`` events until ``data: [DONE]``.

    A stream that stops before ``[DONE]`` or a finish reason raises ``bad_response``: the
    caller must not present half an answer as a whole one.
    """
    payload: dict[str, Any] = {
        "model": model,
        "messages": [dict(m) for m in messages],
        "stream": True,
    }
    if temperature is not None:
        payload["temperature"] = temperature
    headers = bearer(api_key)
    url = f"{base_url.rstrip('/')}/chat/completions"
    finished = False
    try:
        async with (
            httpx.AsyncClient(timeout=timeout, transport=transport) as client,
            client.stream("POST", url, json=payload, headers=headers) as resp,
        ):
            if resp.status_code >= 400:
                body = (await resp.aread())[:200].decode("utf-8", "replace")
                raise SourceError(reason_for_status(resp.status_code),
                                  f"{url} answered HTTP {resp.status_code}: {body}")  # fmt: skip
            async for line in _lines(resp, url):
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    finished = True
                    break
                delta, done = _chunk(data, url)
                finished = finished or done
                if delta:
                    yield delta
    except httpx.HTTPError as exc:
        raise describe_exception(exc) from exc
    if not finished:
        raise SourceError(Reason.BAD_RESPONSE, f"{url}: the stream stopped mid-answer")


async def _lines(resp: httpx.Response, url: str) -> AsyncIterator[str]:
    """The body's lines, none longer than :data:`MAX_LINE_BYTES` (httpx's ``aiter_lines``
    buffers a line however long it grows)."""
    head = bytearray()  # the start of a line that has not ended yet
    async for chunk in resp.aiter_bytes():
        first, *more = _EOL.split(chunk)  # only the new bytes are scanned: linear
        head += first
        for line in more:
            yield head.decode("utf-8", "replace")
            head = bytearray(line)
        if len(head) > MAX_LINE_BYTES:
            why = f"{url} sent over {MAX_LINE_BYTES:,} bytes without a line break; not read further"
            raise SourceError(Reason.BAD_RESPONSE, why)
    if head:
        yield head.decode("utf-8", "replace")


def _chunk(data: str, url: str) -> tuple[str, bool]:
    """One chunk's content delta and whether it carries a finish reason."""
    try:
        choice = json.loads(data)["choices"][0]
        delta = choice.get("delta") or {}
        return str(delta.get("content") or ""), bool(choice.get("finish_reason"))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        text = f"{url} sent a malformed chunk: {data[:80]}"
        raise SourceError(Reason.BAD_RESPONSE, text) from exc
