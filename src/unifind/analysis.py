"""Text analysis: text → index terms, the same way at ingest and at query time (L1).

Two analysers:

* ``auto`` — NFKC, lowercase, Unicode word tokens, Lucene's English stopwords, Snowball
  English stemming (PyStemmer), and Chinese (Han) runs segmented with jieba's search mode.
  Mixed text such as ``"退款 refund policy 流程"`` yields terms from both scripts.
* ``simple`` — NFKC, lowercase and split; no stopwords, no stemming. Han runs stay whole,
  so it suits whitespace-delimited languages only; use ``auto`` for Chinese.

An analyser must give the same terms for the same text in every process, forever: the
store's lexical index holds them. Changing this module's behaviour means re-indexing, so
``name`` is recorded with each collection.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import tempfile
import threading
import unicodedata
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

from unifind.errors import UnknownName

__all__ = ["ENGLISH_STOPWORDS", "Analyzer", "analyzer_names", "get_analyzer", "guess_lang"]

#: Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`` (the default of Lucene's English and
#: Standard analysers and of Anserini's BM25 baselines, whose k1/b our stores copy). The
#: 174-word Snowball list would also drop "how", "what", "should", "before" — words that
#: matter in the questions agents ask.
_LUCENE_ENGLISH = (
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with"
)
ENGLISH_STOPWORDS: frozenset[str] = frozenset(_LUCENE_ENGLISH.split())

#: Single-character Chinese function words (particles, copula, common prepositions and
#: conjunctions), from the HIT Chinese stopword list (哈工大停用词表). Multi-character words
#: are kept: jieba's search mode already splits compounds, and their idf is low anyway.
_HIT_SINGLE_CHARS = (
    "的 地 得 了 着 过 是 在 和 与 及 或 也 都 就 而 之 于 被 把 对 将 从 向 吗 呢 吧 啊 呀 么 "
    "这 那 其 此 个 们 即 并 且 则 乃"
)
CHINESE_STOPWORDS: frozenset[str] = frozenset(_HIT_SINGLE_CHARS.split())

# Han ideographs: CJK Unified Ideographs, Extension A, compatibility block, and the
# supplementary-plane extensions B–H. Kana and Hangul are left to the word tokenizer.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef\U00030000-\U000323af"
_HAN_RUN = re.compile(f"([{_HAN}]+)")

# Word tokens, after UAX #29's main rules (what Lucene's StandardTokenizer follows): digits
# joined by "." or "," stay one number ("3.5", "1,200"); letters joined by an apostrophe
# stay one word ("customer's", which the Snowball stemmer then reduces to "custom").
_WORD = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+(?:'[^\W_]+)*")

# Typographic apostrophes become ASCII so "don’t" and "don't" index alike (NFKC keeps them).
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\uff07": "'"})


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().translate(_APOSTROPHES)


class Analyzer(ABC):
    """Turns text into index terms; stateless and thread-safe."""

    name: str

    @abstractmethod
    def terms(self, text: str) -> list[str]:
        """The terms of ``text`` in reading order (repeats kept: BM25 counts them)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class SimpleAnalyzer(Analyzer):
    """Lowercase and split on anything that isn't a letter or digit."""

    name = "simple"

    def terms(self, text: str) -> list[str]:
        return _WORD.findall(_normalise(text))


class AutoAnalyzer(Analyzer):
    """English stemming + Chinese segmentation; other scripts tokenised and lowercased."""

    name = "auto"

    def terms(self, text: str) -> list[str]:
        out: list[str] = []
        # re.split with a capturing group alternates: [non-Han, Han, non-Han, ...].
        parts = _HAN_RUN.split(_normalise(text))
        han = sum(len(p) for p in parts[1::2])
        segmenter: Any = _segmenter(han) if han else None
        for i, part in enumerate(parts):
            if not part:
                continue
            if i % 2:
                words = segmenter.lcut_for_search(part)
                out.extend(w for w in words if w not in CHINESE_STOPWORDS)
            else:
                words = [w for w in _WORD.findall(part) if w not in ENGLISH_STOPWORDS]
                if words:
                    out.extend(_stemmer().stemWords(words))
        return out


# -- lazily built, process-wide helpers ------------------------------------------------

_local = threading.local()


def _stemmer() -> Any:
    # PyStemmer objects keep a mutable cache and are not thread-safe: one per thread.
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        import Stemmer

        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    return stemmer


_jieba_lock = threading.Lock()
_jieba: Any = None


