"""What the support model reads about one (cited sentence, reference) pair.

* ``lexical``: the share of the sentence's content terms (the KB's ``auto`` analyser:
  stemmed English, jieba-segmented Chinese, stopwords out) found in the reference's title
  and content. Cheap, language-neutral, blind to paraphrase.
* ``embed``: the best cosine between the sentence and a *window* of the reference (each
  sentence, each pair of neighbouring sentences, the title). Evidence for a claim is
  usually a sentence or two of a source (SciFact's rationales are one to three sentences,
  Wadden et al., EMNLP 2020), so the whole reference's vector dilutes it.
* ``cross``: the best cross-encoder logit over the reference's windows the embedder ranks
  highest (:data:`CROSS_WINDOWS` of them: the cross-encoder reads every pair afresh, so
  its cost is bounded per sentence).

A reference's windows and their vectors are computed once per answer
(:class:`FeatureExtractor` keeps them) however many sentences cite it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from unifind.analysis import get_analyzer
from unifind.embed.base import Embedder, Reranker, Vectors, normalize

#: Windows of one reference that are embedded; a longer reference keeps its first ones
#: (KB chunks and search snippets are far shorter; this bounds a pasted whole page).
MAX_SENTENCES = 48
#: Windows (best by cosine) the cross-encoder reads per (sentence, reference).
CROSS_WINDOWS = 3

# Sentence ends (as in support.py's splitter, without the citation handling).
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[^a-z])|(?<=[。！？])|\n+")


@dataclass(frozen=True)
class Features:
    """One (sentence, reference) pair as the support model reads it."""

    lexical: float
    """Share of the sentence's content terms present in the reference, 0-1."""
    embed: float | None = None
    """Best cosine between the sentence and a window of the reference (None: not computed)."""
    cross: float | None = None
    """Best cross-encoder logit over the reference's top windows (None: not computed)."""


@dataclass
class _Reference:
    terms: frozenset[str]
    sentences: list[str]
    title: str
    vectors: Vectors | None = None

    @property
    def windows(self) -> list[str]:
        """Each sentence, each neighbouring pair (``a b``), then the title."""
        s = self.sentences
        pairs = [f"{a} {b}" for a, b in pairwise(s)]
        return [*s, *pairs, *([self.title] if self.title else [])]


@dataclass
class FeatureExtractor:
    """Features of sentences against references; remembers each reference's windows."""

    embedder: Embedder | None = None
    cross: Reranker | None = None
    _refs: dict[str, _Reference] = field(default_factory=dict)
    _claim: tuple[str, Vectors] | None = None
    """The last sentence's vector: a sentence citing several ids is embedded once."""

    def features(self, sentence: str, ref_text: str, *, title: str = "") -> Features:
        """``sentence`` against one reference (its ``title`` and text)."""
        ref = self._reference(ref_text, title)
        words = set(get_analyzer("auto").terms(sentence))
        lexical = len(words & ref.terms) / len(words) if words else 0.0
        if self.embedder is None or not (ref.sentences or ref.title):
            return Features(lexical)
        sims = self.cosines(sentence, ref_text, title=title)
        embed = float(sims.max())
        if self.cross is None:
            return Features(lexical, embed)
        wins = ref.windows
        top = [wins[i] for i in np.argsort(-sims, kind="stable")[:CROSS_WINDOWS]]
        return Features(lexical, embed, max(self.cross.score(sentence, top)))

    def cosines(self, sentence: str, ref_text: str, *, title: str = "") -> Vectors:
        """The sentence's cosine with each window of the reference (``windows`` order)."""
        assert self.embedder is not None
        ref = self._reference(ref_text, title)
        if ref.vectors is None:
            ref.vectors = _window_vectors(self.embedder.embed_documents, ref)
        if self._claim is None or self._claim[0] != sentence:
            self._claim = (sentence, self.embedder.embed_documents([sentence])[0])
        sims: Vectors = ref.vectors @ self._claim[1]
        return sims

    def sentence_cosines(
        self, sentence: str, ref_text: str, *, title: str = ""
    ) -> list[tuple[str, float]]:
        """Each sentence of the reference with its cosine to ``sentence`` (embedder only)."""
        ref = self._reference(ref_text, title)
        if self.embedder is None or not ref.sentences:
            return []
        sims = self.cosines(sentence, ref_text, title=title)
        return [(s, float(c)) for s, c in zip(ref.sentences, sims, strict=False)]

    def _reference(self, text: str, title: str) -> _Reference:
        key = f"{title}\x00{text}"
        if key not in self._refs:
            terms = frozenset(get_analyzer("auto").terms(f"{title} {text}"))
            sents = split_sentences(text)[:MAX_SENTENCES]
            self._refs[key] = _Reference(terms, sents, title.strip())
        return self._refs[key]


def split_sentences(text: str) -> list[str]:
    """The reference's sentences (its own line breaks end one too)."""
    return [s.strip() for s in _SPLIT.split(text) if s and s.strip()]


def _window_vectors(embed: Callable[[Sequence[str]], Vectors], ref: _Reference) -> Vectors:
    """Vectors of the reference's windows: sentences and the title embedded, each pair the
    normalised sum of its two sentences' vectors (a pair then costs no model call)."""
    n = len(ref.sentences)
    vecs = embed([*ref.sentences, *([ref.title] if ref.title else [])])
    sent_vecs, title_vecs = vecs[:n], vecs[n:]
    pair_vecs = normalize(sent_vecs[:-1] + sent_vecs[1:]) if n > 1 else sent_vecs[:0]
    return np.concatenate([sent_vecs, pair_vecs, title_vecs]).astype(np.float32)
