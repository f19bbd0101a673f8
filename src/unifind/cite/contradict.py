"""Does an aligned source sentence contradict a claim? What similarity can't see (issue #20).

A claim and a source sentence on the same topic (:func:`alignment`: most of the claim's
content words are in the sentence) are compared on what word overlap and embeddings are
blind to, in this order:

* quantities (:mod:`unifind.cite._numbers`): the claim's number in a dimension the source
  also states (time, money, %, a count of the same noun) matches none of the source's
  ("within 90 days" vs "within 30 days"; "48 hours" and "2 days" agree);
* negation: a word both share is negated in one and not in the other ("are not free" vs
  "are free"; Chinese 不/没/未/无/非 before the word); a claim that denies what a closely
  aligned sentence states, unless that sentence denies something about the claim's words
  too (a negator's scope is its clause: "did not bind phospholipids" backs "has no
  affinity for phospholipids", "gender may not be predictive of mortality, but women are
  at increased risk" does not back "women are not at increased risk"); a claim's word for
  an absent relation ("is unrelated to", "is independent of", "ineffective") denies like a
  negator, and a negative prefix negates its adjective ("inaccurate" vs "more accurate");
* direction: the claim and the source take opposite sides of an antonym pair (increase /
  decrease, before / after, older / newer, accepted / rejected, all / some, ...) about the
  same thing (:mod:`unifind.cite._direction`: of a source's words of that pair, the ones
  sharing the most nearby content words with the claim's decide), or state the association
  of the same things with opposite signs (:mod:`unifind.cite._sign`: "lower birth weight
  ... more likely to develop breast cancer" vs "birth weight was positively associated");
* names: the claim names someone or something the whole reference never names, where the
  source sentence names another ("from France" vs "from the Netherlands").

Rules only: a paraphrased contradiction ("had no effect on" for "reduces") needs an NLI
model, which is not available offline; what these rules can't see stays a similarity score.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from unifind.analysis import get_analyzer
from unifind.cite._compare import compared
from unifind.cite._direction import opposed, states
from unifind.cite._numbers import Quantity, quantities
from unifind.cite._sign import explicit, sign

STRONG_SHARE = 0.5
"""Share of the claim's content words a source sentence must hold to be compared at all."""
POLARITY_SHARE = 0.6
"""A denial contradicts a sentence stating the thing only when this closely aligned."""
MIN_SHARED = 2
"""...and at least this many of them (fewer when the claim has fewer)."""

