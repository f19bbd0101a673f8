"""A question being read: normalised text plus which characters a rule already consumed."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from re import _parser  # type: ignore[attr-defined]  # the syntax tree (see ``literals``)
from typing import Any, Generic, TypeVar

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
    if not text.isascii():  # ASCII is its own NFKC form, with no invisible control
        text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    text = text.lower()
    if "," in text:  # each pattern's match holds its literal (a question is read ~7 times)
        text = _THOUSANDS.sub("", text)
    if "non-" in text:
        text = _NON.sub("non ", text)
    return _SPACES.sub(" ", text).strip()


def is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"


class Scan:
    """``text`` is fixed; ``rest`` is ``text`` with consumed spans blanked (same offsets)."""

    def __init__(self, question: str) -> None:
        self.text = normalise(question)
        self.rest = self.text

    def find(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """Matches in the unconsumed text (a snapshot: consuming while iterating is safe)."""
        return pattern.finditer(self.rest) if may_match(pattern, self.rest) else iter(())

    def search(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """The first match in the unconsumed text."""
        return search(pattern, self.rest)

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


#: A pattern → texts one of which every match contains (a phrase's first word, of a lone
#: word ending in a consonant's "y" that word without the "y"; of any other pattern the
#: literals its syntax requires, ``_required``), or None when none is known:
#: :func:`may_match` skips the regex when the text holds none of them. A joined view has
#: hundreds of phrases, few in any one question (a join question ran ~2,500 regexes per
#: reading), and a fixed pattern that begins with a look-behind tries every character (~3 µs
#: a question; issue #19 latency). Keyed by the pattern's id, the pattern held (hashing a
#: pattern hashes its code); losing an entry loses the shortcut only.
_NEEDS: dict[int, tuple[re.Pattern[str], tuple[str, ...] | None]] = {}


def may_match(pattern: re.Pattern[str], text: str) -> bool:
    """False when no match of ``pattern`` can be in ``text`` (a text each match holds is
    not in it); True otherwise."""
    hit = _NEEDS.get(id(pattern))
    if hit is None or hit[0] is not pattern:
        hit = (pattern, literals(pattern))
        if len(_NEEDS) >= 16384:
            _NEEDS.clear()
        _NEEDS[id(pattern)] = hit
    needs = hit[1]
    if needs is None:
        return True
    for need in needs:  # noqa: SIM110 (a loop: no generator made, per regex a question)
        if need in text:
            return True
    return False


def search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """``pattern.search(text)``, the regex run only when :func:`may_match`."""
    return pattern.search(text) if may_match(pattern, text) else None


def finditer(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``, the regex run only when :func:`may_match`."""
    return pattern.finditer(text) if may_match(pattern, text) else iter(())


