"""The antonym pairs direction words come from, and how a word is read (issue #20): its
side of a pair, its content terms. :mod:`unifind.cite._direction` reads them in text."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from unifind.analysis import get_analyzer

# Antonym pairs. An entry of six letters or more is a stem any word may continue
# ("increas": increase, increased, increasing); a shorter one is a word with its
# inflections ("under": unders, not "understand").
PAIRS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("increas", "rais", "elevat", "higher", "rise", "rises", "rising", "rose", "risen",
      "enhanc", "upregul", "up-regul", "augment", "boost", "greater", "more", "larger",
      "bigger", "longer", "faster", "gain"),
     ("decreas", "reduc", "lower", "declin", "diminish", "downregul", "down-regul",
      "attenuat", "fewer", "less", "smaller", "shorter", "slower", "drop", "dropped", "loss")),
    (("activat", "induc", "stimulat", "promot", "facilitat", "encourag"),
     ("inhibit", "suppress", "repress", "block", "prevent", "impair", "deactivat", "inactivat",
      "imped", "hinder")),
    (("before", "earlier", "prior"), ("after", "later")),
    (("older", "oldest"), ("newer", "newest", "younger", "youngest")),
    (("accept", "approv", "allow", "permit", "grant"),
     ("reject", "refus", "deni", "deny", "forbid", "prohibit", "disallow")),
    (("above", "over", "exceed"), ("below", "under")),
    (("maximum", "most", "highest", "largest"), ("minimum", "least", "lowest", "smallest")),
    (("positive", "positively"), ("negative", "negatively")),
    (("improv", "better", "benefit", "ameliorat", "alleviat", "rescu"),
     ("worsen", "worse", "deteriorat", "harm", "exacerbat", "aggravat")),
    (("abundant", "abundance", "plentiful"), ("scarce", "scarcity", "sparse")),
    (("丰富",), ("稀少", "稀缺")),
    (("include", "includes", "included", "including"),
     ("exclude", "excludes", "excluded", "excluding")),
    (("all", "every", "always"), ("some", "sometimes", "none")),
    (("增加", "提高", "上升", "增长", "升高", "更多", "多于", "以上", "超过", "之前", "以前",
      "接受", "批准", "允许", "全部", "所有"),
     ("减少", "降低", "下降", "减轻", "更少", "少于", "以下", "低于", "之后", "以后", "拒绝",
      "驳回", "禁止", "部分", "一些")),
    (("促进", "激活", "诱导"), ("抑制", "阻断", "灭活")),
    (("改善", "缓解"), ("恶化", "加重")),
)  # fmt: skip


@dataclass(frozen=True)
class Occurrence:
    """One direction word in a text."""

    pair: int
    """Index of its antonym pair in :data:`PAIRS`."""
    side: int
    """0 or 1: which side of the pair."""
    word: str
    """As written, lower-cased."""
    about: frozenset[str]
    """Content terms within :data:`ANCHOR_WORDS` of it (None of them a direction word);
    for Chinese, the whole text's."""
    acts_on: frozenset[str] = frozenset()
    """Content terms of the words right after it, to the next clause mark, conjunction or
    direction word (:data:`OBJECT_WORDS` at most): what it acts on ("promotes *β-catenin
    degradation* and inhibits *differentiation*")."""
    named_by: frozenset[str] = frozenset()
    """For a change named as a noun after what changes ("weight loss", "MLL1 inhibition"):
    that word's terms."""


@functools.lru_cache(maxsize=65536)
def sides(word: str) -> tuple[tuple[int, int], ...]:
    """(pair, side) of every pair ``word`` is a direction word of."""
    return tuple(
        (pair, side)
        for pair, sides in enumerate(PAIRS)
        for side, entries in enumerate(sides)
        if any(p.isascii() and _word_of(p).fullmatch(word) for p in entries)
    )


@functools.lru_cache(maxsize=1024)
def _word_of(prefix: str) -> re.Pattern[str]:
    tail = r"[a-z\-]*" if len(prefix) >= 6 else r"(?:s|d|e|ed|es|ing|ion|ions|tion|tions)?"
    return re.compile(rf"{re.escape(prefix)}{tail}", re.I)


def numeric(term: str) -> bool:
    """A number, not a name that holds digits ("DUSP4 decreases apoptosis": "dusp4" is what
    the word is about)."""
    return any(c.isdigit() for c in term) and not _NAME.fullmatch(term)


_NAME = re.compile(r"(?=[a-z](?:[^a-z]*[a-z]))[a-z0-9\-]+")


@functools.lru_cache(maxsize=65536)
def word_terms(word: str) -> frozenset[str]:
    """One word's terms; a prefix joined by a hyphen stays on its word ("pro-inflammatory"
    is proinflammatory, not "inflammatory": "anti-inflammatory" is its opposite)."""
    head, _, rest = word.partition("-")
    if rest and head.lower() in _PREFIXES:
        word = head + rest
    return terms(word)


# English prefixes that are written with a hyphen and change the word's meaning.
_PREFIXES = frozenset(["anti", "pro", "non", "un", "counter", "de", "dis", "in", "im", "mis",
                       "pre", "post", "over", "under", "hyper", "hypo"])  # fmt: skip


@functools.lru_cache(maxsize=65536)
def terms(text: str) -> frozenset[str]:
    """The KB's ``auto`` analyser's terms of ``text``."""
    return frozenset(get_analyzer("auto").terms(text))
