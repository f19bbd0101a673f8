"""The ``ask`` tool: arguments, description, schemas, rendering and progress.

The answer comes as text a model can pass on (the answer with its [ref_NNN] ids, then the
sources it cites and every backend's status); the citation check, the references and the
reports come as structured content.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any

from unifind.mcp_server.args import (
    LEGS,
    ArgumentError,
    _validated,
    integer,
    known,
    sources,
    strings,
)
from unifind.mcp_server.render import _report_data, _report_line, _where, clip
from unifind.ops import AskInput, AskOutput, OpEvent
from unifind.trace import clauses, message, report_line
from unifind.types import Item

ASK_ARGS = ("message", "context", "urls", "sources", "collections", "request_id", "answer",
            "assistant", "max_references")  # fmt: skip
_ALIASES = {"question": "message", "query": "message", "q": "message", "limit": "max_references"}

ASK = """\
Answer a question from the team's knowledge base (kb), the public web (web) and databases \
(db): unifind decides what to search (or searches the sources you name), then writes an \
answer citing its references as [ref_001], and checks every citation (unknown ids and \
cited sentences its source does not support are listed). Without a configured LLM the \
answer is extractive: the best sentences of the references, cited. Use `search` instead \
when you want the raw results to write the answer yourself."""

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "The question or request to answer."},
        "context": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Texts the user attached (a pasted document, an email): searched "
            "first and cited like any reference.",
        },
        "urls": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Pages the user attached: fetched, searched first and cited.",
        },
        "sources": {
            "type": "array",
            "items": {"type": "string", "enum": list(LEGS)},
            "description": 'Search exactly these: "kb", "web", "db" (default: chosen from the '
            'message). Also accepts per-source options: {"kb": {"collections": ["docs"]}}.',
        },
        "collections": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Knowledge-base collections to search. Implies kb.",
        },
        "request_id": {
            "type": "string",
            "description": "Continue the citation ids of an earlier search (its request_id).",
        },
        "answer": {
            "type": "string",
            "description": 'Who writes the answer: "builtin" (the configured LLM, else '
            'extractive), "none" (extractive) or "agent:<profile>".',
        },
        "assistant": {
            "type": "string",
            "description": "A configured assistant whose ask settings apply (unifind.yaml "
            "assistants:).",
        },
        "max_references": {
            "type": "integer",
            "minimum": 1,
            "maximum": 50,
            "default": 8,
            "description": "References the answer is written from.",
        },
    },
    "required": ["message"],
}

OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "request_id": {"type": "string"},
        "status": {"type": "string", "enum": ["ok", "partial", "unavailable"]},
        "answer": {"type": "string"},
        "llm": {"type": ["string", "null"]},
        "note": {"type": ["string", "null"]},
        "references": {"type": "array", "items": {"type": "object"}},
        "citations": {
            "type": "object",
            "description": (
                "valid, unknown, omitted, unsupported; verdicts: each (sentence, cited id) "
                "supported, contradicted, not_supported or unknown_id, and each uncited_claim, "
                "with the source sentence that decided it."
            ),
        },
        "sources": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["request_id", "status", "answer", "citations", "sources"],
}


def ask_input(args: Mapping[str, Any] | None) -> AskInput:
    """The ask operation's input from tool arguments (lenient as the search tool's)."""
    raw = {_ALIASES.get(k, k) if _ALIASES.get(k) in ASK_ARGS else k: v
           for k, v in (args or {}).items()}  # fmt: skip
    a = known(raw, ASK_ARGS)
    message = a.get("message")
    if not isinstance(message, str) or not message.strip():
        raise ArgumentError("message", "say what to answer", "a non-empty string")
    data: dict[str, Any] = {"message": message}
    legs = sources(a["sources"]) if "sources" in a else {}
    if "collections" in a:
        legs.setdefault("kb", {})["collections"] = strings("collections", a["collections"])
    if legs:
        data["sources"] = legs
    if "context" in a:
        texts = [a["context"]] if isinstance(a["context"], str) else a["context"]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ArgumentError("context", f"expected texts, got {a['context']!r}", '["text"]')
        data["parts"] = [{"text": t, "title": f"attached {i}"}
                         for i, t in enumerate(texts, 1) if t.strip()]  # fmt: skip
    if "urls" in a:
        urls = strings("urls", a["urls"])
        data["parts"] = [*data.get("parts", []), *({"url": u} for u in urls)]
    if "answer" in a:
        data["uses"] = {"answer": str(a["answer"])}
    if "assistant" in a:
        data["assistant"] = str(a["assistant"])
    if "request_id" in a:
        data["request_id"] = str(a["request_id"])
    if "max_references" in a:
        data["limit"] = integer("max_references", a["max_references"], 1, 50)
    return _validated(AskInput, data)  # type: ignore[type-var]


