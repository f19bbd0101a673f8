"""A verdict per (sentence, cited id), the source sentence that decided it, and which
uncited sentences state a fact (issue #20).

Each cited id is judged on its own: ``supported`` (its support probability reaches the
threshold and no aligned sentence of it contradicts the claim), ``contradicted`` (the
sentence of it most aligned with the claim says otherwise: :mod:`unifind.cite.contradict`),
``not_supported`` (neither), ``unknown_id`` (no reference shown has it). A factual sentence
that cites nothing is an ``uncited_claim``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from unifind.cite._null import null_finding
from unifind.cite._numbers import quantities
from unifind.cite.contradict import (
    STRONG_SHARE,
    Conflict,
    agrees,
    alignment,
    anchored_direction,
    conflict,
    terms,
)
from unifind.cite.sentences import sentences

VerdictKind = Literal["supported", "contradicted", "not_supported", "unknown_id", "uncited_claim"]
VERDICTS: tuple[VerdictKind, ...] = (
    "supported", "contradicted", "not_supported", "unknown_id", "uncited_claim"
)  # fmt: skip

COSINE_STRONG = 0.85
"""An embedding cosine (bge-small) at which a sentence sharing fewer words is aligned too."""
WEAK_SHARE = 0.3
COSINE_NEAR = 0.04
"""How far below the reference's best cosine a sentence is still among its closest."""
COSINE_FLOOR = 0.7
"""...and the least cosine at which the closest sentence speaks for the claim at all."""
_NEAR = 0.2  # how much less aligned a sentence may be and still speak for the claim
DIRECTION_SHARE = 0.4
"""A sentence sharing this much of the claim's words (less than :data:`STRONG_SHARE`) is
compared on direction words anchored to the claim's thing (:func:`anchored_direction`): "PDS
reduces proliferation of HR-defective cells" against "Pyridostatin increases proliferation
of homologous recombination-defective cells", where the names are spelt differently."""
#: Units of one reference that are aligned with a claim (a pasted page keeps its first).
MAX_UNITS = 400


@dataclass(frozen=True)
class Evidence:
    """The sentence of a cited reference that decided a verdict."""

    citation_id: str
    sentence: str
    """The reference's sentence (a table row, a list item) most aligned with the claim, or
    the one that contradicts it."""
    alignment: float
    """Share of the claim's content words in that sentence, 0-1."""


@dataclass(frozen=True)
class CitationVerdict:
    """One (sentence, cited id) pair as the check judged it."""

    sentence: str
    citation: str | None
    """The id or index as cited (``ref_002``, ``3``); None for an uncited claim."""
    verdict: VerdictKind
    reason: str
    """Why, in words a reader can check ("'90 days' vs '30 days'")."""
    evidence: Evidence | None = None
    probability: float | None = None
    """The support model's probability for this id alone (None: not scored)."""
    rule: str | None = None
    """For ``contradicted``: ``number``, ``negation``, ``direction`` or ``entity``."""


