"""The optional ``agent:`` judge of citations the rules can't settle (issue #20, scope 2).

``ask.judge: agent:<profile>`` (any OpenAI-compatible model, ``settings.agents``) reads
each (sentence, cited id) pair the rules left ``not_supported``, or ``supported`` with a
probability less than :data:`LOW_MARGIN` above the threshold, together with the cited
reference, and says ``supported``, ``contradicted`` or ``not_supported``. Its verdict
replaces the rules' and is labelled ``by: "agent"`` with its reason and the quote it gave
(kept only when the reference holds it). What the rules called ``contradicted``,
``unknown_id`` or ``uncited_claim`` is never sent: rules that saw a conflict are not
overruled by a model that may miss it.

The judge runs within the ask's deadline (each call also within the profile's
``timeout_s``), at most :data:`MAX_JUDGED` pairs an answer, :data:`CONCURRENCY` at a time.
A call that fails, times out or answers something else leaves the rules' verdict, and the
report's ``judge_note`` says how many and why: the judge never makes a check fail.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence

from unifind.agent.models import CitationReport, Unsupported, Verdict, VerdictEvidence
from unifind.agent.support import resolver
from unifind.cite import References
from unifind.config import Settings
from unifind.types import Item

LOW_MARGIN = 0.1
"""A ``supported`` verdict whose probability is less than this above the threshold is
reviewed too (the rules' call is close)."""
MAX_JUDGED = 16
"""Pairs judged per answer; the rest keep the rules' verdict (the note says how many)."""
CONCURRENCY = 4
MAX_SOURCE_CHARS = 6_000
"""The part of a reference the judge reads (a KB chunk or snippet is far shorter)."""

PROMPT = """You check one citation of an answer. Read the SENTENCE and the SOURCE it cites,
and decide what the source says about the sentence's claim:
- "supported": the source states it (in any words);
- "contradicted": the source states something incompatible with it (another number,
  the opposite direction, a denial);
- "not_supported": the source does not say it either way.
Reply with ONE JSON object: {"verdict": "supported"|"contradicted"|"not_supported",
"quote": "<the source sentence that decides it, copied exactly, or empty>",
"why": "<one short sentence>"}."""

_KINDS = ("supported", "contradicted", "not_supported")


def wanted(v: Verdict, threshold: float) -> bool:
    """Is the rules' verdict one the judge reviews?"""
    if v.citation is None or v.by != "rules":
        return False
    if v.verdict == "not_supported":
        return True
    p = v.probability
    return v.verdict == "supported" and p is not None and p < threshold + LOW_MARGIN


async def review(
    report: CitationReport,
    refs: References,
    settings: Settings,
    uses: str | None,
    deadline: float | None,
) -> CitationReport:
    """``report`` with the judge's verdicts in place of the rules' where it answered."""
    if uses in (None, "none") or not report.verdicts:
        return report
    name = uses.partition(":")[2]
    by_token = resolver(refs)
    todo = [
        i
        for i, v in enumerate(report.verdicts)
        if wanted(v, report.threshold) and str(v.citation) in by_token
    ]
    if not todo:
        return report
    skipped = max(0, len(todo) - MAX_JUDGED)
    todo = todo[:MAX_JUDGED]
    left = None if deadline is None else deadline - time.perf_counter()
    verdicts = list(report.verdicts)
    failures: list[str] = []
    kept = 0
    if left is not None and left <= 0:
        failures, kept = ["the ask's deadline had passed"], len(todo)
    else:
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(i: int) -> tuple[int, Verdict | str]:
            async with gate:
                v = verdicts[i]
                try:
                    return i, await _judge(settings, name, v, by_token[str(v.citation)], left)
                except Exception as exc:  # the judge never fails the check: a note
                    return i, f"{type(exc).__name__}: {exc}"

        tasks = [asyncio.ensure_future(one(i)) for i in todo]
        done, pending = await asyncio.wait(tasks, timeout=left)
        for t in pending:
            t.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
            failures.append("cut by the ask's deadline")
            kept += len(pending)
        for t in done:
            i, got = t.result()
            if isinstance(got, Verdict):
                verdicts[i] = got
            else:
                failures.append(got)
                kept += 1
    return _rebuilt(report, verdicts, uses, (kept, failures), skipped)


async def _judge(
    settings: Settings, name: str, v: Verdict, ref: Item, left: float | None
) -> Verdict:
    # Imported here: the LLM client (httpx) is no cost of an ask that asks no judge.
    from unifind.agent.stages import _unfence
    from unifind.llm import chat
    from unifind.rerankers.agent import api_key, profile

    prof = profile(settings, name)
    timeout = float(prof.get("timeout_s", 30.0))
    if left is not None:
        timeout = max(0.1, min(timeout, left))
    source = f"{ref.title or ''}\n\n{ref.content or ''}".strip()[:MAX_SOURCE_CHARS]
    user = f"SENTENCE: {v.sentence}\n\nSOURCE [{ref.citation_id}]:\n{source}"
    text = await chat(
        [{"role": "system", "content": PROMPT}, {"role": "user", "content": user}],
        model=str(prof["model"]),
        base_url=str(prof["base_url"]),
        api_key=api_key(prof, name),
        response_format={"type": "json_object"},
        timeout=timeout,
    )
    data = json.loads(_unfence(text))
    if not isinstance(data, Mapping) or data.get("verdict") not in _KINDS:
        got = data.get("verdict") if isinstance(data, Mapping) else type(data).__name__
        raise ValueError(f"the judge answered verdict {got!r}, not one of {', '.join(_KINDS)}")
    why = str(data.get("why") or "").strip()[:300]
    quote = str(data.get("quote") or "").strip()
    evidence = v.evidence
    if quote and quote in source:  # a quote the reference doesn't hold is not evidence
        alignment = v.evidence.alignment if v.evidence else 0.0
        cid = str(ref.citation_id)
        evidence = VerdictEvidence(citation_id=cid, sentence=quote[:1000], alignment=alignment)
    was = f"rules: {v.verdict}, {v.reason}"
    return v.model_copy(
        update={
            "verdict": data["verdict"],
            "reason": f"agent:{name}: {why or data['verdict']} ({was})",
            "evidence": evidence,
            "rule": None,
            "by": "agent",
        }
    )


def _rebuilt(
    report: CitationReport,
    verdicts: Sequence[Verdict],
    uses: str,
    failed: tuple[int, Sequence[str]],
    skipped: int,
) -> CitationReport:
    """The report with ``verdicts``; each sentence's flag and the unsupported list follow."""
    flagged: dict[str, bool] = {}
    for v in verdicts:
        if v.citation is not None and v.verdict != "unknown_id":
            flagged[v.sentence] = flagged.get(v.sentence, False) or v.verdict != "supported"
    sentences = [
        s.model_copy(update={"supported": not flagged.get(s.sentence, not s.supported)})
        for s in report.sentences
    ]
    unsupported = [
        Unsupported(sentence=s.sentence, cites=list(s.cites), score=s.probability)
        for s in sentences
        if not s.supported
    ]
    judged = sum(v.by == "agent" for v in verdicts)
    parts = [f"{uses} judged {judged} citation(s) the rules left open"]
    kept, failures = failed
    if kept:
        parts.append(f"{kept} kept the rules' verdict: {_summary(failures)}")
    if skipped:
        parts.append(f"{skipped} more over the {MAX_JUDGED}-pair limit kept the rules' verdict")
    return report.model_copy(
        update={
            "verdicts": list(verdicts),
            "sentences": sentences,
            "unsupported": unsupported,
            "judge": uses,
            "judge_note": "; ".join(parts),
        }
    )


def _summary(failures: Sequence[str]) -> str:
    seen = list(dict.fromkeys(f[:200] for f in failures))
    return "; ".join(seen[:3]) + (f"; and {len(seen) - 3} more" if len(seen) > 3 else "")
