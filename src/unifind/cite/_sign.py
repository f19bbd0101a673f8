"""The sign of an association (issue #20): "Women with a lower birth weight are more likely
to develop breast cancer" says the association is negative; "Birth weight was positively
associated with breast cancer risk" says it is positive, and "heavier birth weights were
associated with increased breast cancer risk" too (two rises).

A clause that links two things ("associated with", "correlated", "more likely to", "a
relationship between") has a sign: the product of its explicit sign word ("positively",
"inverse", "negative") and of the direction words written before the things it links
("*lower* birth weight", "*increased* breast cancer risk", "*reduction* in hip fracture
risk"). A claim and a source sentence whose clauses about the same things (two of the
claim's content words or more) have opposite signs contradict. Chinese: the sign word of
"正相关" / "负相关" / "逆相关" (a rise written before a thing is the direction rule's).
"""

from __future__ import annotations

import functools
import re

from unifind.analysis import get_analyzer

# A clause that states an association, and one that only asks or denies it.
_LINK = re.compile(
    r"\b(?:associat\w*|correlat\w*|relat(?:ed|ion|ionship)s?|link(?:ed|s)?|likely)\b",
    re.I,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")
_CLAUSE = re.compile(r"[;:()\[\]]|\b(?:but|whereas|while|although|though|however)\b", re.I)
_NOT_STATED = re.compile(
    r"\b(?:not|no|never|nor|whether|if|aim\w*|unclear|unknown|hypothes\w*)\b|n't\b",
    re.I,
)
_EXPLICIT = {"positive": 1, "positively": 1, "negative": -1, "negatively": -1,
             "inverse": -1, "inversely": -1}  # fmt: skip
# A direction word before what it qualifies ("*lower* birth weight", "*reduction* in risk").
_UP = re.compile(r"(?:high|higher|highest|great|greater|large|larger|heavy|heavier|increas\w*|"
                 r"elevat\w*|more|long|longer|tall|taller|rais\w*)", re.I)  # fmt: skip
_DOWN = re.compile(r"(?:low|lower|lowest|small|smaller|light|lighter|few|fewer|less|short|"
                   r"shorter|decreas\w*|reduc\w*|declin\w*)", re.I)  # fmt: skip
# Words that may stand between a direction word and its thing ("reduction *in the* risk").
_BETWEEN = frozenset(["in", "of", "the", "a", "an", "to", "develop", "have", "be"])


def sign(text: str, about: frozenset[str]) -> int:
    """+1 or -1: the sign of the association ``text`` states about the content terms
    ``about`` (two of them or more in one clause); 0 when it states none, asks, denies or
    gives no sign word."""
    if not text.isascii():
        return _zh_sign(text, about)
    best, best_shared = 0, 1
    for clause in _CLAUSE.split(text):
        if not clause or not _LINK.search(clause) or _NOT_STATED.search(clause):
            continue
        words = _WORD.findall(clause)
        shared = {t for w in words for t in _terms(w)} & about
        if len(shared) <= best_shared:
            continue
        value = _clause_sign([w.lower() for w in words], about)
        if value:
            best, best_shared = value, len(shared)
    return best


def explicit(text: str) -> bool:
    """Does ``text`` write the sign as a word ("positively", "an inverse association",
    负相关)? Two signs both composed of direction words are not compared: which thing each
    word qualifies is read too loosely for that ("genes associated with Treg function confer
    a higher risk")."""
    if not text.isascii():
        return bool(_ZH_SIGN.search(text))
    return any(w.lower() in _EXPLICIT for w in _WORD.findall(text))


def _clause_sign(words: list[str], about: frozenset[str]) -> int:
    factors = []
    for i, w in enumerate(words):
        if w in _EXPLICIT:
            factors.append(_EXPLICIT[w])
            continue
        side = 1 if _UP.fullmatch(w) else -1 if _DOWN.fullmatch(w) else 0
        if side and _qualifies(words, i, about):
            factors.append(side)
    value = 1
    for f in factors:
        value *= f
    return value if factors else 0


def _qualifies(words: list[str], i: int, about: frozenset[str]) -> bool:
    """Does the direction word at ``i`` qualify one of the linked things (or the link:
    "more likely", "increased risk")?"""
    for w in words[i + 1 : i + 4]:
        if w == "likely" or w == "risk" or _terms(w) & about:
            return True
        if w not in _BETWEEN:
            return False
    return False


@functools.lru_cache(maxsize=65536)
def _terms(word: str) -> frozenset[str]:
    return frozenset(get_analyzer("auto").terms(word))


_ZH_SIGN = re.compile("([正负逆反])(?:向)?相关")
_ZH_CLAUSE = re.compile("[；;，,：:（）()]|但|然而|而")


def _zh_sign(text: str, about: frozenset[str]) -> int:
    for clause in _ZH_CLAUSE.split(text):
        m = _ZH_SIGN.search(clause)
        if m is None or any(c in "不没未无非" for c in clause[max(0, m.start() - 2) : m.start()]):
            continue  # "不呈正相关" states no sign
        if len(frozenset(get_analyzer("auto").terms(clause)) & about) >= 2:
            return 1 if m.group(1) == "正" else -1
    return 0
