"""Operation outputs as a tool result: compact text for the model plus structured content.

Both stay within the caller's size budget: snippets are shortened first (down to none),
so a small budget still shows the top results' ids, titles and where they are; only then
are items cut from the end, whole. Every cut is announced (never silently). Every backend's
report is always kept: an empty or short list must say why.
"""

from __future__ import annotations

import json
import re
from typing import Any

from unifind import Item, LegReport
from unifind.ops import FetchOutput, SearchOutput, SourcesOutput

#: A result's snippet is cut here so one long chunk can't crowd out the rest.
SNIPPET_CHARS = 1_200
#: Shorter snippet lengths tried, in turn, when the budget can't show the top results.
_SNIPPET_STEPS = (SNIPPET_CHARS, 600, 300, 150, 60, 0)
#: Results a budget should show before their snippets are kept longer (#18: a small
#: max_chars used to show no result at all, every item cut whole).
TOP_RESULTS = 5
#: Room kept for what announces a cut: two lines of text, one structured field.
_TEXT_RESERVE, _DATA_RESERVE = 300, 170
#: Seconds to suggest before retrying a rate-limited backend whose wait is unknown; the
#: web leg suspends a provider this long after an HTTP 429 without Retry-After.
DEFAULT_RETRY_S = 60
_SECONDS = re.compile(r"(?:for|after|in)\s+(\d+(?:\.\d+)?)\s*s\b", re.IGNORECASE)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut announced."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()} … [{len(text) - limit:,} more chars]"


def retry_after_s(report: LegReport) -> int | None:
    """Seconds to wait before retrying a rate-limited backend; None when not rate-limited."""
    if report.reason is None or report.reason.value != "rate_limited":
        return None
    found = _SECONDS.search(report.error or "")
    return max(1, round(float(found.group(1)))) if found else DEFAULT_RETRY_S


def _where(item: Item) -> str:
    if item.url:
        return item.url
    if item.type == "kb":
        return (
            f"{item.collection}: {item.document_id}" if item.document_id else str(item.collection)
        )
    if item.type == "db":
        return f"{item.model}#{item.record_id}" if item.record_id is not None else str(item.model)
    return item.type


def _report_line(r: LegReport) -> str:
    name = f"{r.leg}/{r.backend}" + (f" ({r.stage})" if r.stage else "")
    if r.status.value == "ok":
        hits = f"{r.hits} hit" + ("" if r.hits == 1 else "s")
        line = f"- {name}: ok, {hits}, {_ms(r.took_ms)}"
        return line + (f" — {r.note}" if r.note else "")
    why = r.error or r.note or ""
    line = f"- {name}: {r.status.value} ({r.reason.value if r.reason else '?'})"
    line += f": {why}" if why else ""
    wait = retry_after_s(r)
    if wait is not None:
        line += f" — rate limited: retry in about {wait} s, or search other sources meanwhile"
    return line


def _ms(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:,.0f} ms"


def _report_data(r: LegReport) -> dict[str, Any]:
    data: dict[str, Any] = r.model_dump(mode="json", exclude_none=True)
    wait = retry_after_s(r)
    if wait is not None:
        data["retry_after_s"] = wait
    return data


def _item_text(item: Item, cap: int = SNIPPET_CHARS) -> str:
    head = f"[{item.citation_id}] {item.title or '(untitled)'} — {_where(item)}"
    body = clip(item.content, cap) if item.content and cap else ""
    return f"{head}\n{body}\n" if body else f"{head}\n"


def _item_data(item: Item, cap: int = SNIPPET_CHARS) -> dict[str, Any]:
    data = item.model_dump(
        mode="json",
        exclude_none=True,
        include={
            "citation_id", "type", "title", "url", "collection", "document_id", "model",
            "record_id", "score", "source", "data",
        },
    )  # fmt: skip
    if cap:  # at the last step (no snippets) only what names and locates the result stays
        data["content"] = clip(item.content, cap)
        data["matched"] = [m.model_dump(mode="json") for m in item.matched]
    return data


def search_result(out: SearchOutput, query: str, budget: int) -> tuple[str, dict[str, Any]]:
    """The text and structured content of a search, each within ``budget`` characters."""
    reports = [_report_data(r) for r in out.reports]
    footer = "Sources:\n" + "\n".join(_report_line(r) for r in out.reports) + "\n"
    notes = "".join(f"Note: {n}\n" for n in out.notes)
    found = len(out.items)
    head = f'Search "{clip(query, 200)}": {found} result' + ("" if found == 1 else "s")
    head += f" ({out.status.value}; request_id={out.request_id})\n\n"
    if not found:
        head += "No results.\n"
        if out.status.value == "unavailable":
            head += "No source could answer: see why under Sources.\n"
        head += "\n"
    tail = notes + footer
    if found:
        tail += (
            f"\nCite results by id, e.g. [{out.items[0].citation_id}]. To search again with "
            f"ids that continue these, pass request_id={out.request_id}.\n"
        )
    data: dict[str, Any] = {
        "request_id": out.request_id,
        "status": out.status.value,
        "mode": out.mode,
        "took_ms": out.took_ms,
        "sources": reports,
        "notes": list(out.notes),
        "items": [],
    }
    body, shown, cap = _fit(out.items, len(head) + len(tail), data, budget)
    cut: dict[str, Any] = {}
    if cap < SNIPPET_CHARS and any(len(i.content) > cap for i in out.items[:shown]):
        cut["snippet_chars"] = cap
        body += (
            f"… [trimmed: result text shortened to {cap} characters each"
            if cap
            else "… [trimmed: result text left out"
        ) + " to stay within max_chars; raise max_chars, or fetch a result's url]\n"
    if shown < found:
        left = out.items[shown:]
        span = (
            f"{left[0].citation_id}–{left[-1].citation_id}"
            if len(left) > 1
            else left[0].citation_id
        )
        body += (
            f"… [truncated: {len(left)} more result{'s' if len(left) > 1 else ''} ({span}) "
            "not shown to stay within max_chars; raise max_chars or lower max_results]\n"
        )
        cut.update(omitted=len(left), first_omitted=left[0].citation_id,
                   last_omitted=left[-1].citation_id)  # fmt: skip
    if cut:
        data["truncated"] = {**cut, "max_chars": budget}
    return head + body + tail, data