@dataclass
class SourceSentences:
    """A reference's units (sentences, rows, items) and their terms, kept for one answer."""

    _cache: dict[str, tuple[list[str], list[frozenset[str]]]] = field(default_factory=dict)

    def units(self, text: str) -> tuple[list[str], list[frozenset[str]]]:
        if text not in self._cache:
            units = [u for u in sentences(text) if u.strip()][:MAX_UNITS]
            self._cache[text] = (units, [terms(u) for u in units])
        return self._cache[text]

    def judge(
        self,
        claim: str,
        citation_id: str,
        text: str,
        similar: Sequence[tuple[str, float]] = (),
    ) -> tuple[Evidence | None, Conflict | None]:
        """The reference sentence most aligned with ``claim`` and, when the most aligned
        ones all contradict it, how. ``similar``: the reference's sentences with their
        embedding cosine to the claim; one at :data:`COSINE_STRONG` or more that shares
        :data:`WEAK_SHARE` of the claim's words is aligned too (a paraphrase)."""
        units, unit_terms = self.units(text)
        claim_terms = terms(claim)
        scored = [(alignment(claim_terms, t), i) for i, t in enumerate(unit_terms)]
        closest: set[int] = set()
        top = max((cosine for _, cosine in similar), default=0.0)
        for sentence, cosine in similar:
            share = alignment(claim_terms, terms(sentence))
            if share < WEAK_SHARE:
                continue
            # The reference's closest sentence by meaning that shares words too speaks for
            # the claim however it words it; so does one the embedder puts very close.
            near = cosine >= max(top - COSINE_NEAR, COSINE_FLOOR)
            if near or (cosine >= COSINE_STRONG and share < STRONG_SHARE):
                units = [*units, sentence]
                scored.append((max(share, STRONG_SHARE), len(units) - 1))
                if near:
                    closest.add(len(units) - 1)
        scored = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        if not scored:
            return None, None
        top, best = scored[0]
        best_evidence = Evidence(citation_id, units[best], round(top, 3))
        for share, i in scored:
            if share < DIRECTION_SHARE:
                break
            if share >= STRONG_SHARE:
                found = conflict(claim, units[i], reference=text, closest=i in closest)
            else:  # less aligned: only a direction word about the claim's own thing
                found = anchored_direction(claim, units[i])
            if found is None:
                continue
            # A sentence at least as aligned that states the point as the claim does wins;
            # one silent on it (an abstract's "OBJECTIVE To determine ...") does not.
            # A less aligned one only when it is about everything the contradicting one is
            # ("not associated with bladder cancer" does not answer "associated with
            # prostate cancer"), when that one is strongly aligned: a less aligned one shares
            # words by chance ("at a rate of 4.98 kg/mo").
            strong = found.key and share >= STRONG_SHARE
            about = claim_terms & terms(units[i]) if strong else frozenset()
            rivals = [units[j] for s, j in scored if units[j] != units[i] and (
                s >= share or (s >= share - _NEAR and about <= terms(units[j])))]  # fmt: skip
            if not any(agrees(claim, u, found) for u in rivals):
                return Evidence(citation_id, units[i], round(share, 3)), found
        # No rule fired: a closely aligned sentence that reports the claim's effect as
        # absent ("was not associated with", "did not reduce") contradicts a claim stating it.
        for share, i in scored:
            if share < STRONG_SHARE and i not in closest:
                continue
            if (clause := null_finding(claim, units[i], units)) is not None:
                why = f"the source reports no such finding: {clause[:120]!r}"
                return Evidence(citation_id, units[i], round(share, 3)), Conflict("negation", why)
        return best_evidence, None


# -- which uncited sentences claim something ----------------------------------------------

_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*$)|:\s*$")
# First-person meta, courtesy and hedges: the answer talking about itself, not the world.
_META = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:i|i'm|i am|i'd|i'll|i've|let me|let's|we can't|hope|feel free|"
    r"please|sorry|thanks|thank you|hi|hello|sure|of course|in short|in summary|overall|"
    r"here is|here are|here's|if you|note that|you may want|based on|according to the "
    r"references|the references|the sources|these sources|i could not|i couldn't)\b",
    re.I,
)
_NO_ANSWER = re.compile(r"\b(?:do(?:es)? not|don't|doesn't|cannot|can't)\s+(?:say|mention|"
                        r"contain|specify|state|cover|answer)\b", re.I)  # fmt: skip
_ZH_META = re.compile(r"^\s*(?:你好|您好|谢谢|希望|请|抱歉|对不起|以下|总之|根据参考|参考资料中)")
_ZH_CLAIM = re.compile(r"[是有会需要可以必须应当将为在于]")
_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|can|cannot|can't|must|will|won't|shall|"
    r"should|may|might|do|does|did|don't|doesn't|didn't|isn't|aren't|wasn't|weren't)\b"
    r"|\b[a-z]{3,}(?:s|ed)\b",
    re.I,
)


def factual(sentence: str) -> bool:
    """Does ``sentence`` state a fact a source should back? Not a question, heading, label
    ("Steps:"), greeting, courtesy, hedge or note about the answer itself; a statement with
    a number or date, a name, or a verb over a few content words."""
    s = sentence.strip()
    if not s or s.endswith(("?", "？")) or _HEADING.search(s):
        return False
    if _META.match(s) or _ZH_META.match(s) or _NO_ANSWER.search(s):
        return False
    content = terms(s)
    if any("\u4e00" <= c <= "\u9fff" for c in s):
        return len(s) >= 6 and (bool(quantities(s)) or bool(_ZH_CLAIM.search(s)))
    if len(content) < 2:
        return False
    if quantities(s) or any(c.isdigit() for c in s):
        return True
    body = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", s)
    names = re.findall(r"(?<=\s)[A-Z][a-z]+", body)
    return bool(names) or (len(content) >= 3 and bool(_VERB.search(body)))
