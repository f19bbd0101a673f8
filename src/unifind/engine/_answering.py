"""The answer half of ``ask``: references → streamed LLM answer (or an extractive one) →
the citation check (:mod:`unifind.agent.support`, its models from the KB's cache).

With ``samples`` > 1 the LLM is asked that many times at once and the answer the check
ranks best is kept (:mod:`unifind.engine._sampling`); it is streamed as one delta after the
check, since which answer is kept is known only once all are in.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import asdict
from typing import TYPE_CHECKING

from unifind.agent._support_features import FeatureExtractor
from unifind.agent._support_model import MODES, SupportMode
from unifind.agent.answer import MAX_ANSWER_CHARS, NO_LLM, answer_profile, messages
from unifind.agent.citestream import CitationStream
from unifind.agent.deadline import until
from unifind.agent.judge import review
from unifind.agent.models import (
    Answer,
    AskEvent,
    CitationReport,
    Plan,
    SampleCheck,
    SentenceCheck,
    Unsupported,
    Verdict,
)
from unifind.agent.support import (
    SentenceSupport,
    SupportScorer,
    load_scorer,
    support_until,
    uncited_claims,
)
from unifind.cite import References, check_citations
from unifind.engine._extractive import extractive_answer
from unifind.engine._sampling import MAX_SAMPLES, best_of
from unifind.engine._util import ms
from unifind.engine.otel import traced_llm_deltas as llm_deltas  # a chat span when OTel is on
from unifind.errors import InputError, SourceError
from unifind.types import Principal, SearchResult

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
    samples: int = 1,
    support_mode: str | None = None,
    max_chars: int = MAX_ANSWER_CHARS,
    principal: Principal | None = None,
    judge: str | None = None,
) -> AsyncIterator[AskEvent]:
    """``references`` → ``answer.delta``… → ``citations`` → ``done``; the answer stops at
    ``max_chars`` (``ask.max_answer_chars``); ``judge`` (``ask.judge``) reviews the
    citations the rules leave open (:mod:`unifind.agent.judge`)."""
    refs = searcher.references(results, request_id=rid, top_n=top_n, principal=principal,
                               citation_format="[{id}]")  # fmt: skip
    shown = [r.model_dump(mode="json", exclude_none=True) for r in refs.references]
    yield AskEvent("references", {"references": shown, "omitted": list(refs.omitted)})
    # Loading a model reads ~35 MB once per KB: never on the event loop (DESIGN §2), and
    # while the LLM is already answering, so the first token does not wait for it.
    loading = asyncio.ensure_future(asyncio.to_thread(load_scorer, support_mode, searcher.kb))
    try:
        async for ev in _answer(searcher, message, plan, results, rid, refs, shown, loading,
                                answer_uses=answer_uses, t0=t0, deadline=deadline,
                                samples=samples, max_chars=max_chars,
                                judge=judge):  # fmt: skip
            yield ev
    finally:
        loading.cancel()


async def _answer(
    searcher: Asking,
    message: str,
    plan: Plan,
    results: Sequence[SearchResult],
    rid: str,
    refs: References,
    shown: list[dict[str, object]],
    loading: asyncio.Future[SupportScorer],
    *,
    answer_uses: str | None,
    t0: float,
    deadline: float | None,
    samples: int,
    max_chars: int,
    judge: str | None = None,
) -> AsyncIterator[AskEvent]:
    name = answer_profile(searcher.settings, answer_uses)
    note: str | None = None
    parts: list[str] = []
    llm: str | None = None
    report: CitationReport | None = None
    checks: list[SampleCheck] = []
    if (name is not None and refs.references) or (name is not None and not plan.search):
        llm = f"agent:{name}"
        msgs = messages(message, refs)
        if samples > 1:
            scorer = await loading
            shared = scorer.extractors()  # the references' windows, embedded once
            best = await best_of(searcher.settings, name, msgs, samples, deadline,
                                 lambda text: check(text, refs, scorer, shared, deadline),
                                 max_chars=max_chars)  # fmt: skip
            note, checks, report = best.note, best.checks, best.report
            if best.text:
                parts.append(best.text)
                yield AskEvent("answer.delta", {"text": best.text})
        else:
            async for ev in _stream(searcher, name, msgs, deadline, parts, max_chars):
                if isinstance(ev, str):
                    note = ev
                else:
                    yield ev
    if not "".join(parts).strip():  # no LLM, or it failed or wrote nothing: quote the refs
        asked = None if name is None else (note or f"the LLM (agent:{name}) wrote nothing")
        lines = extractive_answer(refs, message, plan.keywords)
        note = _fallback_note(asked, bool(lines), plan, refs, llm is not None)
        parts, llm, report, checks = [], None, None, []  # a sampled LLM's empty best is gone
        if lines:
            parts.append("\n".join(lines))
            yield AskEvent("answer.delta", {"text": parts[0]})
    text = "".join(parts)
    if report is None or not text:
        scorer = await loading
        report = await asyncio.to_thread(check, text, refs, scorer, None, deadline)
    if text:
        report = await review(report, refs, searcher.settings, judge, deadline)
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
        samples=checks,
        took_ms=ms(t0) if t0 else 0.0,
    )
    yield AskEvent("done", {"output": out})


async def _stream(
    searcher: Asking,
    name: str,
    msgs: list[dict[str, str]],
    deadline: float | None,
    parts: list[str],
    max_chars: int,
) -> AsyncIterator[AskEvent | str]:
    """One LLM answer as ``answer.delta`` events (text into ``parts``); a str is the note
    saying why it stopped early."""
    llm = f"agent:{name}"
    stream = CitationStream()
    room = max_chars
    try:
        deltas = llm_deltas(searcher.settings, name, msgs)
        async with aclosing(until(deadline, deltas)) as capped:  # the ask's overall deadline
            async for delta in capped:
                text, _cited = stream.feed(delta[:room])
                room -= min(len(delta), room)
                if text:
                    parts.append(text)
                    yield AskEvent("answer.delta", {"text": text})
                if not room:  # closing the stream hangs up on the LLM: nothing more is read
                    yield cap_note(llm, max_chars)
                    break
    except TimeoutError:
        yield f"the ask's overall deadline cut the LLM ({llm}) mid-answer; the references stand"
    except SourceError as exc:
        yield f"the LLM ({llm}) failed: {exc.reason.value}: {exc}; the references stand"
    tail, _ = stream.flush()
    if tail:
        parts.append(tail)
        yield AskEvent("answer.delta", {"text": tail})


def _fallback_note(
    failed: str | None, answered: bool, plan: Plan, refs: References, asked: bool
) -> str:
    """Why the answer is extractive, or why there is none (an empty text: issue #20, the
    CLI then exits 1). ``failed``: the LLM's failure (None: no LLM); ``asked``: the LLM ran."""
    if failed is None:
        head = NO_LLM.removesuffix(": extractive answer.")
    elif asked:
        head = failed
    else:
        head = f"{failed.removesuffix(' wrote nothing')} was not asked (no references)"
    if answered:
        return NO_LLM if failed is None else f"{head}; extractive answer from the references"
    if not plan.search:
        why = "no search was needed"
    elif not refs.references:
        why = "the searches gave no references"
    else:
        why = "no reference holds a sentence to quote"
    return f"{head}; {why}: no answer"


