"""Builtin entity extraction for the KB's graph association (seed 000), no model needed.

* English: candidate phrases as in RAKE (Rose et al., "Automatic keyword extraction from
  individual documents", 2010): text is cut at function words and punctuation, and the
  runs of 2-4 content words that remain are noun-phrase candidates ("reciprocal rank
  fusion", "heat transfer coefficient"); capitalised words inside a sentence and acronyms
  ("Rotterdam", "HNSW") are kept as named entities. Each word is stemmed, so
  "neural networks" and "neural network" are one entity.
* Chinese: jieba's part-of-speech tags; nouns (``n``, ``nr`` person, ``ns`` place,
  ``nt`` organisation, ``nz`` other proper noun) of two characters or more.

Relations are co-occurrence within a chunk: two entities of one chunk are neighbours,
weighted by how many chunks they share.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from unifind.analysis import Analyzer

#: Function words that end a candidate phrase (RAKE cuts at stopwords): articles,
#: pronouns, auxiliaries, prepositions, conjunctions, common adverbs and quantifiers.
_FUNCTION_WORDS = """a about above after again against all also am an and any are as at be
    because been
    before being below between both but by can could did do does doing down during each
    either few for from further had has have having he her here hers him his how however
    i if in into is it its itself just may me might more most must my no nor not now of off
    on once only or other our ours out over own per same she should so some such than that
    the their theirs them then there these they this those through thus to too under until
    up upon us very via was we were what when where whether which while who whom whose why
    will with within without would yet you your using used use based show shows shown new
    one two three several many much well between among across whereas since therefore"""
_FUNCTION = frozenset(_FUNCTION_WORDS.split())
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'-]*|\d+(?:\.\d+)?|[.,;:!?()\[\]{}\"/]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NOUNS = ("n", "nr", "ns", "nt", "nz")
PREFIX = "\u241fe:"
"""Marks an entity among a chunk's index terms (the analyser never produces U+241F)."""


@functools.cache
def _query_stop() -> frozenset[str]:
    from unifind.analysis import _stemmer

    return frozenset(_stemmer().stemWords(sorted(_FUNCTION)))


def query_terms(analyzer: Analyzer, query: str) -> list[str]:
    """A query's lexical terms without function words (query-side analysis).

    The index keeps "how", "what", "should" (Lucene's 33 stopwords only), which is right
    for documents; in a query they only add noise to BM25: dropping this module's function
    words from queries gained 0.011 nDCG@10 on the lexical arm alone (BENCHMARKS.md). A
    query made of nothing else keeps all its terms.
    """
    terms = analyzer.terms(query)
    kept = [t for t in terms if t not in _query_stop()]
    return kept or terms


def entities(text: str) -> list[str]:
    """The entities of ``text`` in reading order (repeats kept), normalised."""
    text = unicodedata.normalize("NFKC", text)
    out = _english(text)
    if _HAN.search(text):
        out.extend(_chinese(text))
    return out


def _english(text: str) -> list[str]:
    from unifind.analysis import _stemmer  # the analyser's own stemmer: entities match terms

    stem = _stemmer().stemWord
    out: list[str] = []
    run: list[str] = []
    sentence_start = True

    def flush() -> None:
        words = [stem(w.lower()) for w in run]
        if 2 <= len(words) <= 4:
            out.append(" ".join(words))
        elif len(words) > 4:  # no tagger to find the phrase in a long run: its 2- and 3-grams
            out.extend(
                " ".join(words[i : i + n]) for n in (2, 3) for i in range(len(words) - n + 1)
            )
        run.clear()

    for tok in _TOKEN.findall(text):
        word = tok.lower()
        if not tok[0].isalnum() or word in _FUNCTION or tok[0].isdigit():
            flush()
            sentence_start = tok in ".!?"
            continue
        named = (tok.isupper() and len(tok) > 1) or (tok[0].isupper() and not sentence_start)
        if named:
            out.append(stem(word))
        run.append(tok)
        sentence_start = False
    flush()
    return out


def _chinese(text: str) -> list[str]:
    import jieba.posseg

    return [
        w.word
        for w in jieba.posseg.cut(text)
        if w.flag in _NOUNS and len(w.word) >= 2 and _HAN.search(w.word)
    ]


def as_terms(found: Iterable[str]) -> list[str]:
    """Entities as index terms (prefixed, so they never meet a word of the text)."""
    return [PREFIX + e for e in found]


def neighbours(
    chunks: Sequence[Sequence[str]], entity: str, limit: int = 10
) -> list[tuple[str, int]]:
    """Entities sharing chunks with ``entity``, by the number of chunks shared."""
    counts: Counter[str] = Counter()
    for found in chunks:
        unique = set(found)
        if entity in unique:
            counts.update(unique - {entity})
    return counts.most_common(limit)


def relations(found: Sequence[str]) -> list[tuple[str, str]]:
    """Co-occurrence pairs of one chunk's entities (each unordered pair once)."""
    return list(combinations(sorted(set(found)), 2))
