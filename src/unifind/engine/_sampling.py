"""Sample N answers, keep the one the citation check ranks best (issue #10).

The LLM is asked ``samples`` times at once (N requests rather than OpenAI's ``n``: Ollama,
llama.cpp and several vLLM versions ignore ``n`` or refuse it with ``stream``), at the
profile's ``temperature`` or :data:`SAMPLE_TEMPERATURE` (at 0 the N answers would be one).
Ranking: an answer that cites nothing comes last, then fewest unknown (or omitted) citation
tokens, then fewest unsupported cited sentences, then the highest mean support
probability; ties keep the earliest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from unifind.agent.answer import MAX_ANSWER_CHARS, llm_deltas
from unifind.agent.deadline import until
from unifind.agent.models import CitationReport, SampleCheck
from unifind.engine.otel import chat_deltas
from unifind.errors import SourceError

SAMPLE_TEMPERATURE = 0.7
"""Temperature of sampled answers when the profile sets none."""
MAX_SAMPLES = 8


@dataclass(frozen=True)
class Best:
    """The kept answer (empty when every sample failed), its check and every sample's."""

    text: str
    report: CitationReport | None
    checks: list[SampleCheck]
    note: str | None


async def best_of(
    settings: Any,
    name: str,
    msgs: Sequence[dict[str, str]],
    samples: int,
    deadline: float | None,
    check: Callable[[str], CitationReport],
    *,
    max_chars: int = MAX_ANSWER_CHARS,
) -> Best:
    """``samples`` answers of profile ``name``, checked one by one off the event loop; each
    is read up to ``max_chars`` (a longer one is cut there and the note says so)."""
    from unifind.rerankers.agent import profile

    temperature = float(profile(settings, name).get("temperature", SAMPLE_TEMPERATURE))
    got = await asyncio.gather(
        *(_one(settings, name, msgs, temperature, deadline, max_chars) for _ in range(samples))
    )
    reports = [await asyncio.to_thread(check, text) if text else None for text, _ in got]
    ok = [i for i, rep in enumerate(reports) if rep is not None]
    if not ok:
        why = next((err for _, err in got if err), "empty answers")
        note = f"all {samples} answers of the LLM (agent:{name}) failed: {why}; "
        checks = [_failed(err) for _, err in got]
        return Best("", None, checks, note + "the references stand")
    kept = min(ok, key=lambda i: rank(reports[i]))  # type: ignore[arg-type]
    checks = [
        _summary(rep, len(text), i == kept) if rep is not None else _failed(err)
        for i, ((text, err), rep) in enumerate(zip(got, reports, strict=True))
    ]
    cut = len(got[kept][0]) >= max_chars
    note = f"the kept answer reached ask.max_answer_chars ({max_chars:,} characters) and was cut"
    return Best(
        got[kept][0], reports[kept], checks, note + "; the references stand" if cut else None
    )


def rank(report: CitationReport) -> tuple[bool, int, int, float]:
    """Sort key of a sampled answer's check: lower is better."""
    unknown = len(report.unknown) + len(report.omitted)
    return (report.checked_sentences == 0, unknown, len(report.unsupported), -_mean(report))


def _mean(report: CitationReport) -> float:
    probs = [s.probability for s in report.sentences]
    return sum(probs) / len(probs) if probs else 0.0


def _summary(report: CitationReport, chars: int, kept: bool) -> SampleCheck:
    return SampleCheck(
        unknown=len(report.unknown) + len(report.omitted),
        unsupported=len(report.unsupported),
        mean_probability=round(_mean(report), 3),
        chars=chars,
        kept=kept,
    )


def _failed(err: str | None) -> SampleCheck:
    return SampleCheck(unknown=0, unsupported=0, mean_probability=0.0, chars=0, kept=False,
                       error=err or "empty answer")  # fmt: skip


async def _one(
    settings: Any,
    name: str,
    msgs: Sequence[dict[str, str]],
    temperature: float,
    deadline: float | None,
    max_chars: int,
) -> tuple[str, str | None]:
    """One whole answer (its first ``max_chars``), or ``("", why)``; an answer the deadline
    cut is not kept."""
    deltas = chat_deltas(settings, name, llm_deltas(settings, name, msgs, temperature=temperature))
    parts: list[str] = []
    room = max_chars
    try:
        async with aclosing(until(deadline, deltas)) as stream:
            async for delta in stream:
                parts.append(delta[:room])
                room -= len(parts[-1])
                if not room:
                    break  # closing the stream hangs up: nothing more is read
        return "".join(parts), None
    except TimeoutError:
        return "", "the ask's overall deadline passed"
    except SourceError as exc:
        return "", f"{exc.reason.value}: {exc}"
