"""A small OpenAI-compatible chat client (L1), reused by every stage that asks an LLM.

Speaks ``POST {base_url}/chat/completions`` as documented at
https://platform.openai.com/docs/api-reference/chat/create (served by OpenAI and by the
many servers that copy it: vLLM, Ollama, llama.cpp, LiteLLM...). Network policy, retries
and status → reason mapping are :mod:`unifind._http`'s; a failure raises
:class:`~unifind.errors.SourceError` with its reason, never a bare httpx error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from unifind._http import Http, HttpPolicy
from unifind.errors import SourceError
from unifind.types import Reason

Message = Mapping[str, str]


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
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
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
