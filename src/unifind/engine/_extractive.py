"""The answer without an LLM: the references' sentences that answer the question, cited.

A sentence answers when it holds the kind of fact asked for (:mod:`unifind.engine._question`:
a duration for "how long", an amount for "how much", the steps for "how do I") and shares
the question's content words, in itself or under its heading. The most similar sentence is
not the answer: "what is our refund window?" is most like "gift cards are refunded as
credit", while the fact is "returns are accepted within 30 days of delivery" (issue #20).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from unifind.agent.support import sentences
from unifind.analysis import get_analyzer
from unifind.cite import References
from unifind.engine._question import Kind, asks_window, holds, is_step, question_kind, states_limit

#: At most this many sentences in an answer (a list of steps: :data:`MAX_STEPS`).
MAX_LINES = 3
MAX_STEPS = 8
#: The references read for an answer, best first.
MAX_REFS = 5
#: A sentence scoring at least this share of the best one's score is kept with it.
KEEP = 0.75

_HEADING = re.compile(r"^\s*#{1,6}\s+(.*)$")
_MARKER = re.compile(r"\s*(?:\d+[.)、]|[-*+•])\s*")
# Question words and words that name the kind of fact asked for: they say what is asked,
# not what about, so a sentence sharing them answers nothing ("how long", "what is").
_ASKING = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "have",
        "has",
        "had",
        "i",
        "we",
        "you",
        "they",
        "our",
        "your",
        "my",
        "me",
        "us",
        "their",
        "there",
        "the",
        "a",
        "an",
        "of",
        "to",
        "for",
        "in",
        "on",
        "at",
        "by",
        "with",
        "about",
        "long",
        "much",
        "many",
        "take",
        "get",
        "need",
        "window",
        "deadline",
        "period",
        "limit",
        "timeframe",
        "time",
        "cost",
        "price",
        "fee",
        "fees",
        "step",
        "steps",
        "process",
        "procedure",
        "way",
        "any",
        "it",
        "this",
        "that",
        "please",
        "tell",
        "know",
        "什么",
        "谁",
        "哪",
        "哪里",
        "哪儿",
        "哪个",
        "哪些",
        "哪位",
        "怎么",
        "怎样",
        "如何",
        "多久",
        "多少",
        "多长",
        "几",
        "时候",
        "什么时候",
        "何时",
        "吗",
        "呢",
        "是否",
        "能否",
        "可以",
        "需要",
        "要",
        "我",
        "我们",
        "你",
        "你们",
        "的",
        "了",
        "是",
        "有",
        "期限",
        "时限",
        "费用",
        "价格",
        "步骤",
        "流程",
        "多长时间",
    ]
)


@dataclass(frozen=True)
class _Sentence:
    text: str
    cite: str
    heading: str
    rank: int  # the reference's place, 0 = best
    place: int  # the sentence's place in its reference


def extractive_answer(refs: References, question: str, keywords: Sequence[str] = ()) -> list[str]:
    """The lines of an answer from ``refs`` (``sentence [ref_001]``), best first; empty when
    the references hold no sentence."""
    want = _content_terms(question, keywords)
    found = _sentences(refs)
    if not found:
        return []
    kind = question_kind(question)
    if kind == "steps" and (steps := _steps(found, want)):
        return steps
    scored = [(s, _score(s, want, kind, question)) for s in found]
    typed = [(s, v) for s, v in scored if v[0] and v[1] > 0]
    pool = typed or [(s, v) for s, v in scored if v[1] > 0]
    if not pool:  # nothing shares a word: the best reference's first sentence, as before
        first = found[0]
        return [f"{_plain(first.text)} [{first.cite}]"]
    pool.sort(key=lambda sv: (-sv[1][1], sv[0].rank, sv[0].place))
    top = pool[0][1][1]
    # Sentences close to the best one are kept too: "how long do refunds take?" has two
    # answers (issued in 5 days, on the statement 2 to 7 days later).
    kept = [s for s, v in pool if v[1] >= KEEP * top][:MAX_LINES]
    return [f"{_plain(s.text)} [{s.cite}]" for s in kept]


def _content_terms(question: str, keywords: Sequence[str]) -> set[str]:
    analyzer = get_analyzer("auto")
    skip = {t for w in _ASKING for t in analyzer.terms(w)} | _ASKING
    terms = set(analyzer.terms(question)) | set(analyzer.terms(" ".join(keywords)))
    return {t for t in terms if t not in skip}


def _sentences(refs: References) -> list[_Sentence]:
    """Each reference's sentences with the heading they sit under (else its title)."""
    out: list[_Sentence] = []
    seen: set[str] = set()
    for rank, ref in enumerate(refs.references[:MAX_REFS]):
        heading = ref.title or ""
        for place, text in enumerate(_pieces(ref.content or "")):
            if m := _HEADING.match(text):
                heading = m.group(1)
            # A chunk may start mid-sentence ("escalates to the secondary, ..."): a
            # fragment, not a claim; and overlapping chunks repeat sentences.
            elif not (place == 0 and text[:1].islower()) and text not in seen:
                seen.add(text)
                out.append(_Sentence(text, str(ref.citation_id), heading, rank, place))
    return out


def _pieces(content: str) -> list[str]:
    """The content's sentences, a list item's marker ("1.") kept with its item."""
    out: list[str] = []
    for piece in sentences(content):
        text = piece.replace("**", "").strip()
        if out and _MARKER.fullmatch(out[-1]):
            out[-1] = f"{out[-1]} {text}"
        elif text:
            out.append(text)
    return [t for t in out if len(t) > 2 and not _MARKER.fullmatch(t)]


def _score(s: _Sentence, want: set[str], kind: Kind, question: str) -> tuple[bool, float]:
    """(holds the kind asked for, how well it answers): the content words it shares, its
    heading's at half weight, and a limit counted from an event when a window is asked."""
    analyzer = get_analyzer("auto")
    own = want & set(analyzer.terms(s.text))
    under = (want - own) & set(analyzer.terms(s.heading))
    score = len(own) + 0.5 * len(under)
    if score and asks_window(question) and states_limit(s.text):
        score += 1.0
    form = holds(kind, _plain(s.text)) if kind != "steps" else float(is_step(s.text))
    if score and form:  # a date answers "when" more directly than a duration does
        score += 0.5 * form
    return bool(form), score


def _steps(found: list[_Sentence], want: set[str]) -> list[str]:
    """The list items of the section that best matches the question, in order."""
    analyzer = get_analyzer("auto")
    sections: dict[tuple[str, str], list[_Sentence]] = {}
    for s in found:
        sections.setdefault((s.cite, s.heading), []).append(s)

    def match(key: tuple[str, str]) -> float:
        words = " ".join([key[1], *(s.text for s in sections[key])])
        return len(want & set(analyzer.terms(words))) + len(want & set(analyzer.terms(key[1])))

    listed = [k for k, v in sections.items() if sum(is_step(s.text) for s in v) >= 2]
    best = max(listed, key=match, default=None)
    if best is None or not match(best):
        return []
    items = [s for s in sections[best] if is_step(s.text)][:MAX_STEPS]
    return [f"{s.text} [{s.cite}]" for s in items]


def _plain(text: str) -> str:
    """A list item without its marker ("2. Choose" is not the number 2)."""
    return re.sub(r"^\s*(?:\d+[.)、]|[-*+•])\s+", "", text)
