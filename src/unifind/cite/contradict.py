"""Does an aligned source sentence contradict a claim? What similarity can't see (issue #20).

A claim and a source sentence on the same topic (:func:`alignment`: most of the claim's
content words are in the sentence) are compared on what word overlap and embeddings are
blind to, in this order:

* quantities (:mod:`unifind.cite._numbers`): the claim's number in a dimension the source
  also states (time, money, %, a count of the same noun) matches none of the source's
  ("within 90 days" vs "within 30 days"; "48 hours" and "2 days" agree);
* negation: a word both share is negated in one and not in the other ("are not free" vs
  "are free"; Chinese 不/没/未/无/非 before the word);
* direction: the claim and the source take opposite sides of an antonym pair (increase /
  decrease, before / after, older / newer, accepted / rejected, all / some, ...);
* names: the claim names someone or something the whole reference never names, where the
  source sentence names another ("from France" vs "from the Netherlands").

Rules only: a paraphrased contradiction ("had no effect on" for "reduces") needs an NLI
model, which is not available offline; what these rules can't see stays a similarity score.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from unifind.analysis import get_analyzer
from unifind.cite._numbers import Quantity, quantities

STRONG_SHARE = 0.5
"""Share of the claim's content words a source sentence must hold to be compared at all."""
MIN_SHARED = 2
"""...and at least this many of them (fewer when the claim has fewer)."""

_NEGATORS = frozenset(["not", "no", "never", "none", "nor", "cannot", "without", "neither"])
_NEGATION_REACH = 4  # words after a negator it governs ("is not free", "never ship on")
_ZH_NEGATORS = "不没未无非别"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*(?:'t)?|\d+(?:[.,]\d+)*")

# Antonym pairs. An entry of six letters or more is a stem any word may continue
# ("increas": increase, increased, increasing); a shorter one is a word with its
# inflections ("under": unders, not "understand").
_PAIRS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("increas", "rais", "elevat", "higher", "rise", "rises", "rising", "rose", "risen",
      "enhanc", "upregul", "up-regul", "augment", "boost", "greater", "more", "larger",
      "bigger", "longer", "faster", "gain"),
     ("decreas", "reduc", "lower", "declin", "diminish", "downregul", "down-regul",
      "attenuat", "fewer", "less", "smaller", "shorter", "slower", "drop", "dropped", "loss")),
    (("before", "earlier", "prior"), ("after", "later")),
    (("older", "oldest"), ("newer", "newest", "younger", "youngest")),
    (("accept", "approv", "allow", "permit", "grant"),
     ("reject", "refus", "deni", "deny", "forbid", "prohibit", "disallow")),
    (("above", "over", "exceed"), ("below", "under")),
    (("maximum", "most", "highest", "largest"), ("minimum", "least", "lowest", "smallest")),
    (("activat", "induc", "stimulat", "promot", "facilitat"),
     ("inhibit", "suppress", "repress", "block", "prevent", "impair")),
    (("positive", "positively"), ("negative", "negatively")),
    (("include", "includes", "included", "including"),
     ("exclude", "excludes", "excluded", "excluding")),
    (("all", "every", "always", "each"), ("some", "sometimes", "several", "few", "none")),
    (("增加", "提高", "上升", "增长", "升高", "更多", "多于", "以上", "超过", "之前", "以前",
      "接受", "批准", "允许", "全部", "所有"),
     ("减少", "降低", "下降", "减轻", "更少", "少于", "以下", "低于", "之后", "以后", "拒绝",
      "驳回", "禁止", "部分", "一些")),
)  # fmt: skip


@dataclass(frozen=True)
class Conflict:
    """Why a source sentence contradicts a claim."""

    kind: str
    """``number``, ``negation``, ``direction`` or ``entity``."""
    detail: str
    """What differs, as written ("90 days" vs "30 days")."""


@functools.lru_cache(maxsize=65536)
def terms(text: str) -> frozenset[str]:
    """Content terms (the KB's ``auto`` analyser), numbers left out."""
    return frozenset(t for t in get_analyzer("auto").terms(text) if not _numeric(t))


def _numeric(term: str) -> bool:
    return any(c.isdigit() for c in term)


