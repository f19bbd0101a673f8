"""Trace tree and progress events for a search (DESIGN §10), localised messages.

A :class:`Trace` has one ``search`` node with a child per request (leg); nodes move
pending → running → completed | failed and keep timestamped logs. Every change is also
an :class:`Event` pushed to subscribers, which is what the CLI's ``--stream``, the HTTP
API's server-sent events and the MCP server's progress notifications consume, and every
node start and finish goes to the trace's observers (OpenTelemetry spans,
:mod:`unifind.engine.otel`).

Every user-visible word of a progress line comes from :data:`MESSAGES` (the sentences)
and :data:`LABELS` (the words put into them: leg names, statuses, reasons, event kinds).
Backend and collection names are proper names and are shown as they are.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

log = logging.getLogger("unifind.trace")

NodeStatus = Literal["pending", "running", "completed", "failed"]
EventKind = Literal["loading", "leg", "found", "partial", "failed", "none", "done"]

MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "loading": "Searching {n} source{s}…",
        "leg_running": "{leg}: searching",
        "leg_completed": "{leg}: {hits} result{s}",
        "leg_failed": "{leg}: failed ({reason})",
        "found": "Found {n} reference{s}",
        "partial": "Found {n} reference{s}; {failed} of {total} sources failed",
        "failed": "Search failed: none of the {total} sources answered",
        "none": "No references found",
        "done": "Done",
        "searching": "searching {legs}",
        "report_ok": "{leg}/{backend}: {status}, {hits} hit{s}",
        "report_other": "{leg}/{backend}: {status} ({reason})",
        "ask_nothing": "searching nothing (no search needed)",
        "ask_references": "{n} reference(s)",
        "ask_references_from": "{n} reference(s) ({details})",
        "ask_answering": "writing the answer",
        "ask_citations": "checking citations",
        # What the CLI prints around a result: footers, summary lines, notes.
        "no_results": "No results.",
        "untitled": "(untitled)",
        "score": "score {score}",
        "matched": "matched: {details}",
        "note": "note: {text}",
        "results": "{n} result{s}",
        "results_of": "{hits} of {n} result{s}",
        "status_line": "status: {status} · {count} · {ms} ms",
        "status_request": "status: {status} · request {request}",
        "ask_citations_line": (
            "citations: {valid} valid id(s), {unknown} unknown{ids}; "
            "{unsupported} of {checked} cited sentence(s) unsupported"
        ),
        "ask_unsupported": "  unsupported ({score}): {sentence}",
        "ask_verdict": "  {verdict}{cite}: {sentence} ({reason})",
        "ask_verdict_source": "      source {cite}: {source}",
        "verdict_supported": "supported",
        "verdict_contradicted": "contradicted",
        "verdict_not_supported": "not supported",
        "verdict_unknown_id": "unknown id",
        "verdict_uncited_claim": "uncited claim",
        "ask_samples": (
            "samples: {n}, kept #{kept} (fewest unknown, then unsupported citations, "
            "then highest mean support)"
        ),
        "plan_none": "no search needed: {why}",
        "plan_legs": "legs: {legs}   keywords: {keywords}",
        "plan_request": "  {leg} ({source}): {query}",
        "plan_why": "why: {why}",
        "plan_uses": "uses: {details}",
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
        "searching": "正在搜索{legs}",
        "report_ok": "{leg}/{backend}：{status}，{hits} 条结果",
        "report_other": "{leg}/{backend}：{status}（{reason}）",
        "ask_nothing": "无需搜索",
        "ask_references": "{n} 条参考资料",
        "ask_references_from": "{n} 条参考资料（{details}）",
        "ask_answering": "正在撰写回答",
        "ask_citations": "正在核对引用",
        "no_results": "没有结果。",
        "untitled": "（无标题）",
        "score": "得分 {score}",
        "matched": "匹配：{details}",
        "note": "注意：{text}",
        "results": "{n} 条结果",
        "results_of": "共 {n} 条结果，显示 {hits} 条",
        "status_line": "状态：{status} · {count} · {ms} 毫秒",
        "status_request": "状态：{status} · 请求 {request}",
        "ask_citations_line": (
            "引用：{valid} 个有效编号，{unknown} 个未知{ids}；"
            "{checked} 个带引用的句子中 {unsupported} 个缺乏依据"
        ),
        "ask_unsupported": "  缺乏依据（{score}）：{sentence}",
        "ask_verdict": "  {verdict}{cite}：{sentence}（{reason}）",
        "ask_verdict_source": "      来源 {cite}：{source}",
        "verdict_supported": "有依据",
        "verdict_contradicted": "与来源矛盾",
        "verdict_not_supported": "缺乏依据",
        "verdict_unknown_id": "未知编号",
        "verdict_uncited_claim": "未标引用的陈述",
        "ask_samples": (
            "采样 {n} 次，保留第 {kept} 次（未知引用最少，其次缺乏依据的引用最少，"
            "再次平均支持度最高）"
        ),
        "plan_none": "无需搜索：{why}",
        "plan_legs": "来源：{legs}   关键词：{keywords}",
        "plan_request": "  {leg}（{source}）：{query}",
        "plan_why": "原因：{why}",
        "plan_uses": "使用：{details}",
    },
}

#: The words put into the sentences, by kind. A language without an entry shows the word
#: as it is (English is the machine code itself).
LABELS: dict[str, dict[str, dict[str, str]]] = {
    "en": {"leg": {}, "status": {}, "reason": {}, "kind": {}, "stage": {}, "source": {},
           "column": {}},
    "zh": {
        "leg": {"web": "网页", "kb": "知识库", "db": "数据库"},
        "stage": {
            "lexical": "关键词", "vector": "向量", "rerank": "重排", "graph": "图谱",
            "store": "存储", "understanding": "理解",
        },
        "status": {
            "ok": "正常", "degraded": "降级", "disabled": "未启用", "skipped": "已跳过",
            "running": "进行中", "pending": "等待中", "completed": "已完成", "failed": "失败",
            "partial": "部分失败", "unavailable": "不可用",
        },
        "reason": {
            "timeout": "超时", "rate_limited": "被限流", "auth": "认证失败",
            "no_key": "缺少密钥", "bad_response": "响应无效", "unreachable": "无法连接",
            "cancelled": "已取消", "forbidden": "无权访问", "not_configured": "未配置",
            "not_requested": "未请求", "not_understood": "未理解", "error": "出错", "none": "无",
        },
        "kind": {
            "loading": "开始", "plan": "计划", "leg": "来源", "items": "结果",
            "found": "找到", "partial": "部分", "failed": "失败", "none": "无结果",
            "references": "参考", "answer.delta": "回答", "citations": "引用", "page": "页面",
            "done": "完成", "error": "错误",
        },
        "source": {"user": "用户", "hook": "钩子", "auto": "自动"},
        # Table headers the CLI prints (search reports, kb list/docs, logs list).
        "column": {
            "leg": "来源", "backend": "后端", "stage": "阶段", "status": "状态",
            "reason": "原因", "hits": "命中", "ms": "毫秒", "detail": "详情",
            "name": "名称", "owner": "所有者", "store": "存储", "documents": "文档",
            "chunks": "分块", "embedder": "嵌入模型", "analyzer": "分析器",
            "description": "描述", "document_id": "文档编号", "title": "标题",
            "chars": "字符", "updated": "更新时间", "request": "请求", "time": "时间",
            "query": "查询", "references": "参考资料", "chat": "会话",
        },
    },
}  # fmt: skip

#: How a list of words is joined in a sentence, and a list of clauses in a line.
SEPARATORS = {"en": ", ", "zh": "、"}
CLAUSES = {"en": "; ", "zh": "；"}
#: Which label kind a template value is translated through (``legs``: a list of legs).
_LABELLED = {
    "leg": "leg", "legs": "leg", "status": "status", "reason": "reason", "source": "source",
}  # fmt: skip


def pick_locale(value: str | None) -> str:
    """A supported language for ``value``: ``zh``, ``zh-CN``, ``zh_TW`` or an HTTP
    ``Accept-Language`` list (``de,zh-CN;q=0.9``: the first supported one listed) → ``zh``;
    nothing supported → ``en``."""
    for part in (value or "").split(","):
        lang = part.split(";")[0].strip().replace("_", "-").split("-")[0].lower()
        if lang in MESSAGES:
            return lang
    return "en"


def label(locale: str, kind: str, value: str) -> str:
    """``value`` (a leg, a status, a reason or an event kind) in ``locale``'s words."""
    return LABELS[pick_locale(locale)].get(kind, {}).get(value, value)


