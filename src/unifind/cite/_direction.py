"""Direction words and what they are about (issue #20): "decreases *the risk of bleeding*"
contradicts "was associated with an increased *risk of postoperative bleeding*" even when the
same sentence also says "decreased the risk of nausea".

A direction word is one side of an antonym pair (increase / decrease, before / after, older /
newer, accepted / rejected, all / some, ...). Each occurrence is read with the content words
around it (:data:`ANCHOR_WORDS` either side: what it modifies, who does it). A claim's word
is compared with the source's words of the same pair that share the most of those words
with it — first by what each acts on (the words right after it: "promotes *β-catenin
degradation* and inhibits *differentiation*") — and the claim is contradicted when those are
all on the other side. A negated occurrence ("did not increase") is no side: the negation
rules read it. A word acting on a change is one direction, the product of the two
("inhibits checkpoint activation"); a word naming a kind is none ("an inhibitory receptor");
a source's ratio above or below 1 is one (:mod:`unifind.cite._ratios`). Chinese text has no
word spaces: a Chinese word is compared with the whole sentence.
"""

from __future__ import annotations

import functools
import re

from unifind.analysis import get_analyzer
from unifind.cite._pairs import PAIRS, Occurrence
from unifind.cite._pairs import numeric as _numeric
from unifind.cite._pairs import sides as _sides
from unifind.cite._pairs import terms as _terms
from unifind.cite._pairs import word_terms as _word_terms
from unifind.cite._ratios import ratios

_CJK = re.compile(r"[\u4e00-\u9fff]")
_ZH_MORE = next(i for i, (more, _) in enumerate(PAIRS) if "增加" in more)

