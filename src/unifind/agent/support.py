"""Is each cited sentence supported by the references it cites? (lexical overlap)

A sentence's support by one reference is the share of the sentence's content terms (the
KB's ``auto`` analyser: stemmed English, jieba-segmented Chinese, stopwords out) that
occur in the reference's title and content; its support is the best over the references
it cites. Below :data:`THRESHOLD` the citation is flagged ``unsupported``.

THRESHOLD = 0.5 is a first setting, not a calibrated one: a sentence that shares less
than half of its content words with every source it cites says something the source does
not. (The SciFact calibration the issue asks for is not done yet.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from unifind.analysis import get_analyzer
from unifind.cite import References, extract_citations

THRESHOLD = 0.5
# A sentence ends at . ! ? before a space or the end ("6.50 euros" is one sentence), at
# 。！？, or at a line break; wrapped lines are joined first (:func:`_unwrap`).
_SENTENCE = re.compile(r"(?:[^.!?。！？\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+(?=\s|$)|[。！？]+|\n|$)")
_BLOCK_START = re.compile(r"^\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|>)")
_ONLY_CITES = re.compile(r"^[\s\[\]【】［］^\w,;，；、\-–]*$")


@dataclass(frozen=True)
class SentenceSupport:
    """One cited sentence, the ids it cites and how well they support it."""

    sentence: str
    cites: tuple[str, ...]
    score: float
    """Best support over the cited references, 0-1."""
    supported: bool


def sentences(text: str) -> list[str]:
    """Sentences, each with the citations that trail it (``... window. [ref_001]``)."""
    out: list[str] = []
    for m in _SENTENCE.finditer(_unwrap(text)):
        piece = m.group(0).strip()
        if not piece:
            continue
        if out and _ONLY_CITES.match(piece) and extract_citations(piece):
            out[-1] = f"{out[-1]} {piece}"
        else:
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


def support(text: str, refs: References, *, threshold: float = THRESHOLD) -> list[SentenceSupport]:
    """The support of every sentence in ``text`` that cites a known reference."""
    analyzer = get_analyzer("auto")
    by_token = _resolver(refs)
    terms_of: dict[str, set[str]] = {}
    for ref in refs.references:
        body = f"{ref.title or ''} {ref.content or ''}"
        terms_of[str(ref.citation_id)] = set(analyzer.terms(body))
    out = []
    for sentence in sentences(text):
        ids = [by_token[t] for t in extract_citations(sentence) if t in by_token]
        if not ids:
            continue
        claim = _strip_citations(sentence)
        words = set(analyzer.terms(claim))
        if not words:
            continue
        score = max(len(words & terms_of[i]) / len(words) for i in ids)
        out.append(SentenceSupport(sentence, tuple(dict.fromkeys(ids)), round(score, 3),
                                   score >= threshold))  # fmt: skip
    return out


def _resolver(refs: References) -> dict[str, str]:
    """Citation token (id or 1-based index) → citation id of a shown reference."""
    out = {}
    for i, ref in enumerate(refs.references, start=1):
        out[str(ref.citation_id)] = out[str(i)] = str(ref.citation_id)
    return out


_CITE_GROUP = re.compile(r"[\[【［][^\]】］]{0,64}[\]】］]")


def _strip_citations(sentence: str) -> str:
    return _CITE_GROUP.sub(" ", sentence)


def best_sentences(refs: References, query_terms: Sequence[str], *, n: int = 3) -> list[str]:
    """An extractive answer: each top reference's sentence with the most query terms,
    cited (``sentence [ref_001]``)."""
    analyzer = get_analyzer("auto")
    want = set(analyzer.terms(" ".join(query_terms)))
    lines = []
    for ref in refs.references[:n]:
        # Headings and fragments ("# Refunds", "Refund") name a topic without saying
        # anything about it: a sentence of a few words or more answers better.
        cands = [_plain(c) for c in sentences(ref.content or ref.title or "")]
        cands = [c for c in cands if c and not _HEADING.match(c)] or cands
        if not any(cands):
            continue
        best = max(
            cands,
            key=lambda s: (len(want & set(analyzer.terms(s))), len(s) >= _MIN_CHARS, -len(s)),
        )
        lines.append(f"{best.rstrip()} [{ref.citation_id}]")
    return lines


_HEADING = re.compile(r"^\s*(#{1,6}\s|[-*]\s*$)")
#: An extractive sentence shorter than this is a fragment unless nothing longer matches.
_MIN_CHARS = 25


def _plain(sentence: str) -> str:
    """Markdown emphasis and list markers off a sentence quoted as an answer."""
    return re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", sentence.replace("**", "")).strip()
