"""A comparison the claim makes, read against the figures a source gives each side (issue
#20): "The suicide rate is higher after miscarriage than live birth" against "the rate
associated with birth was significantly lower (5.9) and the rates associated with
miscarriage (18.1) ... higher": 18.1 against 5.9 decides, not which direction word sits
nearer. English only.
"""

from __future__ import annotations

import functools
import re

from unifind.analysis import get_analyzer

# "higher after miscarriage than live birth": the comparative word, what is compared, "than",
# what it is compared with.
_COMPARE = re.compile(
    r"\b(?P<word>higher|greater|more|larger|longer|lower|less|fewer|smaller|shorter)\b"
    r"(?P<a>[^.;,]{1,80}?)\bthan\b(?P<b>[^.;,]{1,80})",
    re.I,
)
_UP = frozenset(["higher", "greater", "more", "larger", "longer"])
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*|\d+(?:\.\d+)?")
#: Words after a side's name within which its figure is written ("miscarriage (18.1)",
#: "birth was significantly lower (5.9)").
FIGURE_WORDS = 4


def compared(claim: str, source: str) -> bool | None:
    """Does ``source`` give figures for both sides of the claim's comparison that agree with
    it (True), that say the other way (False), or not both (None)?"""
    m = _COMPARE.search(claim)
    if m is None:
        return None
    a, b = _terms(m.group("a")), _terms(m.group("b"))
    if not a or not b or a & b:
        return None
    fa, fb = _figure(source, a - b), _figure(source, b - a)
    if fa is None or fb is None or fa == fb:
        return None
    return (fa > fb) == (m.group("word").lower() in _UP)


def _figure(source: str, side: frozenset[str]) -> float | None:
    """The figure written within :data:`FIGURE_WORDS` after the first mention of the side."""
    words = _WORD.findall(source)
    for i, w in enumerate(words):
        if _terms(w) & side:
            for v in words[i + 1 : i + 1 + FIGURE_WORDS]:
                if v[0].isdigit():
                    return float(v)
            return None
    return None


@functools.lru_cache(maxsize=65536)
def _terms(text: str) -> frozenset[str]:
    return frozenset(get_analyzer("auto").terms(text))
