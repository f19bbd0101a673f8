"""Salient terms of a knowledge base: words frequent in one document and absent from the
others ("婚假", "dispatch", "sms" in a handbook), read from the documents' text.

A handbook question often names none of the titles' or headings' words ("发票怎么开",
"is sms allowed as a second factor"); its topic word is still one the handbook uses more
than once in a single document and nowhere else. With no other leg's signal, such a word
makes the message the handbook's rather than a public question.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from unifind.agent._sections import singular

_ASCII = re.compile(r"[a-z][a-z0-9'-]*[a-z0-9]")
_HAN_RUN = re.compile("[\u4e00-\u9fff]+")
#: Times a word must occur in its one document to be salient there.
_MIN_COUNT = 2


def counts(text: str, segment: Callable[[str], list[str]]) -> dict[str, int]:
    """How often each content word occurs in ``text`` (ASCII words of 3+ letters, singular;
    Chinese words of 2+ characters)."""
    low = text.lower()
    found = Counter(singular(w) for w in _ASCII.findall(low) if len(w) > 2)
    found.update(w for run in _HAN_RUN.findall(text) for w in segment(run) if len(w) > 1)
    return dict(found)


def salient(
    docs: Iterable[dict[str, int]], common: frozenset[str], noise: frozenset[str]
) -> frozenset[str]:
    """Words of one document only, frequent there, and neither ``common`` English words nor
    ``noise``: the KB's own terms."""
    seen: Counter[str] = Counter()
    frequent: set[str] = set()
    for doc in docs:
        seen.update(doc.keys())  # in how many documents, not how often
        frequent.update(w for w, n in doc.items() if n >= _MIN_COUNT)
    return frozenset(w for w in frequent if seen[w] == 1 and _term(w, common, noise))


def _term(word: str, common: frozenset[str], noise: frozenset[str]) -> bool:
    # Short English words are mostly everyday ones ("year", "key", "meet"); a term with a
    # digit ("sev1") is a code of the KB's own. Chinese words starting with a numeral
    # ("一天") are amounts, not topics.
    if word in common or word in noise or word[0] in "一二三四五六七八九十两半每":
        return False
    if word.isascii():
        return (any(c.isdigit() for c in word) and word[0].isalpha()) or len(word) >= 5
    return True


def named(low: str, terms: frozenset[str]) -> list[str]:
    """The salient ``terms`` a lower-cased message names (Chinese: any 2-4 character run)."""
    if not terms:
        return []
    tokens = {singular(w) for w in _ASCII.findall(low)}
    tokens.update(run[i : i + n] for run in _HAN_RUN.findall(low) for n in (2, 3, 4)
                  for i in range(len(run) - n + 1))  # fmt: skip
    return sorted(tokens & terms)
