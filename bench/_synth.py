"""Synthetic KB corpora and small measuring helpers for the speed benchmark.

Text follows Zipf's law (word frequency ∝ 1/rank^s, s ≈ 1 for English; Zipf 1949,
Piantadosi 2014 "Zipf's word frequency law in natural language"): the 33 most frequent
words are Lucene's English stopwords, as in real English where function words lead the
ranking, and the rest are pronounceable pseudo-words. Chunks hold 40-120 words and
documents ~5 chunks. Vectors are random unit vectors: embedding 200k chunks with
bge-small on one shared CPU core (~10-100 chunks/s) would take hours, and latency of an
exact or HNSW scan does not depend on what the vectors mean.

Terms are what ``unifind.analysis``'s ``auto`` analyser makes of the chunk text: each
vocabulary word is analysed once, and a chunk's term counts follow from its word ids
(``check_terms`` proves the shortcut equals analysing the text).
"""

from __future__ import annotations

import functools
import hashlib
import resource
import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from unifind.analysis import ENGLISH_STOPWORDS, get_analyzer
from unifind.embed.base import Embedder
from unifind.kb.base import ChunkIn, DocumentIn

Floats = npt.NDArray[np.float32]

DIM = 384
VOCAB = 50_000
ZIPF_S = 1.0
WORDS = (40, 120)
CHUNKS_PER_DOC = 5

# Pronounceable syllables: onset + vowel, a word ends in an optional coda.
_ONSETS = "b c d f g h j k l m n p r s t v w z br cr dr fl gr pl st tr".split()  # noqa: SIM905
_VOWELS = "a e i o u ai ea io ou".split()  # noqa: SIM905
_CODAS = ["", "", "n", "r", "s", "l", "m", "x", "nd", "rt"]


@dataclass(frozen=True)
class Vocabulary:
    """Words by frequency rank, their sampling CDF and their analysed term."""

    words: list[str]
    cdf: npt.NDArray[np.float64]
    term_ids: npt.NDArray[np.int32]
    """Word index → index into ``terms`` (-1 for stopwords the analyser drops)."""
    terms: list[str]


def _pseudo_words(n: int, rng: np.random.Generator) -> list[str]:
    seen: set[str] = set(ENGLISH_STOPWORDS)
    out: list[str] = []
    while len(out) < n:
        syllables = int(rng.integers(1, 5))
        word = (
            "".join(
                _ONSETS[rng.integers(len(_ONSETS))] + _VOWELS[rng.integers(len(_VOWELS))]
                for _ in range(syllables)
            )
            + _CODAS[rng.integers(len(_CODAS))]
        )
        if word not in seen:
            seen.add(word)
            out.append(word)
    return out


@functools.lru_cache(maxsize=4)
def make_vocabulary(size: int = VOCAB, *, seed: int = 0, s: float = ZIPF_S) -> Vocabulary:
    """A Zipfian vocabulary: stopwords first, then pseudo-words; analysed once each."""
    rng = np.random.default_rng(seed)
    stop = sorted(ENGLISH_STOPWORDS)
    words = stop + _pseudo_words(size - len(stop), rng)
    weights = 1.0 / np.arange(1, size + 1, dtype=np.float64) ** s
    cdf = np.cumsum(weights / weights.sum())
    analyzer = get_analyzer("auto")
    terms: list[str] = []
    index: dict[str, int] = {}
    term_ids = np.full(size, -1, dtype=np.int32)
    for i, word in enumerate(words):
        analysed = analyzer.terms(word)
        if len(analysed) > 1:
            raise ValueError(f"pseudo-word {word!r} analyses into several terms: {analysed}")
        if analysed:
            if analysed[0] not in index:
                index[analysed[0]] = len(terms)
                terms.append(analysed[0])
            term_ids[i] = index[analysed[0]]
    return Vocabulary(words, cdf, term_ids, terms)


def sample_words(vocab: Vocabulary, n: int, rng: np.random.Generator) -> npt.NDArray[np.intp]:
    """``n`` word indices drawn from the Zipf distribution."""
    idx = np.searchsorted(vocab.cdf, rng.random(n), side="right")
    return np.minimum(idx, len(vocab.words) - 1)


def chunk_terms(vocab: Vocabulary, word_ids: npt.NDArray[np.intp]) -> dict[str, int]:
    """Term counts of a chunk, as the ``auto`` analyser would produce from its text."""
    tids = vocab.term_ids[word_ids]
    uniq, counts = np.unique(tids[tids >= 0], return_counts=True)
    return {vocab.terms[t]: int(c) for t, c in zip(uniq.tolist(), counts.tolist(), strict=True)}