def cap_note(llm: str, max_chars: int) -> str:
    """The answer's note when it reached ``ask.max_answer_chars``."""
    return (f"the LLM's ({llm}) answer reached ask.max_answer_chars ({max_chars:,} "
            "characters) and was cut there; the references stand")  # fmt: skip


def check_answer_options(samples: int, support_mode: str | None) -> None:
    """Bad ``samples`` or ``support`` values are InputError before anything runs."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise InputError(f"samples must be 1 to {MAX_SAMPLES}, got {samples}")
    if support_mode is not None and support_mode not in MODES:
        raise InputError(f"support mode {support_mode!r}: write one of {', '.join(MODES)}")


def check(
    text: str,
    refs: References,
    scorer: SupportScorer | None = None,
    extractors: dict[SupportMode, FeatureExtractor] | None = None,
    deadline: float | None = None,
) -> CitationReport:
    """Every cited id exists (lists, fullwidth brackets included) and every cited sentence
    is supported by what it cites (``scorer``: the lexical model when None). Support is
    scored until ``deadline``; the sentences left are counted as unchecked, never passed."""
    scorer = scorer or SupportScorer()
    found = check_citations(text, refs)  # one regex pass: always whole
    rows, unchecked = support_until(deadline, text, refs, scorer, extractors=extractors)
    verdicts = [v for r in rows for v in r.verdicts] + uncited_claims(text)
    note = None
    if unchecked:
        note = (f"the ask's deadline passed after {len(rows)} cited sentences: {unchecked} "
                "more were not checked for support")  # fmt: skip
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
        threshold=scorer.threshold,
        support=scorer.mode,
        support_note=scorer.note,
        sentences=[_sentence_check(r) for r in rows],
        unchecked_sentences=unchecked,
        note=note,
        verdicts=[Verdict.model_validate(asdict(v)) for v in verdicts],
    )


def _sentence_check(r: SentenceSupport) -> SentenceCheck:
    return SentenceCheck(
        sentence=r.sentence,
        cites=list(r.cites),
        unknown=list(r.unknown),
        probability=r.score,
        supported=r.supported,
        mode=r.mode,
    )
