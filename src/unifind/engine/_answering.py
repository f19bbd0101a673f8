"""The answer half of ``ask``: references → streamed LLM answer (or an extractive one) →
the citation check."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from unifind.agent.answer import NO_LLM, answer_profile, messages
from unifind.agent.citestream import CitationStream
from unifind.agent.deadline import until
from unifind.agent.models import Answer, AskEvent, CitationReport, Plan, Unsupported
from unifind.agent.support import THRESHOLD, best_sentences, support
from unifind.cite import References, check_citations
from unifind.engine._util import ms
from unifind.engine.otel import traced_llm_deltas as llm_deltas  # a chat span when OTel is on
from unifind.errors import SourceError
from unifind.types import SearchResult

if TYPE_CHECKING:
    from unifind.engine.ask import Asking


async def answer_events(
    searcher: Asking,
    message: str,
    plan: Plan,
    results: Sequence[SearchResult],
    rid: str,
    *,
    answer_uses: str | None,
    top_n: int,
    t0: float,
    deadline: float | None = None,
) -> AsyncIterator[AskEvent]:
    """``references`` → ``answer.delta``… → ``citations`` → ``done``."""
    refs = searcher.references(results, request_id=rid, top_n=top_n, citation_format="[{id}]")
    shown = [r.model_dump(mode="json", exclude_none=True) for r in refs.references]
    yield AskEvent("references", {"references": shown, "omitted": list(refs.omitted)})
    name = answer_profile(searcher.settings, answer_uses)
    note: str | None = None
    parts: list[str] = []
    llm: str | None = None
    if (name is not None and refs.references) or (name is not None and not plan.search):
        llm = f"agent:{name}"
        stream = CitationStream()
        try:
            deltas = llm_deltas(searcher.settings, name, messages(message, refs))
            async for delta in until(deadline, deltas):  # the ask's overall deadline
                text, _cited = stream.feed(delta)
                if text:
                    parts.append(text)
                    yield AskEvent("answer.delta", {"text": text})
        except TimeoutError:
            note = f"the ask's overall deadline cut the LLM ({llm}) mid-answer; "
            note += "the references stand"
        except SourceError as exc:
            note = f"the LLM ({llm}) failed: {exc.reason.value}: {exc}; the references stand"
        tail, _ = stream.flush()
        if tail:
            parts.append(tail)
            yield AskEvent("answer.delta", {"text": tail})
    if name is None:
        note = NO_LLM
        lines = best_sentences(refs, plan.keywords or [message])
        text = "\n".join(lines) if lines else "The references hold nothing to answer from."
        parts.append(text)
        yield AskEvent("answer.delta", {"text": text})
    text = "".join(parts)
    report = check(text, refs)
    yield AskEvent("citations", report.model_dump(mode="json"))
    out = Answer(
        request_id=rid,
        plan=plan,
        text=text,
        llm=llm,
        note=note,
        references=shown,
        reports=[rep for res in results for rep in res.reports],
        citations=report,
        took_ms=ms(t0) if t0 else round((time.perf_counter()) * 0, 3),
    )
    yield AskEvent("done", {"output": out})


def check(text: str, refs: References) -> CitationReport:
    """Every cited id exists (lists, fullwidth brackets included) and every cited sentence
    is supported by what it cites."""
    found = check_citations(text, refs)
    rows = support(text, refs)
    return CitationReport(
        valid=list(found.valid),
        unknown=list(found.unknown),
        omitted=list(found.omitted),
        unsupported=[
            Unsupported(sentence=r.sentence, cites=list(r.cites), score=r.score)
            for r in rows
            if not r.supported
        ],
        checked_sentences=len(rows),
        threshold=THRESHOLD,
    )
