"""Trace tree and progress events for a search (DESIGN §10), localised messages.

A :class:`Trace` has one ``search`` node with a child per request (leg); nodes move
pending → running → completed | failed and keep timestamped logs. Every change is also
an :class:`Event` pushed to subscribers, which is what the CLI's ``--stream``, the HTTP
API's server-sent events and the MCP server's progress notifications consume.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Literal

NodeStatus = Literal["pending", "running", "completed", "failed"]
EventKind = Literal["loading", "leg", "found", "partial", "failed", "none", "done"]

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "loading": "Searching {n} sources…",
        "leg_running": "{leg}: searching",
        "leg_completed": "{leg}: {hits} result{s}",
        "leg_failed": "{leg}: failed ({reason})",
        "found": "Found {n} reference{s}",
        "partial": "Found {n} reference{s}; {failed} of {total} sources failed",
        "failed": "Search failed: none of the {total} sources answered",
        "none": "No references found",
        "done": "Done",
    },
    "zh": {
        "loading": "正在搜索 {n} 个来源…",
        "leg_running": "{leg}：搜索中",
        "leg_completed": "{leg}：{hits} 条结果",
        "leg_failed": "{leg}：失败（{reason}）",
        "found": "找到 {n} 条参考资料",
        "partial": "找到 {n} 条参考资料；{total} 个来源中有 {failed} 个失败",
        "failed": "搜索失败：{total} 个来源均未响应",
        "none": "未找到参考资料",
        "done": "完成",
    },
}


def message(locale: str, key: str, **values: Any) -> str:
    """A localised message; unknown locales fall back to English (``zh-CN`` → ``zh``)."""
    table = MESSAGES.get(locale) or MESSAGES.get(locale.split("-")[0].lower()) or MESSAGES["en"]
    count = values.get("n", values.get("hits"))
    return table[key].format(s="" if count == 1 else "s", **values)


@dataclass(frozen=True)
class Event:
    """One progress event."""

    kind: EventKind
    message: str
    ts: float
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "ts": self.ts, "data": self.data}


@dataclass
class Node:
    """A trace node: the search, or one request under it."""

    name: str
    status: NodeStatus = "pending"
    started_at: float | None = None
    ended_at: float | None = None
    logs: list[tuple[float, str]] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)

    def log(self, text: str) -> None:
        self.logs.append((time.time(), text))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "logs": [{"ts": ts, "message": m} for ts, m in self.logs],
            "children": [c.to_dict() for c in self.children],
        }


class Trace:
    """The trace of one search and its event stream."""

    def __init__(self, locale: str = "en") -> None:
        self.locale = locale
        self.root = Node("search")
        self.events: list[Event] = []
        self._queues: list[asyncio.Queue[Event]] = []

    def subscribe(self) -> asyncio.Queue[Event]:
        """A queue receiving every later event (the stream ends after ``done``)."""
        q: asyncio.Queue[Event] = asyncio.Queue()
        self._queues.append(q)
        return q

    def emit(
        self, kind: EventKind, key: str, /, data: dict[str, Any] | None = None, **values: Any
    ) -> Event:
        ev = Event(kind, message(self.locale, key, **values), time.time(), data or {})
        self.events.append(ev)
        self.root.log(ev.message)
        for q in self._queues:
            q.put_nowait(ev)
        return ev

    def child(self, name: str) -> Node:
        node = Node(name)
        self.root.children.append(node)
        return node

    def start(self, node: Node) -> None:
        node.status, node.started_at = "running", time.time()
        node.log("running")

    def finish(self, node: Node, *, ok: bool, text: str) -> None:
        node.status, node.ended_at = ("completed" if ok else "failed"), time.time()
        node.log(text)