def message(locale: str, key: str, **values: Any) -> str:
    """A localised message; unknown locales fall back to English (``zh-CN`` → ``zh``).

    ``leg``, ``status`` and ``reason`` values are translated (``legs`` and a ``reason``
    may be lists); ``n`` or ``hits`` picks the English plural.
    """
    lang = pick_locale(locale)
    count = values.get("n", values.get("hits"))
    shown = {k: _shown(lang, k, v) for k, v in values.items()}
    return MESSAGES[lang][key].format(s="" if count == 1 else "s", **shown)


def report_line(locale: str, report: Mapping[str, Any]) -> str:
    """One backend's report (a LegReport as JSON) as a progress line: ``web/brave: ok, 3
    hits`` or ``网页/brave：降级（超时）``."""
    backend = str(report["backend"])
    if report.get("stage"):  # a KB answers twice (lexical, vector): say which
        backend = f"{backend} {label(locale, 'stage', str(report['stage']))}"
    names = {"leg": report["leg"], "backend": backend, "status": report["status"]}
    if report["status"] == "ok":
        return message(locale, "report_ok", hits=report.get("hits", 0), **names)
    return message(locale, "report_other", reason=report.get("reason") or "error", **names)


def clauses(locale: str, parts: Iterable[str]) -> str:
    """``parts`` joined as clauses of one line (``a; b`` / ``a；b``)."""
    return CLAUSES[pick_locale(locale)].join(parts)


