"""How the intent rules find words in a message: whole words or Chinese substrings, a
row's name as two adjacent words, a Chinese buyer's name (:mod:`unifind.agent.intent`)."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable

from unifind.agent import _chat
from unifind.agent import _cues as cue


def found(text: str, low: str, words: Iterable[str]) -> list[str]:
    """The ``words`` in ``text``: substrings for Chinese, whole words for the rest."""
    hits = []
    for w in words:
        if not w:
            continue
        if _chat.han(w):
            if w in text:
                hits.append(w)
            continue
        lw = w.lower()
        # The substring test first: the regex (one per word, beyond re's cache for a large
        # vocabulary) only runs for the few words that occur at all.
        if lw in low and re.search(rf"(?<![\w'-]){re.escape(lw)}(?![\w'-])", low):
            hits.append(w)
    return hits


def row_pairs(low: str, rows: frozenset[str]) -> list[str]:
    """Two adjacent words of the rows' text, one with a digit: a row's name ("iphone 15",
    "air 11"); an unknown number ("iphone 16") names none."""
    if not rows:
        return []
    words = re.findall(r"(?<![\w'])[a-z0-9][a-z0-9-]*(?![\w'])", low)
    pairs = itertools.pairwise(words)
    return [f"{a} {b}" for a, b in pairs if a in rows and b in rows and named(a, b)]


def named(a: str, b: str) -> bool:
    # One word with a digit, and a word of letters that is more than a letter ("s 2" isn't).
    digits = re.search(r"\d", a + b) is not None
    return digits and any(re.search("[a-z]", w) and len(w) > 1 for w in (a, b))


@functools.lru_cache(maxsize=8)
def buyer_pattern(surnames: frozenset[str]) -> re.Pattern[str]:
    # Surname, one given character, up to three more ("最近有"), then the buying word.
    name = f"([{''.join(sorted(surnames))}][\u4e00-\u9fff])"
    return re.compile(name + f"[\u4e00-\u9fff]{{0,3}}?(?:{cue.BUY_ZH.pattern})")