def _fit(items: list[Item], fixed: int, data: dict[str, Any], budget: int) -> tuple[str, int, int]:
    """Items within ``budget`` (text and structured content both): the longest snippets at
    which the top results fit, then whole items from the end left out. Returns the text,
    how many items it shows, and the snippet length used."""
    want = min(len(items), TOP_RESULTS)
    size = len(json.dumps(data, ensure_ascii=False))
    for cap in _SNIPPET_STEPS:
        body, blobs = _take(items, cap, fixed, size, budget)
        if len(blobs) >= want:
            break
    data["items"] = blobs
    return body, len(blobs), cap


def _take(
    items: list[Item], cap: int, fixed: int, size: int, budget: int
) -> tuple[str, list[dict[str, Any]]]:
    """Whole items, snippets cut at ``cap``, while both forms stay within ``budget``."""
    body, blobs = "", []
    for item in items:
        piece = _item_text(item, cap) + "\n"
        blob = _item_data(item, cap)
        grown = size + len(json.dumps(blob, ensure_ascii=False)) + 2
        if fixed + len(body) + len(piece) + _TEXT_RESERVE > budget:
            break
        if grown + _DATA_RESERVE > budget:
            break
        body, size = body + piece, grown
        blobs.append(blob)
    return body, blobs


def fetch_result(out: FetchOutput) -> tuple[str, dict[str, Any], bool]:
    """The text, structured content and error flag of a fetched page."""
    data: dict[str, Any] = out.model_dump(mode="json", exclude_none=True, exclude={"attempts"})
    data["report"] = _report_data(out.report)
    if out.status.value != "ok":
        lines = [f"Could not fetch {out.url}:", _report_line(out.report)]
        lines += [_report_line(a) for a in out.attempts if a != out.report]
        return "\n".join(lines) + "\n", data, True
    end = out.start + len(out.text)
    head = f"# {out.title}\n" if out.title else ""
    head += f"URL: {out.final_url or out.url}\n"
    head += f"Characters {out.start:,}–{end:,} of {out.total_chars:,} ({out.report.backend})\n\n"
    text = head + out.text
    if out.next_start is not None:
        left = out.total_chars - end
        text += (
            f"\n\n… [truncated: {left:,} more chars; call fetch with "
            f"start={out.next_start} for the next page]"
        )
    return text + "\n", data, False


def fetch_results(outs: list[FetchOutput]) -> tuple[str, dict[str, Any], bool]:
    """Several fetched pages: their texts one after the other, each page's structured
    content under ``pages``; an error only when no page could be read."""
    rendered = [fetch_result(out) for out in outs]
    failed = sum(r[2] for r in rendered)
    status = "unavailable" if failed == len(outs) else "partial" if failed else "ok"
    text = f"{len(outs) - failed} of {len(outs)} pages read.\n\n"
    text += "\n---\n\n".join(r[0] for r in rendered)
    return text, {"status": status, "pages": [r[1] for r in rendered]}, failed == len(outs)


_PROVIDER_KINDS = (
    ("search", 'Web search providers (sources=["web"])'),
    ("fetch", "Page fetchers (the fetch tool)"),
)


def sources_result(out: SourcesOutput) -> tuple[str, dict[str, Any]]:
    """What can be searched, as text and structured content."""
    lines = ['Knowledge-base collections (search with sources=["kb"], collections=[...]):']
    for c in out.collections:
        owner = f"tenant {c.owner}" if c.owner else "shared"
        emb = f"embedder {c.embedder}" if c.embedder else "lexical only"
        desc = f" — {c.description}" if c.description else ""
        lines.append(
            f"- {c.name}{desc} ({c.documents} documents, {c.chunks} chunks; {emb}; {owner})"
        )
    if not out.collections:
        lines.append("- none visible to you")
    lines.append(
        '\nDatabase models (search with sources=["db"], models=[...]; or write the query '
        "yourself as dsl, whose JSON Schema is dsl_schema in the structured result):"
    )
    for m in out.models:
        cols = ", ".join(m.columns)
        desc = f" — {m.description}" if m.description else ""
        rels = (m.schema_ or {}).get("relations") or {}
        joins = "; relations: " + ", ".join(f"{n} → {r['model']}" for n, r in rels.items())
        lines.append(f"- {m.name}{desc} (columns: {cols}{joins if rels else ''})")
    if not out.models:
        lines.append("- none (no database configured)")
    for kind, title in (
        ("search", 'Web search providers (sources=["web"])'),
        ("fetch", "Page fetchers (the fetch tool)"),
    ):
        lines.append(f"\n{title}:")
        for p in (p for p in out.providers if p.kind == kind):
            state = "usable" if p.usable else "not usable"
            chosen = " ← used by default" if p.chosen else ""
            lines.append(f"- {p.name}: {state} ({p.why}){chosen}")
    lines += [f"\nNote: {n}" for n in out.notes]
    return "\n".join(lines) + "\n", out.model_dump(mode="json")