#: Words either side of a direction word that say what it is about ("increases *the risk
#: of bleeding*", "rapid *weight* loss").
ANCHOR_WORDS = 6

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*(?:'t)?|\d+(?:[.,]\d+)*")
_NEGATORS = frozenset(["not", "no", "never", "nor", "cannot", "without", "neither"])
# Between a negator and the word it negates ("did not significantly increase").
_PASS_OVER = frozenset(["be", "been", "being", "a", "an", "the", "any", "to", "have", "has",
                        "had", "do", "does", "did", "is", "are", "was", "were", "can", "could",
                        "will", "would", "may", "might", "must", "should", "yet"])  # fmt: skip


def occurrences(text: str, *, changes: bool = False, figures: bool = False) -> list[Occurrence]:
    """The direction words of ``text`` that are not negated nor a bound ("at least"); a
    word acting on a change ("inhibits checkpoint activation") is read with it as one
    (the change's pair, the product of the sides). ``changes``: the change stays a word of
    its own too (a source's "reduce gestational weight gain" names the gain it reduces).
    ``figures``: a ratio above or below 1 is a rise or a fall (:mod:`unifind.cite._ratios`)."""
    out: list[Occurrence] = _figures(text) if figures else []
    if not text.isascii():
        out += _chinese(text, changes)
    words = [w.lower() for w in _WORD.findall(text)]
    found = [(i, () if _kind(words, i) else _sides(w)) for i, w in enumerate(words)]
    acts = _acting(text, words, found)
    for i, sides in found:
        if not sides or _negated(words, i) or (i > 0 and _bound(words[i - 1], words[i])):
            continue
        if i in acts.values() and not changes:
            continue  # read with the word acting on it ("inhibits checkpoint activation")
        if words[i] == "most" and (i == 0 or words[i - 1] != "the"):
            continue  # "most T cells are naive" counts; "the most sensitive" ranks
        near = [w for j, w in enumerate(words[max(0, i - ANCHOR_WORDS) : i + ANCHOR_WORDS + 1],
                                        start=max(0, i - ANCHOR_WORDS))
                if j != i and not found[j][1]]  # fmt: skip
        about = frozenset(t for w in near for t in _word_terms(w) if not _numeric(t))
        if (j := acts.get(i)) is not None:
            out += _composed(words, i, j, sides, found[j][1], about)
            continue
        acts_on, named_by = _acts_on(text, words, found, i), _named_by(words, found, i)
        out += [Occurrence(pair, side, words[i], about, acts_on, named_by) for pair, side in sides]
    return out


#: Content words after a direction word that say what it acts on.
OBJECT_WORDS = 3
_FUNCTION = frozenset(["a", "an", "the", "of", "in", "on", "its", "their", "his", "her",
                       "this", "these", "those", "is", "are", "was", "were", "be", "been",
                       "with"])  # fmt: skip


def _acts_on(
    text: str, words: list[str], found: list[tuple[int, tuple[tuple[int, int], ...]]], i: int
) -> frozenset[str]:
    spans = _spans(text)
    out: list[str] = []
    for j in range(i + 1, len(words)):
        if found[j][1] or _APART.search(text[spans[j - 1][1] : spans[j][0]]):
            break
        if words[j] in _APART_WORDS:
            break
        if words[j] not in _FUNCTION and not _numeric(words[j]):
            out.append(words[j])
            if len(out) == OBJECT_WORDS:
                break
    return frozenset(t for w in out for t in _word_terms(w))


_APART_WORDS = frozenset(["and", "or", "but", "while", "whereas", "than", "by", "to", "that",
                          "which", "through", "via", "because"])  # fmt: skip


# Direction words of the increase / decrease and activate / inhibit pairs: one acting on
# the other composes ("inhibits checkpoint activation" is less activation).
_QUANTITY_PAIRS = frozenset([0, 1])
#: Words a direction word may be from the change it acts on ("decreased *body weight* gain").
ACTING_WORDS = 3
# A change named as a thing: the head a direction word can act on.
_CHANGE_NOUN = re.compile(r"[a-z\-]+(?:ion|ions|ment|ments)|gains?|loss|losses|declines?")
# "increase", "rise", "drop" name a change after an article or before "in" / "of" ("the
# rise in", "prevents an increase"); elsewhere they are the verb ("inhibiting X increases").
_CHANGE_VERB = frozenset(
    ["increase", "increases", "decrease", "decreases", "rise", "rises", "drop", "drops"]
)
# Between the two: a conjunction or a clause mark means two findings, not one.
_APART = re.compile(r"[,;:()\[\]]|\b(?:and|or|but|while|whereas|than|by|to|that|which)\b", re.I)


@functools.lru_cache(maxsize=4096)
def _spans(text: str) -> tuple[tuple[int, int], ...]:
    """Where each word of ``text`` is (read once per text, not once per direction word)."""
    return tuple(m.span() for m in _WORD.finditer(text))


def _acting(
    text: str, words: list[str], found: list[tuple[int, tuple[tuple[int, int], ...]]]
) -> dict[int, int]:
    """Direction words that act on a change named after them ("inhibits checkpoint
    activation", "decreased weight gain", "prevents the rise"): index → the change's
    index. A noun that is itself the subject ("loss of function increases"), an agent
    ("an inhibitor of activation") or a change of another kind acts on nothing."""
    spans = _spans(text)
    out: dict[int, int] = {}
    for i, sides in found:
        if not sides or i + 1 >= len(words) or words[i + 1] in ("of", "in", "on"):
            continue
        if words[i].endswith(("or", "ors")) or i in out.values():
            continue
        for j in range(i + 1, min(len(words), i + 2 + ACTING_WORDS)):
            if not found[j][1]:
                continue
            if (
                _change(words, j)
                and _composable(sides, found[j][1])
                and not _APART.search(text[spans[i][1] : spans[j][0]])
            ):
                out[i] = j
            break
    return out


# Chinese words of more / less that act on a change written right after them ("减少体重增加":
# less weight gain), within _ZH_ACTING characters and no clause mark or conjunction.
_ZH_CHANGE = frozenset(["增加", "提高", "上升", "增长", "升高", "减少", "降低", "下降", "减轻",
                        "促进", "激活", "诱导", "抑制", "阻断", "灭活"])  # fmt: skip
_ZH_ACTING = 3
# An activate / inhibit word that names a kind: 抑制剂 (an inhibitor), 抑制性受体 (an inhibitory
# receptor), 阻断剂 (a blocker), 诱导物 (an inducer).
_ZH_KIND = re.compile(r"剂|性|子|因子|物")
_ZH_CAUSE = next(i for i, (_, less) in enumerate(PAIRS) if "抑制" in less)
_ZH_APART = re.compile(r"[，,、；;：:（）()和或但而及与并]")


def _chinese(text: str, changes: bool) -> list[Occurrence]:
    """Chinese direction words, each about the whole text's terms (no word spaces)."""
    whole = _terms(text)
    found = sorted((m.start(), w, pair, side)
                   for pair, both in enumerate(PAIRS) for side, entries in enumerate(both)
                   for w in entries if not w.isascii()
                   for m in re.finditer(re.escape(w), text)
                   if not (pair == _ZH_CAUSE and _ZH_KIND.match(text, m.end())))  # fmt: skip
    out, acted = [], set()
    for k, (at, w, pair, side) in enumerate(found):
        nxt = found[k + 1] if k + 1 < len(found) else None
        if (nxt and w in _ZH_CHANGE and nxt[1] in _ZH_CHANGE and k not in acted
                and 0 <= nxt[0] - at - len(w) <= _ZH_ACTING
                and not _ZH_APART.search(text[at + len(w) : nxt[0]])):  # fmt: skip
            out.append(Occurrence(nxt[2], nxt[3] ^ side, text[at : nxt[0] + len(nxt[1])], whole))
            acted.add(k + 1)
            continue
        if k not in acted or changes:
            # What it acts on: the text after it, to the next direction word or clause mark.
            end = nxt[0] if nxt else len(text)
            after = _ZH_APART.split(text[at + len(w) : end], maxsplit=1)[0]
            named_by: frozenset[str] = frozenset()
            if w in _ZH_CHANGE and _ZH_END.match(text, at + len(w)):
                # At the end of its clause it names a change of the word before it ("体重下降":
                # the weight falls).
                named_by = frozenset(get_analyzer("auto").terms(text[max(0, at - 4) : at])[-1:])
            out.append(Occurrence(pair, side, w, whole, _terms(after[:_ZH_OBJECT]), named_by))
    return out


_ZH_END = re.compile(r"\s*(?:[，,。.；;：:！!？?）)]|$)")


#: Characters after a Chinese direction word that say what it acts on.
_ZH_OBJECT = 8


def _figures(text: str) -> list[Occurrence]:
    """A ratio figure as a word of the increase / decrease pair: about the words before its
    name and what it is the ratio of ("odds ratio for the risk of gastric cancer ... 2.77")."""
    out = []
    for r in ratios(text):
        if _CJK.search(text):  # no word spaces: about the whole text, like its words
            out.append(Occurrence(_ZH_MORE, r.side, r.name, _terms(text)))
            continue
        before = _WORD.findall(text[: r.start])[-ANCHOR_WORDS:]
        of = [w.lower() for w in _WORD.findall(r.between)]
        about = frozenset(
            t for w in [*before, *of] for t in _word_terms(w.lower()) if not _numeric(t)
        )
        named = [w for w in of if _word_terms(w) and not _numeric(w) and not _sides(w)]
        acts_on = frozenset(t for w in named[:OBJECT_WORDS] for t in _word_terms(w))
        out.append(Occurrence(0, r.side, r.name, about, acts_on))
    return out


def _change(words: list[str], j: int) -> bool:
    """Is ``words[j]`` a change named as a thing ("activation", "weight gain", "the rise")?"""
    if words[j] in _CHANGE_VERB:
        return words[j - 1] in ("a", "an", "the") or words[j + 1 : j + 2] in (["in"], ["of"])
    return bool(_CHANGE_NOUN.fullmatch(words[j]))


def _composable(first: tuple[tuple[int, int], ...], second: tuple[tuple[int, int], ...]) -> bool:
    pairs = {p for p, _ in first} | {p for p, _ in second}
    return len(pairs) == 1 or pairs <= _QUANTITY_PAIRS


def _composed(
    words: list[str],
    i: int,
    j: int,
    acting: tuple[tuple[int, int], ...],
    change: tuple[tuple[int, int], ...],
    about: frozenset[str],
) -> list[Occurrence]:
    """One occurrence for a word acting on a change: the change's pair, the product of the
    two sides (less gain is a decrease, less inhibition an activation)."""
    near = words[i + 1 : j] + words[j + 1 : j + 1 + ANCHOR_WORDS]
    about = about | frozenset(
        t for w in near for t in _word_terms(w) if not _numeric(t) and not _sides(w)
    )
    side = acting[0][1]
    return [Occurrence(pair, s ^ side, " ".join(words[i : j + 1]), about) for pair, s in change]


def opposed(claim: str, source: str) -> tuple[Occurrence, Occurrence, int] | None:
    """A direction word of ``claim``, the source's word about the same thing on the other
    side of its pair, and how many content words they share: when every source word of
    that pair sharing the most content words with the claim's is on the other side."""
    theirs, ours = _theirs(source, claim), occurrences(claim)
    both = {o.pair for o in ours if o.side == 0} & {o.pair for o in ours if o.side == 1}
    for mine in ours:
        if mine.pair in both:
            continue  # "decreased weight gain", "more or less": the sides compose
        best, winners = _closest(mine, theirs)
        if best and all(o.side != mine.side for o in winners):
            return mine, winners[0], best
    return None


def states(source: str, claim: str, word: str, shared: int) -> bool:
    """Does ``source`` state the claim's direction ``word`` about what the claim does: a
    word on its side of the pair among the source's closest to it, sharing ``shared``
    content words with it or more?"""
    theirs = _theirs(source, claim)
    for mine in occurrences(claim):
        if mine.word == word:
            best, winners = _closest(mine, theirs)
            if best >= shared and any(o.side == mine.side for o in winners):
                return True
    return False


def _theirs(source: str, claim: str) -> list[Occurrence]:
    """The source's direction words, less the changes of something the claim never names
    ("rapid weight loss" says nothing of a claim about cancer rates)."""
    mine = _terms(claim)
    return [o for o in occurrences(source, changes=True, figures=True)
            if not o.named_by or o.named_by & mine]  # fmt: skip


def _named_by(words: list[str], found: list[tuple[int, tuple[tuple[int, int], ...]]], i: int
              ) -> frozenset[str]:  # fmt: skip
    if i == 0 or not _CHANGE_NOUN.fullmatch(words[i]) or words[i + 1 : i + 2] in (["of"], ["in"]):
        return frozenset()
    before = words[i - 1]
    if found[i - 1][1] or before in _FUNCTION or _numeric(before):
        return frozenset()
    return frozenset(t for t in _word_terms(before) if not _numeric(t))


def _closest(mine: Occurrence, theirs: list[Occurrence]) -> tuple[int, list[Occurrence]]:
    """The most content words a word of ``mine``'s pair in ``theirs`` shares with it, and
    the words that share that many."""
    same = [o for o in theirs if o.pair == mine.pair]
    # What it acts on decides first ("promotes β-catenin degradation and inhibits
    # differentiation": "inhibits" is the one about differentiation).
    acted = [(len(mine.acts_on & o.acts_on), o) for o in same]
    most = max((k for k, _ in acted), default=0)
    if most:
        return max(len(mine.about & o.about) for k, o in acted if k == most), [
            o for k, o in acted if k == most
        ]
    best, winners = 0, []
    for o in same:
        shared = len(mine.about & o.about)
        if shared > best:
            best, winners = shared, [o]
        elif shared == best and shared:
            winners.append(o)
    return best, winners


def _kind(words: list[str], i: int) -> bool:
    """Does an activate / inhibit word name a kind of thing rather than state what it does
    ("an inhibitory receptor", "myeloid-derived suppressor cells", "the small-molecule
    inhibitor MM-401", "beta-blockers", "the promoter")? With "of" it states it ("an
    inhibitor of mTOR")."""
    if words[i + 1 : i + 2] == ["of"]:
        return False
    return any(
        words[i].startswith(stem) and words[i][len(stem) :] in _KIND_ENDINGS
        for stem in PAIRS[_CAUSE][0] + PAIRS[_CAUSE][1]
    )


_CAUSE = 1  # the activate / inhibit pair
_KIND_ENDINGS = frozenset(["or", "ors", "er", "ers", "ory", "ive", "ives"])


def _bound(before: str, word: str) -> bool:
    """Is it a bound on a figure ("at least", "at most"), not a direction ("at increased
    risk" is one)?"""
    return before == "at" and word in _BOUNDS


_BOUNDS = frozenset(["least", "most", "minimum", "maximum", "best", "worst"])


def _negated(words: list[str], i: int) -> bool:
    j = i - 1
    while j >= 0 and (words[j] in _PASS_OVER or words[j].endswith("ly")):
        j -= 1
    return j >= 0 and (words[j] in _NEGATORS or words[j].endswith("n't"))