def jieba_cache_file(jieba_version: str) -> Path:
    """Where jieba's prefix dictionary is cached: ``$UNIFIND_HOME/cache`` when it is set
    and writable, else the temp dir; named by jieba's and Python's versions (the cache is
    a marshal dump)."""
    folder = Path(tempfile.gettempdir())
    if home := os.environ.get("UNIFIND_HOME"):
        mine = Path(home).expanduser() / "cache"
        with contextlib.suppress(OSError):
            mine.mkdir(parents=True, exist_ok=True)
        if os.access(mine, os.W_OK):
            folder = mine
    py = f"{sys.version_info.major}{sys.version_info.minor}"
    return folder / f"unifind-jieba-{jieba_version}-py{py}.cache"


def _jieba_tokenizer() -> Any:
    """A private jieba tokenizer, loaded once per process.

    Loading reads the prefix dictionary from its cache (~0.5 s here) or, the first time,
    builds it from jieba's word list and writes the cache (~0.6 s idle, seconds under load).
    """
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                # jieba logs "Building prefix dict ..." to stderr at DEBUG on its own
                # handler; raise its logger's level so loading is quiet.
                logging.getLogger("jieba").setLevel(logging.WARNING)
                # A private Tokenizer, not jieba's global one: words other code adds to
                # the global dictionary (jieba.add_word) would otherwise change our terms
                # between ingest and query time.
                tokenizer = jieba.Tokenizer()
                cache = jieba_cache_file(jieba.__version__)
                # jieba joins tmp_dir and cache_file itself, writing to a temp file in
                # tmp_dir and renaming it, so concurrent first loads can't tear the cache.
                tokenizer.tmp_dir, tokenizer.cache_file = str(cache.parent), cache.name
                tokenizer.initialize()
                lookup = cache.with_suffix(".sqlite")
                if not lookup.exists():  # once per cache folder: later queries read it
                    from unifind import _jieba_dict

                    _jieba_dict.write(lookup, tokenizer.FREQ, tokenizer.total)
                _jieba = tokenizer
    return _jieba


#: Texts with at most this many Han characters (queries) are segmented with the on-disk
#: dictionary when the in-memory one isn't loaded yet (see unifind._jieba_dict).
LOOKUP_MAX_HAN = 256
_lookup: Any = None


def _segmenter(han_chars: int) -> Any:
    """jieba's Tokenizer for a text with ``han_chars`` Han characters.

    Search mode (cut_for_search) emits a long word *and* its dictionary sub-words:
    三十天 → 三十, 十天, 三十天. Used on both sides, a query for 退款 then matches a
    document where jieba kept 退款流程 whole; jieba's README recommends it for indexing.
    """
    if _jieba is None and han_chars <= LOOKUP_MAX_HAN:
        small = _lookup_tokenizer()
        if small is not None:
            return small
    return _jieba_tokenizer()


def _lookup_tokenizer() -> Any:
    """A Tokenizer over the on-disk dictionary, or None while there is none (~10 ms)."""
    global _lookup
    if _lookup is None:
        with _jieba_lock:
            if _lookup is None:
                import jieba

                from unifind import _jieba_dict

                logging.getLogger("jieba").setLevel(logging.WARNING)
                cache = jieba_cache_file(jieba.__version__)
                freq = _jieba_dict.open_lookup(cache.with_suffix(".sqlite"))
                if freq is None:
                    return None
                tokenizer = jieba.Tokenizer()
                tokenizer.FREQ, tokenizer.total = freq, freq.total
                tokenizer.initialized = True
                _lookup = tokenizer
    return _lookup


# -- registry-free lookup ---------------------------------------------------------------

_ANALYZERS: dict[str, Analyzer] = {"auto": AutoAnalyzer(), "simple": SimpleAnalyzer()}


def analyzer_names() -> list[str]:
    return sorted(_ANALYZERS)


def get_analyzer(name: str = "auto") -> Analyzer:
    """The analyser called ``name``; an unknown name raises UnknownName listing the valid."""
    try:
        return _ANALYZERS[name]
    except KeyError:
        raise UnknownName("analyzer", name, _ANALYZERS) from None


def guess_lang(text: str, *, sample: int = 20_000) -> str | None:
    """``"zh"``, ``"en"`` or None (unsure), from the first ``sample`` characters.

    Han share of letters decides Chinese; English is claimed only when Lucene's stopwords
    make up ≥ 8 % of the word tokens, the classic stopword-profile test (English prose runs
    at 20–30 %; French or German prose at a few percent of these words).
    """
    head = unicodedata.normalize("NFKC", text[:sample]).lower()
    han = sum(len(run) for run in _HAN_RUN.findall(head))
    words = _WORD.findall(_HAN_RUN.sub(" ", head))
    letters = han + sum(len(w) for w in words)
    if letters == 0:
        return None
    if han / letters >= 0.3:
        return "zh"
    stop = sum(1 for w in words if w in ENGLISH_STOPWORDS)
    if len(words) >= 5 and stop / len(words) >= 0.08:
        return "en"
    return None