def alignment(claim_terms: frozenset[str], source_terms: frozenset[str]) -> float:
    """Share of the claim's content terms in the source sentence (0 when below
    :data:`MIN_SHARED` shared terms, for a claim with that many)."""
    if not claim_terms:
        return 0.0
    shared = len(claim_terms & source_terms)
    if shared < min(MIN_SHARED, len(claim_terms)):
        return 0.0
    return shared / len(claim_terms)


def conflict(claim: str, source: str, *, reference: str = "") -> Conflict | None:
    """The first rule on which ``source`` (a sentence aligned with ``claim``) contradicts it;
    ``reference`` is the whole text the sentence is from (a name must be absent from all)."""
    shared = terms(claim) & terms(source)
    return (
        _numbers(quantities(claim), quantities(source))
        or _negation(claim, source, shared)
        or _direction(claim, source)
        or _entities(claim, source, reference or source)
    )


def _numbers(claim: list[Quantity], source: list[Quantity]) -> Conflict | None:
    for q in claim:
        same = [s for s in source if s.dimension == q.dimension and q.dimension]
        if same and not any(q.agrees(s) for s in same):
            return Conflict("number", f"{q.text!r} vs {', '.join(repr(s.text) for s in same)}")
    return None


def _negation(claim: str, source: str, shared: frozenset[str]) -> Conflict | None:
    for term in sorted(shared):
        in_claim, in_source = _negated(claim, term), _negated(source, term)
        if in_claim is not None and in_source is not None and in_claim != in_source:
            which = "the claim" if in_claim else "the source"
            return Conflict("negation", f"{term!r} is negated in {which} only")
    return None


def _negated(text: str, term: str) -> bool | None:
    """Whether ``term`` occurs negated in ``text`` (None: it doesn't occur)."""
    if not term.isascii():
        at = [m.start() for m in re.finditer(re.escape(term), text)]
        return (
            any(any(c in _ZH_NEGATORS for c in text[max(0, i - 2) : i]) for i in at) if at else None
        )
    words = [w.lower() for w in _WORD.findall(text)]
    found, negated = False, False
    for i, word in enumerate(words):
        if term not in _stems(word):
            continue
        found = True
        before = words[max(0, i - _NEGATION_REACH) : i]
        negated |= any(w in _NEGATORS or w.endswith("n't") for w in before)
    return negated if found else None


@functools.lru_cache(maxsize=65536)
def _stems(word: str) -> frozenset[str]:
    return frozenset(get_analyzer("auto").terms(word))


def _direction(claim: str, source: str) -> Conflict | None:
    for up, down in _PAIRS:
        c_up, c_down = _has(claim, up), _has(claim, down)
        s_up, s_down = _has(source, up), _has(source, down)
        if c_up and not c_down and s_down and not s_up:
            return Conflict("direction", f"{c_up!r} vs {s_down!r}")
        if c_down and not c_up and s_up and not s_down:
            return Conflict("direction", f"{c_down!r} vs {s_up!r}")
    return None


def _has(text: str, prefixes: Iterable[str]) -> str:
    """The first word of ``text`` starting with one of ``prefixes`` ('' when none)."""
    for p in prefixes:
        if not p.isascii():
            if p in text:
                return p
            continue
        tail = r"[a-z\-]*" if len(p) >= 6 else r"(?:s|d|e|ed|es|ing|ion|ions|tion|tions)?"
        if m := re.search(rf"(?<![A-Za-z]){re.escape(p)}{tail}(?![A-Za-z])", text, re.I):
            return m.group(0).lower()
    return ""


def _entities(claim: str, source: str, reference: str) -> Conflict | None:
    named = {w.lower() for w in _WORD.findall(reference)}
    missing = [e for e in _names(claim) if e.lower() not in named]
    others = [e for e in _names(source) if e.lower() not in {n.lower() for n in _names(claim)}]
    if missing and others:
        return Conflict("entity", f"{', '.join(missing)} vs {', '.join(others)}")
    return None


def _names(sentence: str) -> list[str]:
    """Capitalised words not at the start of the sentence (or of a list item), and words
    with inner capitals or digits ("PostNL", "IL-6")."""
    words = _WORD.findall(re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", sentence))
    out = []
    for i, w in enumerate(words):
        inner = any(c.isupper() for c in w[1:]) or (w[0].isalpha() and any(c.isdigit() for c in w))
        if inner or (i > 0 and w[0].isupper() and w.lower() not in _NEGATORS):
            out.append(w)
    return out
