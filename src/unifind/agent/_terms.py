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
_ACRONYM = re.compile(r"(?<![\w-])[A-Z]{3,5}(?![\w-])")
#: A capitalised word that does not open a sentence, a line or a heading: a name.
_NAME = re.compile(r"(?<=[a-z0-9,;)] )([A-Z][a-z]+[A-Za-z]*)\b")
#: Times a word must occur in its one document to be salient there.
_MIN_COUNT = 2


def counts(text: str, segment: Callable[[str], list[str]]) -> dict[str, int]:
    """How often each content word occurs in ``text`` (ASCII words of 3+ letters, singular;
    Chinese words of 2+ characters). Two kinds of marked keys ride along: an acronym as
    written ("SMS") and a capitalised word inside a sentence as "London" (a name), so
    :func:`rare` can tell a term of the trade from a place."""
    low = text.lower()
    found = Counter(singular(w) for w in _ASCII.findall(low) if len(w) > 2)
    found.update(w for run in _HAN_RUN.findall(text) for w in segment(run) if len(w) > 1)
    found.update(a for a in _ACRONYM.findall(text))
    found.update(singular(m.group(1).lower()).capitalize() for m in _NAME.finditer(text))
    return dict(found)


def rare(
    docs: Iterable[dict[str, int]],
    common: frozenset[str],
    noise: frozenset[str],
    common_zh: Callable[[str], bool] = lambda w: False,
) -> tuple[frozenset[str], tuple[frozenset[str], ...]]:
    """(specific words, each document's everyday words) of one KB document only, however
    often it uses them.

    Specific: an acronym ("sms", "mfa"), an English word of 5+ letters that is not
    ``common`` ("delamination"), a word with a digit, a Chinese word that is not
    ``common_zh`` ("婚假", "周日"); one names the handbook. Everyday: the rest of 4+ letters
    ("dispatch", "pole", "wind", "工作"); one alone is too often the world's, two of the same
    document name it. Names (capitalised inside sentences wherever they occur: "London",
    "Utrecht") are neither: places and brands are the world's too."""
    docs = list(docs)
    seen: Counter[str] = Counter()
    acronyms: set[str] = set()
    names: set[str] = set()
    for doc in docs:
        seen.update(w for w in doc if w.islower() or not w.isascii())
        acronyms.update(w.lower() for w in doc if w.isupper() and w.isascii())
        names.update(w.lower() for w, n in doc.items() if w[:1].isupper() and not w.isupper()
                     and n >= doc.get(w.lower(), 0))  # fmt: skip
    specific: set[str] = set()
    everyday: list[frozenset[str]] = []
    for doc in docs:
        mine: set[str] = set()
        for w in doc:
            if seen[w] != 1 or w in noise or w in names or w[0] in "一二三四五六七八九十两半每":
                continue
            if not w.isascii():
                (mine if common_zh(w) else specific).add(w)
            elif w in acronyms or any(c.isdigit() for c in w) or (len(w) > 4 and w not in common):
                specific.add(w)
            elif len(w) >= 4:
                mine.add(w)
        everyday.append(frozenset(mine))
    return frozenset(specific), tuple(everyday)


def named_pair(tokens: set[str], everyday: tuple[frozenset[str], ...]) -> list[str]:
    """Two everyday words of the same document among a message's :func:`tokens`, else none."""
    for words in everyday:
        both = tokens & words
        if len(both) > 1:
            return sorted(both)
    return []


def salient(
    docs: Iterable[dict[str, int]], common: frozenset[str], noise: frozenset[str]
) -> frozenset[str]:
    """Words of one document only, frequent there, and neither ``common`` English words nor
    ``noise``: the KB's own terms."""
    seen: Counter[str] = Counter()
    frequent: set[str] = set()
    for doc in docs:
        seen.update(doc.keys())  # in how many documents, not how often
        frequent.update(w for w, n in doc.items() if n >= _MIN_COUNT and w == w.lower())
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
    return sorted(tokens(low) & terms)


def tokens(low: str) -> set[str]:
    """A lower-cased message's ASCII words (singular) and Chinese runs of 2-4 characters."""
    tokens = {singular(w) for w in _ASCII.findall(low)}
    tokens.update(run[i : i + n] for run in _HAN_RUN.findall(low) for n in (2, 3, 4)
                  for i in range(len(run) - n + 1))  # fmt: skip
    return tokens