def check_terms(vocab: Vocabulary, text: str, terms: dict[str, int]) -> None:
    """Raise unless ``terms`` equals what the real analyser makes of ``text``."""
    real = dict(Counter(get_analyzer("auto").terms(text)))
    if real != terms:
        raise AssertionError(f"synthetic terms differ from the analyser's: {real} != {terms}")


def unit_vectors(n: int, rng: np.random.Generator, dim: int = DIM) -> Floats:
    """Random L2-normalised float32 rows."""
    rows = rng.standard_normal((n, dim), dtype=np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def documents(
    vocab: Vocabulary, n_chunks: int, *, seed: int = 1, vectors: bool = True
) -> Iterator[tuple[DocumentIn, list[ChunkIn]]]:
    """Documents of ``CHUNKS_PER_DOC`` chunks (the last may be shorter), ``n_chunks`` in all."""
    rng = np.random.default_rng(seed)
    for first in range(0, n_chunks, CHUNKS_PER_DOC):
        count = min(CHUNKS_PER_DOC, n_chunks - first)
        lengths = rng.integers(WORDS[0], WORDS[1] + 1, size=count)
        word_ids = sample_words(vocab, int(lengths.sum()), rng)
        vecs = unit_vectors(count, rng) if vectors else None
        chunks: list[ChunkIn] = []
        pos = offset = 0
        for j, length in enumerate(lengths.tolist()):
            ids = word_ids[pos : pos + length]
            pos += length
            text = " ".join(vocab.words[i] for i in ids.tolist())
            chunks.append(
                ChunkIn(
                    ordinal=j, text=text, start=offset, end=offset + len(text),
                    terms=chunk_terms(vocab, ids), vector=vecs[j] if vecs is not None else None,
                )
            )  # fmt: skip
            offset += len(text) + 2  # chunks are joined by a blank line in the document
        digest = hashlib.sha256("".join(c.text for c in chunks).encode()).hexdigest()
        doc = DocumentIn(
            document_id=f"doc-{first // CHUNKS_PER_DOC:06d}", content_hash=digest,
            title=f"synthetic document {first // CHUNKS_PER_DOC}", text_chars=offset - 2,
            metadata={"shard": first // CHUNKS_PER_DOC % 10},
        )  # fmt: skip
        yield doc, chunks


def queries(vocab: Vocabulary, n: int, *, seed: int = 2) -> list[str]:
    """``n`` queries of 2-5 content words, drawn from the corpus's own Zipf distribution.

    Stopwords are redrawn: a real query's content words are what reach the index.
    """
    rng = np.random.default_rng(seed)
    out: list[str] = []
    for _ in range(n):
        want = int(rng.integers(2, 6))
        picked: list[str] = []
        while len(picked) < want:
            i = int(sample_words(vocab, 1, rng)[0])
            if vocab.term_ids[i] >= 0 and vocab.words[i] not in picked:
                picked.append(vocab.words[i])
        out.append(" ".join(picked))
    return out


# -- measuring ---------------------------------------------------------------------------


class PrecomputedEmbedder(Embedder):
    """Answers from tables of precomputed vectors, so a timed search never runs a model.

    It claims ``spec``/``dim`` of the vectors' real source (the collection checks both);
    a text outside the tables is a bench bug and raises, naming the text.
    """

    def __init__(
        self,
        spec: str,
        dim: int,
        queries: Mapping[str, Floats],
        documents: Mapping[str, Floats] | None = None,
    ) -> None:
        self.spec, self.dim = spec, dim
        self._queries, self._documents = queries, documents or {}

    def embed_documents(self, texts: Sequence[str]) -> Floats:
        missing = [t[:60] for t in texts if t not in self._documents]
        if missing:
            raise KeyError(f"no precomputed vector for {len(missing)} text(s), e.g. {missing[0]!r}")
        return np.stack([self._documents[t] for t in texts]).astype(np.float32)

    def embed_query(self, text: str) -> Floats:
        if text not in self._queries:
            raise KeyError(f"no precomputed query vector for {text[:60]!r}")
        return self._queries[text]


def percentile_ms(seconds: Sequence[float], q: float) -> float:
    """The ``q``-th percentile of durations given in seconds, in milliseconds."""
    return float(np.percentile(np.asarray(seconds, dtype=np.float64), q) * 1000.0)


def peak_rss_mb() -> float:
    """This process's peak resident set size so far (getrusage; kB on Linux, B on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