_NEGATORS = frozenset(["not", "no", "never", "none", "nor", "cannot", "without", "neither"])
# Words between a negator and the word it negates ("is not yet free", "cannot be returned").
_PASS_OVER = frozenset([
    "be", "been", "being", "a", "an", "the", "any", "only", "solely", "yet", "always", "also",
    "to", "have", "has", "had", "do", "does", "did", "is", "are", "was", "were", "can",
    "could", "will", "would", "shall", "should", "may", "might", "must", "very", "so", "as",
])  # fmt: skip
_ZH_NEGATORS = "不没未无非别"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*(?:'t)?|\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Conflict:
    """Why a source sentence contradicts a claim."""

    kind: str
    """``number``, ``negation``, ``direction`` or ``entity``."""
    detail: str
    """What differs, as written ("90 days" vs "30 days")."""
    key: str = ""
    """What the claim says on that point (the shared word, the claim's direction word, the
    quantity as written), for :func:`agrees`."""
    shared: int = 0
    """For ``direction``: content words the two direction words are both about."""


@functools.lru_cache(maxsize=65536)
def terms(text: str) -> frozenset[str]:
    """Content terms (the KB's ``auto`` analyser), numbers left out (names with digits
    kept)."""
    return frozenset(t for t in get_analyzer("auto").terms(text) if not _numeric(t))


def _numeric(term: str) -> bool:
    """A number, not a name that holds digits ("dusp4", "h3k9me3", "sev1": content words)."""
    return any(c.isdigit() for c in term) and not _NAME.fullmatch(term)


# A term that starts with a letter and holds another: an identifier with digits (a gene,
# a model, an incident level); "40mg", "3rd" and "e4" stay numbers.
_NAME = re.compile(r"(?=[a-z](?:[^a-z]*[a-z]))[a-z0-9\-]+")


def alignment(claim_terms: frozenset[str], source_terms: frozenset[str]) -> float:
    """Share of the claim's content terms in the source sentence (0 when below
    :data:`MIN_SHARED` shared terms, for a claim with that many)."""
    if not claim_terms:
        return 0.0
    shared = len(claim_terms & source_terms)
    if shared < min(MIN_SHARED, len(claim_terms)):
        return 0.0
    return shared / len(claim_terms)


def conflict(
    claim: str, source: str, *, reference: str = "", closest: bool = False
) -> Conflict | None:
    """The first rule on which ``source`` (a sentence aligned with ``claim``) contradicts it;
    ``reference`` is the whole text the sentence is from (a name must be absent from all).
    ``closest``: the sentence is the reference's closest to the claim by meaning and words
    both (:meth:`unifind.cite.verdict.SourceSentences.judge`), so a denial of what it states
    contradicts it however it words the point."""
    shared = terms(claim) & terms(source)
    return (
        _numbers(quantities(claim), quantities(source))
        or _identifiers(claim, source, reference or source)
        or _negation(claim, source, shared)
        or _polarity(claim, source, closest)
        or _comparison(claim, source)
        or _signs(claim, source)
        or _entities(claim, source, reference or source)
    )


def _numbers(claim: list[Quantity], source: list[Quantity]) -> Conflict | None:
    for q in claim:
        same = [s for s in source if s.dimension == q.dimension and q.dimension]
        if same and not any(q.agrees(s) for s in same):
            detail = f"{q.text!r} vs {', '.join(repr(s.text) for s in same)}"
            return Conflict("number", detail, q.text)
    return None


# A name with a number ("caspase-11", "IL-6", "SEV1", an acronym's "BRCA 1"): the same
# name with another number is another thing.
_IDENT = re.compile(r"\b([A-Za-z]{2,})(?:[-‐]?(\d+)\b|(?<=[A-Z]{2}) (\d+)\b(?![.,]\d))")


def _identifiers(claim: str, source: str, reference: str) -> Conflict | None:
    stated = {(k, n) for m in _IDENT.finditer(source) for k, n in _variants(m)}
    known = {(k, n) for m in _IDENT.finditer(reference) for k, n in _variants(m)}
    for m in _IDENT.finditer(claim):
        name, mine = m.group(1).lower(), _variants(m)
        if mine & known:
            continue
        other = sorted(n for k, n in stated if k == name and (k, n) not in mine)
        if other:
            return Conflict("number", f"{m.group(0)!r} vs {name}-{other[0]}", m.group(0))
    return None


# The name's other numbers after a slash: "OCT3/4" is OCT3 and OCT4, "BRCA1/2" both genes.
_ALTERNATES = re.compile(r"(?:/\d+\b)+")


def _variants(m: re.Match[str]) -> set[tuple[str, str]]:
    name, rest = m.group(1).lower(), _ALTERNATES.match(m.string, m.end())
    numbers = [m.group(2) or m.group(3), *(rest.group(0).split("/")[1:] if rest else [])]
    return {(name, n) for n in numbers}


def _polarity(claim: str, source: str, closest: bool = False) -> Conflict | None:
    """The claim denies ("is not an effective treatment") what a closely aligned source
    sentence states without any negation ("is the medication of first choice"): aligned by
    :data:`POLARITY_SHARE` of the claim's words, or the reference's ``closest`` sentence."""
    if not closest and alignment(terms(claim), terms(source)) < POLARITY_SHARE:
        return None
    if closest and _ASKS.search(source):
        return None  # an aim ("to determine whether ...") states nothing to deny
    if _denies(claim) and not _states_denial(source, terms(claim)):
        return Conflict("negation", "the claim denies what the source states", "")
    return None


def _denies(claim: str) -> bool:
    """Does the claim deny something: a negator, or a word that says a relation or an
    effect is absent ("is unrelated to anxiety", "is independent of the genotype")?"""
    return _has_negator(claim) or bool(_CLAIM_DENIAL.search(claim))


# A claim's word for an absent relation or effect. A source's list is wider ("failed to",
# "lack of": in a claim those name a condition, "mice lacking FGF21 live longer"); an
# "independent risk factor" is a finding, "independent of" a denial; "unrelated donors" and
# "unaffected siblings" name a group.
_CLAIM_DENIAL = re.compile(
    r"\b(?:unrelated\s+to|independent(?:ly)?\s+of|unaffected\s+by|irrelevant|ineffective|"
    r"dispensable|(?:is|are|was|were|remains?|remained)\s+(?:\w+\s+)?(?:unaffected|unchanged))\b",
    re.I,
)


def undenied(claim: str, units: Sequence[str]) -> bool:
    """Does ``claim`` deny something ("is not necessary", "does not reduce") that no unit
    of its reference (sentences in the claim's script) denies? A reference backs a denial
    with one of its own about the claim's words — a negator ("did not bind phospholipids")
    or a word that denies ("failed to reduce", "was unchanged") — in a sentence on the
    claim's topic (:data:`DENIAL_SHARE` of its words: "women who did not have dementia at
    baseline" describes who took part); one that never does can't back it, however similar
    its sentences are. (A Chinese claim citing an English reference, or the reverse, is not
    judged.)"""
    if not _denies(claim):
        return False
    script = [u for u in units if u.isascii() == claim.isascii()]
    wanted = terms(claim)
    return bool(script) and not any(
        alignment(wanted, terms(u)) >= DENIAL_SHARE and _states_denial(u, wanted) for u in script
    )


DENIAL_SHARE = 0.3
"""Share of the claim's content words a sentence must hold for its denial to back the
claim's (the share at which :mod:`unifind.cite.verdict` lets a paraphrase speak too)."""


def _states_denial(text: str, wanted: frozenset[str]) -> bool:
    """Does ``text`` deny something about the claim's words (``wanted``): a negator with one
    of them after it in its clause (:data:`NEGATION_SCOPE`: "did not bind phospholipids"),
    or a word that denies without a negator with one within :data:`DENIAL_WORDS` either
    side ("failed to reduce mortality", "mortality was unchanged")? A denial of something
    else ("established prior to birth and not from circulating monocytes") does not state
    the claim's. Chinese: any negator or denial."""
    if not text.isascii():
        return _has_negator(text) or bool(_DENIALS.search(text))
    for clause in _CLAUSE.split(text):
        words = [w.lower() for w in _WORD.findall(clause)]
        for i in range(len(words)):
            if _negator(words, i) and _about(words[i + 1 : i + 1 + NEGATION_SCOPE], wanted):
                return True
    for m in _DENIALS.finditer(text):
        before = _WORD.findall(text[: m.start()])[-DENIAL_WORDS:]
        after = _WORD.findall(text[m.end() :])[:DENIAL_WORDS]
        if _about([w.lower() for w in before + after], wanted):
            return True
    return False


def _about(words: list[str], wanted: frozenset[str]) -> bool:
    return any(_stems(w) & wanted for w in words)


#: Words either side of a denial word that it bears on.
DENIAL_WORDS = 5
#: Words after a negator, to the end of its clause, that it bears on ("did not improve
#: survival or reduce the incidence of vascular disease").
NEGATION_SCOPE = 10
# Where a negator's scope ends: punctuation inside a sentence, a contrast.
_CLAUSE = re.compile(
    r"[,;:()\[\]]|\b(?:but|whereas|while|although|though|however|yet|unlike)\b", re.I
)


# Words that deny without a negator ("failed to reduce", "was unchanged"): a source sentence
# holding one may state the claim's denial in other words. "similar" and "comparable" deny a
# difference when said of the things compared ("were similar in both groups", "comparable to
# placebo"), not before a noun ("similar point mutations have not been identified");
# "little" only with what there was little of.
_DENIALS = re.compile(
    r"\b(?:fail(?:s|ed|ure)?|unable|lack(?:s|ed|ing)?|absen(?:ce|t)|unaffected|unchanged|"
    r"independent(?:ly)?|insufficient|ineffective|unrelated|irrelevant|dispensable|"
    r"(?:similar|comparable)(?=\s*(?:[,;:.)]|$|to\b|between\b|among\b|across\b|in\b|for\b|"
    r"with\b))|regardless|little (?:or no|effect|impact|influence|change|difference)|minimal|"
    r"negligible|marginal)\b",
    re.I,
)
# A sentence that poses the question rather than answering it, or says it is not known.
_ASKS = re.compile(
    r"\b(?:whether|aim(?:s|ed)? to|sought to|objectives?|purpose|to (?:determine|assess|"
    r"investigate|evaluate|examine|explore|estimate|compare|identify|test|study)|"
    r"little is known|(?:is|are|was|were|remains?|remained) (?:unknown|unclear))\b",
    re.I,
)


def _has_negator(text: str) -> bool:
    if not text.isascii() and any(c in _ZH_NEGATORS for c in text):
        return True
    words = [w.lower() for w in _WORD.findall(text)]
    return any(_negator(words, i) for i in range(len(words)))


def _negator(words: list[str], i: int) -> bool:
    """Is ``words[i]`` a negator? "not only X but also Y" adds, "with or without X" covers
    both, and "no" naming the group compared ("3 high biomarkers (vs no high biomarkers)",
    "better than no treatment") describes who, not what: none of them denies."""
    if not (words[i] in _NEGATORS or words[i].endswith("n't")):
        return False
    if words[i] == "without" and i > 0 and words[i - 1] == "or":
        return False
    if words[i] == "no" and i > 0 and words[i - 1] in _COMPARED:
        return False
    return i + 1 >= len(words) or words[i + 1] not in _NOT_DENYING


_NOT_DENYING = frozenset(["only", "just", "merely", "solely"])
_COMPARED = frozenset(["vs", "versus", "than"])


def _negation(claim: str, source: str, shared: frozenset[str]) -> Conflict | None:
    # A word and its negative-prefixed form are one word, negated in the second
    # ("inaccurate" against "more accurate", "unrelated" against "related").
    # A claim holding both ("from unstable to stable") is not compared on that word.
    mine = _bases(claim)
    shared = (shared - (mine & terms(claim))) | (mine & terms(source) - terms(claim))
    shared |= _bases(source) & terms(claim)
    for term in sorted(shared):
        in_claim, in_source = _negated(claim, term), _negated_like(source, term, claim)
        if in_claim is not None and in_source is not None and in_claim != in_source:
            which = "the claim" if in_claim else "the source"
            return Conflict("negation", f"{term!r} is negated in {which} only", term)
    return None


def _negated(text: str, term: str) -> bool | None:
    """Whether ``term`` occurs negated in ``text`` (None: it doesn't occur)."""
    found = _occurrences(text, term)
    return any(negated for negated, _ in found) if found else None


def _negated_like(text: str, term: str, claim: str) -> bool | None:
    """Whether ``term`` is negated in ``text`` where it is about what the claim's is: of
    several occurrences ("no association with 8 cancers; ... was associated with pancreatic
    cancer"), the ones sharing the most nearby content words with the claim's decide."""
    found = _occurrences(text, term)
    if len(found) < 2 or not term.isascii():
        return any(negated for negated, _ in found) if found else None
    about = frozenset().union(*(near for _, near in _occurrences(claim, term)))
    best = max(len(about & near) for _, near in found)
    return any(negated for negated, near in found if len(about & near) == best)


def _occurrences(text: str, term: str) -> list[tuple[bool, frozenset[str]]]:
    """Each occurrence of ``term`` in ``text``: negated or not, and the content terms within
    :data:`ANCHOR_WORDS` of it (Chinese: the whole text's)."""
    if not term.isascii():
        at = [m.start() for m in re.finditer(re.escape(term), text)]
        return [(_zh_negated(text, i), frozenset()) for i in at]
    words = [w.lower() for w in _WORD.findall(text)]
    out: list[tuple[bool, frozenset[str]]] = []
    scope = False
    for i, word in enumerate(words):
        if word in _NEGATORS or word.endswith("n't"):
            scope = _negator(words, i)  # the next content word is the one negated ("not free")
            continue
        if term in _stems(word) or term == _base(word):
            near = words[max(0, i - ANCHOR_WORDS) : i] + words[i + 1 : i + 1 + ANCHOR_WORDS]
            about = frozenset(t for w in near for t in _stems(w) if t != term and not _numeric(t))
            out.append((scope != (term == _base(word)), about))  # "not inaccurate" affirms
        # Auxiliaries and adverbs pass ("is not significantly associated").
        if scope and word not in _PASS_OVER and not (word.endswith("ly") and len(word) > 4):
            scope = False
    return out


#: Words either side of a word that say what it is about.
ANCHOR_WORDS = 6


def _zh_negated(text: str, at: int) -> bool:
    """A negator in the two characters before ``at``, not one naming the group compared
    ("与无高标志物者相比": those with no high marker)."""
    return any(
        text[k] in _ZH_NEGATORS and text[k - 1 : k] not in _ZH_COMPARED
        for k in range(max(0, at - 2), at)
    )


_ZH_COMPARED = frozenset("与比较")


def _bases(text: str) -> frozenset[str]:
    """The terms of the words ``text`` writes with a negative prefix ("inaccurate": accur)."""
    return frozenset(b for w in _WORD.findall(text) if (b := _base(w.lower())))


@functools.lru_cache(maxsize=65536)
def _base(word: str) -> str:
    """The term of the adjective a negative prefix denies ("inaccurate", "insufficient",
    "irrelevant", "unrelated", "unstable"), or "". Only before an adjective's ending, so
    "improve" (prove), "impaired" (paired) and "inform" are no negations; "un" also before
    a participle ("unaffected"). "non-" is left out: it names a group compared
    ("nonsmokers", "non-diabetic"), as does "inpatient"."""
    m = _PREFIXED.fullmatch(word)
    if m is None or word in _NOT_PREFIXED:
        return ""
    stems = _stems(m.group(2) or m.group(4))
    return next(iter(stems)) if len(stems) == 1 and not stems & _stems(word) else ""


_PREFIXED = re.compile(
    r"(un)([a-z]{2,}(?:ed|able|ible|ive|ate|ant|ent|al|ic|ous|ful|ar|ct|id|ure|ile|ly))"
    r"|(in|im|il|ir)([a-z]{2,}(?:able|ible|ive|ate|ant|ent|al|ic|ous|ar|ct|id|ure|ile|ete))"
)
_NOT_PREFIXED = frozenset(["inpatient", "inpatients", "inherent", "innate", "interval",
                           "internal", "intestinal", "intimate", "unilateral"])  # fmt: skip


@functools.lru_cache(maxsize=65536)
def _stems(word: str) -> frozenset[str]:
    return frozenset(get_analyzer("auto").terms(word))


def _direction(claim: str, source: str) -> Conflict | None:
    if _ASKS.search(source):
        return None  # "to assess whether X decreases Y" asks, it does not say X does
    found = opposed(claim, source)
    if found is None:
        return None
    mine, theirs, shared = found
    return Conflict("direction", f"{mine.word!r} vs {theirs.word!r}", mine.word, shared)


def _comparison(claim: str, source: str) -> Conflict | None:
    """The source's figures for the two sides the claim compares decide the comparison
    (:mod:`unifind.cite._compare`); without them, the direction words do."""
    stated = compared(claim, source)
    if stated is None:
        return _direction(claim, source)
    return None if stated else Conflict("number", "the source's figures compare the other way")


def _signs(claim: str, source: str) -> Conflict | None:
    """The claim and the source state the association of the same things with opposite
    signs (:mod:`unifind.cite._sign`)."""
    if claim.isascii() != source.isascii() or _ASKS.search(source):
        return None
    if not (explicit(claim) or explicit(source)):
        return None
    about = terms(claim) - _LINK_TERMS
    mine = sign(claim, about)
    theirs = sign(source, about) if mine else 0
    if mine and theirs and mine != theirs:
        key = _SIGN_KEYS[mine]
        return Conflict("direction", f"{key} vs {_SIGN_KEYS[theirs]}", key)
    return None


_SIGN_KEYS = {1: "a positive association", -1: "a negative association"}
# The link words themselves are not what the association is between.
_LINK_TERMS = frozenset(["associ", "correl", "relat", "relationship", "link", "like", "risk",
                         "相关", "关联", "呈", "正相关", "负相关", "逆相关"])  # fmt: skip


def anchored_direction(claim: str, source: str) -> Conflict | None:
    """:func:`conflict`'s direction rule for a sentence less aligned with the claim: the
    opposite words must share :data:`ANCHORED` content words or more (what they modify,
    who does it), not one."""
    found = _direction(claim, source)
    return found if found is not None and found.shared >= ANCHORED else None


#: Content words a direction word and its opposite share for a less aligned sentence.
ANCHORED = 2


def agrees(claim: str, source: str, found: Conflict) -> bool:
    """Does ``source`` state the point ``found`` is about as the claim does? (A sentence as
    aligned as the contradicting one that agrees leaves the claim uncontradicted; one that
    is silent on the point doesn't.)"""
    if found.kind == "number":
        claimed = [q for q in quantities(claim) if q.text == found.key]
        stated = quantities(source)
        return any(q.agrees(s) for q in claimed for s in stated)
    if found.kind == "negation" and not found.key:
        return not _ASKS.search(source) and _states_denial(source, terms(claim))
    if found.kind == "negation":
        # Where the word is about what the claim's is ("no association with 8 cancers; ...
        # associated with prostate cancer" does not agree with "not associated with
        # prostate cancer").
        return _negated_like(source, found.key, claim) == _negated(claim, found.key)
    if found.kind == "direction" and found.key in _SIGN_KEYS.values():
        about = terms(claim) - _LINK_TERMS
        return not _ASKS.search(source) and sign(source, about) == sign(claim, about)
    if found.kind == "direction":
        # An aim ("to assess whether HPV testing decreases detection") states no direction.
        return not _ASKS.search(source) and states(source, claim, found.key, found.shared)
    return False


def _entities(claim: str, source: str, reference: str) -> Conflict | None:
    if _ASKS.search(source):
        return None
    lowered = reference.lower()
    missing = [e for e in _names(claim) if e.lower() not in lowered]
    mine = {n.lower() for n in _names(claim)}
    others = [e for e in _names(source) if e.lower() not in mine]
    if missing and others:
        return Conflict("entity", f"{', '.join(missing)} vs {', '.join(others)}", missing[0])
    return None


def _names(sentence: str) -> list[str]:
    """Proper names: capitalised words ("France", "Utrecht") not at the start of the
    sentence or of a list item. Acronyms and gene names ("ESCs", "fox0", "IL-6") are left
    out: their spellings vary too much between a claim and its source to call a swap."""
    body = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", sentence)
    words = list(_WORD.finditer(body))
    return [m.group(0) for i, m in enumerate(words)
            if i > 0 and _PROPER.fullmatch(m.group(0)) and not _glued(body, m)]  # fmt: skip


def _glued(text: str, m: re.Match[str]) -> bool:
    """Is the word one part of a compound name ("PD-1+Eomes+CD8", "CD8/Treg ratio")?"""
    return text[m.start() - 1 : m.start()] in _JOINS or text[m.end() : m.end() + 1] in _JOINS


_JOINS = frozenset(["+", "/"])


_PROPER = re.compile(r"[A-Z][a-z]{2,}")