def ask_result(out: AskOutput) -> tuple[str, dict[str, Any]]:
    """The answer, the sources it was written from, the check, and every backend's status."""
    refs = [Item.model_validate(r) for r in out.references]
    lines = [out.text.strip() or "(no answer)", ""]
    if refs:
        lines.append("Sources:")
        lines += [f"[{r.citation_id}] {r.title or '(untitled)'} — {_where(r)}" for r in refs]
        lines.append("")
    c = out.citations
    check = f"Citations: {len(c.valid)} valid"
    if c.unknown:
        check += f"; unknown ids (no such reference): {', '.join(c.unknown)}"
    if c.unsupported:
        check += f"; {len(c.unsupported)} cited sentence(s) not supported by their source"
    if c.note:  # sentences the deadline left unchecked: neither passed nor failed
        check += f"; {c.note}"
    lines.append(check)
    lines += _verdict_lines(c.verdicts)
    if out.note:
        lines.append(f"Note: {out.note}")
    lines += [f"Note: {n}" for n in out.plan.notes]
    if out.reports:
        lines += [f"Searched ({out.status.value}):", *(_report_line(r) for r in out.reports)]
    else:
        lines.append(f"Nothing was searched: {out.plan.why}")
    data = {
        "request_id": out.request_id,
        "status": out.status.value,
        "answer": out.text,
        "llm": out.llm,
        "note": out.note,
        "references": [_ref(r) for r in refs],
        "citations": c.model_dump(mode="json"),
        "sources": [_report_data(r) for r in out.reports],
    }
    return "\n".join(lines) + "\n", data


def _verdict_lines(verdicts: Sequence[Any]) -> list[str]:
    """Each flagged (sentence, id) pair (issue #20) and the source sentence that decided it."""
    lines = []
    for v in verdicts:
        if v.verdict == "supported":
            continue
        cite = f" [{v.citation}]" if v.citation else ""
        lines.append(f"- {v.verdict.replace('_', ' ')}{cite}: {v.sentence} ({v.reason})")
        if v.evidence is not None:
            lines.append(f"  source [{v.evidence.citation_id}]: {v.evidence.sentence}")
    return lines


def _ref(item: Item) -> dict[str, Any]:
    data = item.model_dump(mode="json", exclude_none=True, include={
        "citation_id", "type", "title", "url", "collection", "document_id", "model", "record_id",
        "source"})  # fmt: skip
    data["content"] = clip(item.content, 600)
    return data


async def run_reporting(
    ctx: Any, events: AsyncGenerator[OpEvent, None], locale: str = "en"
) -> AskOutput:
    """Drain an ask's events, reporting progress at each step in ``locale``'s words (a
    no-op without a progress token)."""
    steps, writing = 3, False
    legs: list[str] = []
    async for ev in events:
        if ev.kind == "plan":
            planned = ev.data.get("legs") or []
            what = message(locale, "searching", legs=planned) if planned else None
            await ctx.session.report_progress(0, steps, what or message(locale, "ask_nothing"))
        elif ev.kind == "leg":
            legs.append(report_line(locale, ev.data))
        elif ev.kind == "references":
            n = len(ev.data["references"])
            key = "ask_references_from" if legs else "ask_references"
            msg = message(locale, key, n=n, details=clauses(locale, legs))
            await ctx.session.report_progress(1, steps, msg)
        elif ev.kind == "answer.delta" and not writing:
            writing = True
            await ctx.session.report_progress(2, steps, message(locale, "ask_answering"))
        elif ev.kind == "citations":
            await ctx.session.report_progress(3, steps, message(locale, "ask_citations"))
        elif ev.kind == "done":
            out: AskOutput = ev.data["output"]
            return out
    raise RuntimeError("the ask ended without its done event")
