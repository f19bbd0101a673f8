"""The streamed search speaks the caller's Accept-Language; its plan names the request."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

BODY = {"query": "refunds", "sources": {"kb": {"collections": ["docs"]}}, "request_id": "req_zh1"}


def events(text: str) -> list[tuple[str, Any]]:
    blocks = [b for b in text.split("\n\n") if b.startswith("event: ")]
    return [(b.split("\n")[0][7:], json.loads(b.split("\ndata: ", 1)[1])) for b in blocks]


async def test_a_chinese_caller_reads_chinese_progress(client: httpx.AsyncClient) -> None:
    headers = {"Accept": "text/event-stream", "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}
    r = await client.post("/v1/search", json=BODY, headers=headers)
    got = events(r.text)
    plan = got[0][1]
    assert got[0][0] == "plan" and plan["request_id"] == "req_zh1"
    assert plan["message"] == "正在搜索 1 个来源…"
    legs = [d["message"] for n, d in got if n == "leg"]
    assert legs and all(m.startswith("知识库：") for m in legs)
    for _, data in got[:-1]:
        assert not re.findall(r"[A-Za-z]+", data.get("message", "")), data
    english = await client.post("/v1/search", json=BODY, headers={"Accept": "text/event-stream"})
    assert events(english.text)[0][1]["message"] == "Searching 1 source…"


async def test_the_first_supported_language_listed_wins(client: httpx.AsyncClient) -> None:
    headers = {"Accept": "text/event-stream", "Accept-Language": "de-DE, zh;q=0.5"}
    r = await client.post("/v1/search", json=BODY, headers=headers)
    assert events(r.text)[0][1]["message"] == "正在搜索 1 个来源…"
