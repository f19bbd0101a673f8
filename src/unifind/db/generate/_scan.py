"""A question being read: normalised text plus which characters a rule already consumed."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_SPACES = re.compile(r"\s+")
_NON = re.compile(r"\bnon-(?=\w)")  # "non-apple" → "non apple": the value stays a word
#: Zero-width and bidi controls: invisible, and a classic way to smuggle text past filters.
_INVISIBLE = dict.fromkeys(
    [0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "twenty": 20,
                "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
                "八": 8, "九": 9, "十": 10}  # fmt: skip


def normalise(text: str) -> str:
    """NFKC (full-width digits and symbols become ASCII), lower case, one space, no 1,000 commas."""
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).lower()
    return _SPACES.sub(" ", _NON.sub("non ", _THOUSANDS.sub("", text))).strip()


def is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"


class Scan:
    """``text`` is fixed; ``rest`` is ``text`` with consumed spans blanked (same offsets)."""

    def __init__(self, question: str) -> None:
        self.text = normalise(question)
        self.rest = self.text

    def find(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """Matches in the unconsumed text (a snapshot: consuming while iterating is safe)."""
        hit = _NEEDS.get(id(pattern))
        if hit is not None and hit[0] is pattern and hit[1] not in self.rest:
            return iter(())  # a phrase's first word is absent: no regex run (issue #19)
        return pattern.finditer(self.rest)

    def consume(self, start: int, end: int) -> None:
        self.rest = self.rest[:start] + " " * (end - start) + self.rest[end:]

    def rewrite(self, start: int, end: int, text: str) -> None:
        """Put ``text`` (no longer than the span, padded) in place of unconsumed text."""
        self.rest = self.rest[:start] + text.ljust(end - start)[: end - start] + self.rest[end:]

    def before(self, start: int, chars: int = 30) -> str:
        """Unconsumed text just before ``start``."""
        return self.rest[max(0, start - chars) : start]

    def after(self, end: int, chars: int = 20) -> str:
        return self.rest[end : end + chars]


#: A phrase pattern → text every match contains (its first word; of a lone word ending in
#: a consonant's "y", that word without the "y"): :meth:`Scan.find` skips the regex when
#: the text lacks it. A joined view has hundreds of phrases, few in any one question (a
#: join question ran ~2,500 regexes per reading, issue #19). Keyed by the pattern's id, the
#: pattern held (hashing a pattern hashes its code); losing an entry loses the shortcut only.
_NEEDS: dict[int, tuple[re.Pattern[str], str]] = {}


@functools.lru_cache(maxsize=4096)  # model vocabularies are small and reused per question
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A phrase as a whole word (latin) or a plain substring (CJK has no spaces)."""
    need = phrase_need(phrase)
    phrase = normalise(phrase)
    parts = phrase.split(" ")
    body = r"\s*".join(re.escape(p) for p in parts)
    if phrase and is_cjk(phrase[0]):
        return needing(re.compile(body), need)
    if _CONSONANT_Y.search(parts[-1]):  # "party" → "parties" too
        body = r"\s*".join([*(re.escape(p) for p in parts[:-1]), plural(parts[-1])])
    # ASCII boundaries only: "深圳engineering" must still find "engineering".
    return needing(re.compile(rf"(?<![a-z0-9_-]){body}(?:e?s)?(?![a-z0-9_-])"), need)


@functools.lru_cache(maxsize=4096)
def phrase_need(phrase: str) -> str:
    """Text every match of ``phrase_pattern(phrase)`` contains: the first word, but of a
    lone word whose plural is "-ies" ("party"), the word without its "y"."""
    parts = normalise(phrase).split(" ")
    if len(parts) == 1 and not is_cjk(parts[0][:1] or "a") and _CONSONANT_Y.search(parts[0]):
        return parts[0][:-1]
    return parts[0]


def needing(pattern: re.Pattern[str], need: str) -> re.Pattern[str]:
    """Record that every match of ``pattern`` contains ``need`` (see :meth:`Scan.find`)."""
    if len(_NEEDS) >= 16384:
        _NEEDS.clear()
    if need:
        _NEEDS[id(pattern)] = (pattern, need)
    return pattern


class Needing(Generic[T]):
    """Items in a fixed order, each with a word every match of it holds (``phrase_need``).

    ``present(text)`` keeps, in order, those whose word ``text`` holds: the rest can't
    match. A rule that consumes while it reads may ask once, before it starts: consuming
    blanks characters, and a word (no spaces) absent from the text stays absent. A joined
    view has hundreds of phrases and a few first words (issue #19 latency)."""

    __slots__ = ("_by_need", "_items")

    def __init__(self, pairs: Iterable[tuple[str, T]]) -> None:
        self._items: list[T] = []
        self._by_need: dict[str, list[int]] = {}
        for i, (need, item) in enumerate(pairs):
            if " " in need:
                raise ValueError(f"a need is one word: {need!r}")
            self._items.append(item)
            self._by_need.setdefault(need, []).append(i)

    def present(self, text: str) -> list[T]:
        hits = [i for need, at in self._by_need.items() if need in text for i in at]
        hits.sort()
        return [self._items[i] for i in hits]


#: A word whose plural ends in -ies ("party", "city"; not "day", "key").
_CONSONANT_Y = re.compile(r"^[a-z]+[^aeiou\W\d]y$")


def number(text: str) -> float:
    """``"5"``, ``"2.5"``, ``"five"``, ``"五"`` → a number."""
    if text in NUMBER_WORDS:
        return float(NUMBER_WORDS[text])
    return float(text)


def plural(word: str) -> str:
    """A regex for ``word`` or its English plural ("country" → countries, "box" → boxes)."""
    w = re.escape(word)
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return rf"{w[:-1]}(?:y|ies)"
    return rf"{w}(?:e?s)?"