def _shown(lang: str, key: str, value: Any) -> Any:
    kind = _LABELLED.get(key)
    if kind is None:
        return value
    if isinstance(value, Sequence) and not isinstance(value, str):
        return SEPARATORS[lang].join(label(lang, kind, str(v)) for v in value)
    return label(lang, kind, str(value))


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
    attrs: dict[str, Any] = field(default_factory=dict)
    """What observers read: the request (``leg``, ``top_k``) and, once finished, its
    ``result`` (a SearchResult; SearchResults on the root) or ``error``."""

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


class Observer(Protocol):
    """Told of every node's start and finish (an exporter of spans, say).

    An observer that raises is logged and ignored: telemetry never fails a search.
    """

    def started(self, trace: Trace, node: Node) -> None: ...

    def finished(self, trace: Trace, node: Node) -> None: ...

    def scope(self, trace: Trace, node: Node) -> AbstractContextManager[None]:
        """Entered around the work of ``node`` (in its own task)."""
        ...


class Trace:
    """The trace of one search and its event stream."""

    def __init__(self, locale: str = "en") -> None:
        self.locale = locale
        self.root = Node("search")
        self.events: list[Event] = []
        self.observers: list[Observer] = []
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
        self._tell("started", node)

    def finish(self, node: Node, *, ok: bool, text: str) -> None:
        node.status, node.ended_at = ("completed" if ok else "failed"), time.time()
        node.log(text)
        self._tell("finished", node)

    @contextmanager
    def scope(self, node: Node) -> Iterator[None]:
        """The observers' context around ``node``'s work (its span made current)."""
        with ExitStack() as stack:
            for obs in self.observers:
                try:
                    stack.enter_context(obs.scope(self, node))
                except Exception:  # telemetry never fails a search
                    log.warning("trace observer %r failed", obs, exc_info=True)
            yield

    def _tell(self, what: Literal["started", "finished"], node: Node) -> None:
        for obs in self.observers:
            try:
                getattr(obs, what)(self, node)
            except Exception:  # telemetry never fails a search
                log.warning("trace observer %r failed", obs, exc_info=True)
