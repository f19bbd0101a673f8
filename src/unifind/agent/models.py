"""The values of the agent pipeline: a plan, attached parts, streamed events, the answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from unifind.types import LegReport, SearchRequest

MAX_MESSAGE_CHARS = 8_000
"""Longer messages are cut (and the plan says so): a question, not a document; attach
documents as parts."""


class _Model(BaseModel):
    # Built on first use, not at import (#18: start-up): a plan needs Part and Plan only.
    model_config = ConfigDict(defer_build=True)


class Part(_Model):
    """Data the user attached to the message: searched first, as ``source=user``."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    file: str | None = None
    """A local path (CLI and library; not accepted over HTTP)."""
    url: str | None = None
    """An http(s) page, fetched by the web leg's fetcher under its SSRF rules (private and
    loopback targets refused unless ``web.allow_private``)."""
    title: str = ""

    @property
    def kind(self) -> str:
        """``text``, ``file`` or ``url``: the one field set (checked by ``ask``)."""
        return "url" if self.url is not None else "file" if self.file is not None else "text"


class Plan(_Model):
    """What ``ask`` will do before it searches (``unifind ask --plan --json``)."""

    search: bool
    legs: list[str]
    keywords: list[str]
    requests: list[SearchRequest]
    why: str
    uses: dict[str, str] = Field(default_factory=dict)
    """Each stage's implementation (``intent``, ``keywords``, ``answer``); a hook may set a
    stage that has not run yet (``plan.uses["answer"] = "agent:big"``)."""
    layers: dict[str, str] = Field(default_factory=dict)
    """Each ask setting (``uses.intent``, ``top_n``, ...) → the layer that set it:
    ``default``, ``file:<path>``, ``env:<VAR>``, ``assistant:<name>``, ``hook:<fn>``,
    ``request`` (:mod:`unifind.agent.layers`)."""
    notes: list[str] = Field(default_factory=list)
    """Fallbacks, truncation, failed hooks, skipped legs: everything a reader should know."""

    def public(self) -> dict[str, Any]:
        """The documented JSON shape (requests without None fields)."""
        data = self.model_dump(mode="json", exclude_none=True)
        data["requests"] = [r.model_dump(mode="json", exclude_none=True) for r in self.requests]
        return data


class Unsupported(_Model):
    """A cited sentence whose sources do not carry it."""

    sentence: str
    cites: list[str]
    score: float
    """Calibrated probability that its best cited source supports it (below ``threshold``)."""


class SentenceCheck(_Model):
    """One cited sentence as the citation check scored it (:mod:`unifind.agent.support`)."""

    sentence: str
    cites: list[str]
    """Ids of shown references it cites."""
    unknown: list[str] = Field(default_factory=list)
    """Tokens it cites that match no shown reference."""
    probability: float
    """Calibrated probability (SciFact-fitted) that its best cited reference supports it."""
    supported: bool
    """``probability`` reached the threshold of the model that scored it."""
    mode: str
    """That model: ``lexical``, ``embed`` or ``cross`` (Chinese sentences: ``lexical``)."""


class VerdictEvidence(_Model):
    """The sentence of a cited reference that decided a verdict."""

    citation_id: str
    sentence: str
    """Its sentence (a table row, a list item) most aligned with the claim, or the one that
    contradicts it."""
    alignment: float
    """Share of the claim's content words in that sentence, 0-1."""


class Verdict(_Model):
    """One (sentence, cited id) pair, judged on its own (issue #20), or an uncited claim."""

    sentence: str
    citation: str | None = None
    """The id or index as cited; None for ``uncited_claim``."""
    verdict: Literal["supported", "contradicted", "not_supported", "unknown_id", "uncited_claim"]
    reason: str
    """Why, checkable by a reader ("number: '90 days' vs '30 days'")."""
    evidence: VerdictEvidence | None = None
    probability: float | None = None
    """The support model's probability for this id alone (None: not scored)."""
    rule: str | None = None
    """For ``contradicted``: ``number``, ``negation``, ``direction`` or ``entity``."""
    by: Literal["rules", "agent"] = "rules"
    """Who decided: the deterministic rules, or the ``ask.judge`` LLM (its ``reason``
    starts with ``agent:<profile>`` and keeps the rules' call)."""


class CitationReport(_Model):
    """The citation check of an answer."""

    valid: list[str] = Field(default_factory=list)
    unknown: list[str] = Field(default_factory=list)
    """Cited tokens matching no reference."""
    omitted: list[str] = Field(default_factory=list)
    unsupported: list[Unsupported] = Field(default_factory=list)
    checked_sentences: int = 0
    threshold: float = 0.5
    """The support model's threshold (probability)."""
    support: str = "lexical"
    """The support model that ran: ``lexical``, ``embed`` or ``cross`` (``support_note``
    says why when it is cheaper than the one asked for)."""
    support_note: str | None = None
    """Why a cheaper support model ran than the one asked for (a model not installed)."""
    sentences: list[SentenceCheck] = Field(default_factory=list)
    """Every cited sentence with its probability and flag."""
    unchecked_sentences: int = 0
    """Cited sentences the ask's deadline left unchecked: neither passed nor failed."""
    note: str | None = None
    """Why part of the answer was not checked (the deadline)."""
    verdicts: list[Verdict] = Field(default_factory=list)
    """Every (sentence, cited id) pair's verdict, in the answer's order, then each factual
    sentence that cites nothing (``uncited_claim``)."""
    judge: str | None = None
    """The ``ask.judge`` that reviewed the rules' open calls (None: rules only)."""
    judge_note: str | None = None
    """What the judge did: how many it judged, how many kept the rules' verdict and why."""

    def count(self, verdict: str) -> int:
        """How many pairs got ``verdict``."""
        return sum(v.verdict == verdict for v in self.verdicts)

    @property
    def ok(self) -> bool:
        flagged = any(v.verdict != "supported" for v in self.verdicts)
        return not (
            self.unknown or self.omitted or self.unsupported or self.unchecked_sentences or flagged
        )


class SampleCheck(_Model):
    """One of ``samples`` answers the LLM wrote, as the citation check ranked it."""

    unknown: int
    """Citation tokens matching no shown reference (invented, mistyped or omitted)."""
    unsupported: int
    """Cited sentences below the support threshold."""
    mean_probability: float
    """Mean support probability of its cited sentences (0 when it cites none)."""
    chars: int
    """Length of its text."""
    kept: bool
    """The answer returned: fewest unknown, then fewest unsupported, then best mean."""
    error: str | None = None
    """Why this sample has no answer (the LLM call failed)."""


class Answer(_Model):
    """The whole outcome of ``ask``."""

    request_id: str
    plan: Plan
    text: str
    llm: str | None
    """``<profile>/<model>`` that wrote it; None for an extractive answer."""
    note: str | None = None
    """Why the answer is extractive or incomplete (no LLM configured, LLM failed)."""
    references: list[dict[str, Any]] = Field(default_factory=list)
    reports: list[LegReport] = Field(default_factory=list)
    citations: CitationReport = Field(default_factory=CitationReport)
    samples: list[SampleCheck] = Field(default_factory=list)
    """With ``samples`` > 1: each sampled answer's check, in the order they were asked for."""
    took_ms: float = 0.0


AskEventKind = Literal["plan", "leg", "references", "answer.delta", "citations", "done", "error"]


@dataclass(frozen=True)
class AskEvent:
    """One streamed event of ``ask``; ``done`` carries the :class:`Answer` as ``output``."""

    kind: AskEventKind
    data: dict[str, Any] = field(default_factory=dict)
    message: str = ""