def literals(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Texts one of which every match of ``pattern`` contains, as its syntax requires (the
    fewest and longest found), or None when it requires none (or can't be read)."""
    if pattern.flags & (re.IGNORECASE | re.LOCALE):
        return None
    try:
        found = _required(list(_parser.parse(pattern.pattern, pattern.flags)))
    except Exception:  # a parser of another Python: no shortcut, same matches
        return None
    if not found or "" in found:
        return None
    # A text that holds another of the set is implied by it: only the shorter is needed.
    kept = sorted(found, key=lambda t: (len(t), t))
    return tuple(t for i, t in enumerate(kept) if not any(k in t for k in kept[:i]))


def _required(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    """Texts one of which every match of the sequence ``items`` holds (None: none known).
    Each item of a sequence is matched, so any one item's set will do: the best is kept."""
    best: frozenset[str] | None = None
    run: list[str] = []
    for op, av in [*items, (None, None)]:
        if op is _parser.LITERAL:
            run.append(chr(av))
            continue
        found: frozenset[str] | None = None
        if run:
            best = _better(best, frozenset(("".join(run),)))
            run = []
        if op is _parser.SUBPATTERN:
            _group, add, _remove, sub = av
            found = None if add & (re.IGNORECASE | re.LOCALE) else _required(list(sub))
        elif op is _parser.ATOMIC_GROUP:
            found = _required(list(av))
        elif op is _parser.BRANCH:
            alternatives = [_required(list(alt)) for alt in av[1]]
            if all(a is not None for a in alternatives):
                found = frozenset().union(*alternatives)  # type: ignore[arg-type]
        elif op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT):
            least, _most, sub = av
            found = _required(list(sub)) if least >= 1 else None
        elif op is _parser.IN and all(o is _parser.LITERAL for o, _ in av) and len(av) <= 8:
            found = frozenset(chr(c) for _, c in av)
        best = _better(best, found)
    return best


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """Of two sets of required texts, the one rarer in a question: longer, then fewer."""
    if a is None or not a:
        return b if b else a
    if b is None or not b:
        return a
    key_a, key_b = (min(map(len, a)), -len(a)), (min(map(len, b)), -len(b))
    return b if key_b > key_a else a


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
    # ASCII boundaries only: "深圳engineering" must still find "engineering". The word
    # every match begins with comes first, the boundary before it checked behind it: a
    # pattern that begins with a literal is searched for it (as ``str.find``), one that
    # begins with a look-behind tries every character (~5x slower; issue #19 latency).
    lead = re.escape(need)
    if need and body.startswith(lead):
        body = rf"{lead}(?<![a-z0-9_-]{lead}){body[len(lead) :]}"
    else:
        body = rf"(?<![a-z0-9_-]){body}"
    return needing(re.compile(rf"{body}(?:e?s)?(?![a-z0-9_-])"), need)


@functools.lru_cache(maxsize=4096)
def phrase_need(phrase: str) -> str:
    """Text every match of ``phrase_pattern(phrase)`` contains: the first word, but of a
    lone word whose plural is "-ies" ("party"), the word without its "y"."""
    parts = normalise(phrase).split(" ")
    if len(parts) == 1 and not is_cjk(parts[0][:1] or "a") and _CONSONANT_Y.search(parts[0]):
        return parts[0][:-1]
    return parts[0]


@functools.lru_cache(maxsize=4096)
def phrase_words(phrase: str) -> tuple[str, ...]:
    """Texts every match of ``phrase_pattern(phrase)`` contains: ``phrase_need`` first, then
    each further word (a last word whose plural is "-ies" without its "y"). A joined view
    has dozens of phrases that begin with one noun ("customer name", "customer city"): the
    other words tell them apart before any regex runs (issue #19 latency)."""
    text = normalise(phrase)
    parts = text.split(" ")
    more = parts[1:]
    if more and not (text and is_cjk(text[0])) and _CONSONANT_Y.search(more[-1]):
        more[-1] = more[-1][:-1]
    return (phrase_need(phrase), *more)


def needing(pattern: re.Pattern[str], need: str) -> re.Pattern[str]:
    """Record that every match of ``pattern`` contains ``need`` (see :func:`may_match`)."""
    if len(_NEEDS) >= 16384:
        _NEEDS.clear()
    if need:
        _NEEDS[id(pattern)] = (pattern, (need,))
    return pattern


class Needing(Generic[T]):
    """Items in a fixed order, each with a word every match of it holds (``phrase_need``),
    or several (``phrase_words``: every match holds each).

    ``present(text)`` keeps, in order, those whose words ``text`` holds: the rest can't
    match. A rule that consumes while it reads may ask once, before it starts: consuming
    blanks characters, and a word (no spaces) absent from the text stays absent. A joined
    view has hundreds of phrases and a few first words (issue #19 latency)."""

    __slots__ = ("_by_need", "_items")

    def __init__(self, pairs: Iterable[tuple[str | tuple[str, ...], T]]) -> None:
        self._items: list[T] = []
        groups: dict[str, dict[tuple[str, ...], list[int]]] = {}
        for i, (need, item) in enumerate(pairs):
            first, *more = (need,) if isinstance(need, str) else need
            if any(" " in n for n in (first, *more)):
                raise ValueError(f"a need is one word: {need!r}")
            self._items.append(item)
            groups.setdefault(first, {}).setdefault(tuple(more), []).append(i)
        #: first word → (the other words, the items that need them), each set of words once.
        self._by_need = {first: list(by_more.items()) for first, by_more in groups.items()}

    def present(self, text: str) -> list[T]:
        hits: list[int] = []
        for need, groups in self._by_need.items():
            if need in text:
                for more, at in groups:
                    for word in more:
                        if word not in text:
                            break
                    else:
                        hits += at
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
