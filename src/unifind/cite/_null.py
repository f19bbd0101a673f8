"""A finding the source reports as absent, against a claim that states it (issue #20).

"Bariatric surgery reduces colorectal cancer" citing "No association was detected between
bariatric surgery and fractures, cancer, or stroke"; "Headaches are correlated with
cognitive impairment" citing "Evidence was lacking for cognitive impairment for any headache
type". A study that looked for an effect and reports none says the claim's effect is not
there: the claim that states it is contradicted by that sentence. The rule reads English
only: a claim that states an effect or an association (no negator, no denial of its own),
and a source clause that reports its absence ("no association", "not associated with",
"did not reduce", "no significant difference", "evidence was lacking", "failed to show")
about at least :data:`MIN_ABOUT` of the claim's content words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from unifind.analysis import get_analyzer

#: Claim words the source's null clause must share (what the absence is of).
MIN_ABOUT = 2

# A claim that states an effect, a difference or an association.
_EFFECT = re.compile(
    r"\b(?:increas|decreas|reduc|improv|rais|lower|higher|greater|worsen|promot|inhibit|"
    r"prevent|caus|induc|lead|leads|led|associat|correlat|link|predict|protect|benefit|"
    r"effective|efficac|affect|impair|enhanc|suppress|accelerat|delay|risk|rise|rose|risen|"
    r"rising|fall|fell|declin|grow|grew)\w*",
    re.I,
)
# The claim's own negators and denials: a claim that denies is the other rule's.
_CLAIM_DENIES = re.compile(
    r"\b(?:not|no|never|none|nor|neither|without|cannot|fail\w*|unrelated|unaffected|"
    r"unchanged|independent\w*|lack\w*|absen\w*|ineffective|similar|comparable)\b|n't\b",
    re.I,
)
_FINDING = (
    r"(?:associat\w*|correlat\w*|link\w*|relat\w*|differ\w*|effect\w*|affect\w*|impact\w*|"
    r"benefit\w*|chang\w*|increas\w*|decreas\w*|reduc\w*|improv\w*|influenc\w*|predict\w*|"
    r"alter(?:s|ed|ing|ations?)?\b|evidence|role|risk)"
)
# A failure: "failed to reduce mortality" is a null finding, but after a loss of function
# ("mice lacking osteocytes fail to mobilize HSPCs") it states that the thing is needed (a
# double negative). A loss of function "without affecting sarcopenia" is a null finding.
_FAILED = r"\b(?:fail\w*|unable)\s+to\s+\w+"
_FAILED_RE = re.compile(_FAILED, re.I)
# A clause that reports an absence: a negator a few words before a finding word, a finding
# that "was lacking", "failed to" / "did not" / "was unrelated".
_NULL = re.compile(
    rf"\b(?:no|not|nor|neither|never)\b(?:\s+[\w-]+){{0,3}}?\s+{_FINDING}"
    rf"|\bwithout\s+(?:significantly\s+|any\s+|an?\s+)?{_FINDING}"
    r"|\b(?:was|were|is|are|remained|remains)\s+(?:\w+\s+)?stable\b"
    rf"|{_FAILED}|\b{_FINDING}\s+(?:was|were|is|are)\s+(?:lacking|absent)"
    r"|\b(?:lack|absence)\s+of\s+(?:an?\s+)?(?:significant\s+)?"
    + _FINDING
    + r"|\b(?:was|were|is|are|be|been|remained|remains)\s+(?:\w+\s+)?(?:unrelated|unaffected|"
    r"unchanged)\b|\bunrelated\s+to\b|\bunaffected\s+by\b|n't\s+" + _FINDING,
    re.I,
)
_DEPRIVED = re.compile(
    r"\b(?:lack\w*|absen\w*|without|loss|deficien\w*|deplet\w*|delet\w*|knock\w*|"
    r"null|abolish\w*|ablat\w*|block\w*|inhibit\w*|-/-)",
    re.I,
)
# A clause ends at punctuation inside the sentence or at a contrast.
_CLAUSE = re.compile(
    r"[;:()\[\]]|\b(?:but|whereas|while|although|though|however|yet|unlike)\b", re.I
)
# A sentence that asks rather than finds ("to determine whether", "remains unknown").
_ASKS = re.compile(
    r"\b(?:whether|aim(?:s|ed)? to|sought to|objectives?|purpose|hypothes\w*|"
    r"to (?:determine|assess|investigate|evaluate|examine|explore|estimate|compare|identify|"
    r"test|study)|little is known|unknown|unclear)\b",
    re.I,
)


# Chinese: a claim with an effect word and no negator; a clause with a negator before a
# finding word ("未显著降低", "没有关联", "无显著差异", "与……无关").
_ZH_EFFECT = re.compile(
    "增加|升高|提高|降低|减少|下降|改善|导致|引起|促进|抑制|相关|关联|预防|影响"
)
_ZH_NEGATOR = re.compile("[不没未无非]")
_ZH_NULL = re.compile(
    "(?:[没未无不]有?|并未|并无)(?:明显|显著|统计学)?(?:的)?"
    "(?:关联|相关|差异|影响|效果|作用|降低|减少|增加|升高|提高|改善|变化)|无关"
)
_ZH_CLAUSE = re.compile("[；;：:（）()]|但|然而|而")


def _terms(text: str) -> frozenset[str]:
    return frozenset(t for t in get_analyzer("auto").terms(text) if not t.isdigit())


def states_effect(claim: str) -> bool:
    """Does ``claim`` state an effect or association, without denying one?"""
    if not claim.isascii():
        return bool(_ZH_EFFECT.search(claim)) and not _ZH_NEGATOR.search(claim)
    return bool(_EFFECT.search(claim)) and not _CLAIM_DENIES.search(claim)


def null_finding(claim: str, source: str, reference: Sequence[str] = ()) -> str | None:
    """The clause of ``source`` that reports as absent what ``claim`` states (None: none
    does). Only for a claim that :func:`states_effect`, and a source sentence that reports
    a finding (not an aim or a question); a clause of ``reference`` (its sentences) that
    states an effect about more of the claim's words wins."""
    if not states_effect(claim) or claim.isascii() != source.isascii():
        return None
    if not claim.isascii():
        return _zh_null(claim, source)
    if _ASKS.search(source):
        return None
    if _FAILED_RE.search(source) and _DEPRIVED.search(_NULL.sub(" ", source)):
        return None
    wanted = _terms(claim)
    # The claim's words the reference uses anywhere: the null clause must be about all of
    # them but its effect words ("no association between breast cancer and gestational
    # age" is not about a claim's birth weight when the reference speaks of it elsewhere).
    named = wanted & frozenset().union(*(_terms(u) for u in reference)) if reference else wanted
    for clause in _CLAUSE.split(source):
        mine = _terms(clause) & wanted if clause else frozenset()
        if len(mine) < MIN_ABOUT or not _NULL.search(clause) or not named <= mine | _general(claim):
            continue
        # A clause elsewhere in the reference that states an effect about more of the
        # claim's words is the finding the claim reports ("no association with 8 of the 10
        # cancers; ... was associated with increased risk of prostate cancer").
        if not any(_affirms(c, wanted, len(mine)) for u in reference for c in _CLAUSE.split(u)):
            return clause.strip()
    return None


def _general(claim: str) -> frozenset[str]:
    """The claim's effect words: the null clause words its finding its own way."""
    return _terms(" ".join(m.group(0) for m in _EFFECT.finditer(claim)))


def _affirms(clause: str, wanted: frozenset[str], than: int) -> bool:
    return (
        bool(clause)
        and len(_terms(clause) & wanted) > than
        and bool(_EFFECT.search(clause))
        and not _NULL.search(clause)
    )


def _zh_null(claim: str, source: str) -> str | None:
    wanted = _terms(claim)
    for clause in _ZH_CLAUSE.split(source):
        if _ZH_NULL.search(clause) and len(_terms(clause) & wanted) >= MIN_ABOUT:
            return clause.strip()
    return None
