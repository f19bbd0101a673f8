"""The streamed ask speaks the caller's Accept-Language: plan, legs, references, answering
and the citation check, each event's ``message``; no header → the server's telemetry.lang."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

BODY = {"message": "when are refunds paid?", "sources": {"kb": {"collections": ["docs"]}}}


def events(text: str) -> list[tuple[str, Any]]:
    blocks = [b for b in text.split("\n\n") if b.startswith("event: ")]
    return [(b.split("\n")[0][7:], json.loads(b.split("\ndata: ", 1)[1])) for b in blocks]


def said(got: list[tuple[str, Any]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, data in got:
        if data.get("message"):
            out.setdefault(name, []).append(data["message"])
    return out


async def test_a_chinese_caller_reads_chinese_ask_progress(client: httpx.AsyncClient) -> None:
    headers = {"Accept": "text/event-stream", "Accept-Language": "de-DE, zh-CN;q=0.9"}
    r = await client.post("/v1/ask", json=BODY, headers=headers)
    assert r.status_code == 200, r.text
    lines = said(events(r.text))
    assert lines["plan"] == ["正在搜索知识库"]
    assert lines["leg"] and all(m.startswith("知识库/docs ") for m in lines["leg"])
    leg = r"知识库/docs [关键词向量]+：正常，\d+ 条结果"
    refs = rf"\d+ 条参考资料（{leg}(；{leg})*）"
    assert re.fullmatch(refs, lines["references"][0]), lines["references"]
    assert lines["answer.delta"] == ["正在撰写回答"]  # one line, not one per delta
    assert lines["citations"] == ["正在核对引用"]
    for name, data in events(r.text):
        assert name == "answer.delta" or not re.search("[A-Za-z]{3,}", data.get("message", "")
                                                       .replace("docs", "")), data  # fmt: skip


async def test_without_a_language_the_ask_progress_is_the_servers(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post("/v1/ask", json=BODY, headers={"Accept": "text/event-stream"})
    lines = said(events(r.text))
    assert lines["plan"] == ["searching kb"] and lines["citations"] == ["checking citations"]
