"""Conditions on groups: "departments with more than 5 employees", "categories whose average
price is above 100", "员工超过5人的部门", "平均工资高于6万的部门".

A having needs two things, both found through the model's own words: a group noun (a text
column named as the thing asked for: "departments with/whose/that have ...", "哪些部门",
"...的部门") and a comparison on an aggregate — either a count ("more than 5 <noun the model
is about>", "超过5人") or a function word with a numeric column ("average price ... above 100").
The comparison's number is read by the ordinary number rules restricted to the measured
column, so units, "60k", "6万" and currency conversion behave as in a WHERE.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from unifind.db._memo import per_object
from unifind.db.dsl import Aggregate, Where
from unifind.db.generate._aggregate import FN_WORDS, measure
from unifind.db.generate._numbers import read_numbers
from unifind.db.generate._scan import NUMBER_WORDS, Needing, Scan, number
from unifind.db.generate._sense import Sense

_REL_EN = (
    r"\s+(?:with|having|has|have|had|whose|where|when"
    # A relative clause with its own verb: "the locations that are shared by more than two
    # wrestlers", "the accreditation level that more than 3 phones use", "the birth places
    # shared by at least two people"; the count's noun must still name the rows.
    r"|that|which|who|(?:in|for|of|by) which|(?:is|are|was|were)\s+[a-z]+(?:ed|en)\s+by"
    r"|[a-z]+ed\s+by)\b"
)
_REL_ZH = r"(?=\s*(?:有哪些|是哪些|有哪几个|是哪个|有几个|[?？]|$))"
_OPS_EN = {
    ">": r"more than|over|above|greater than|exceeding|exceeds?|higher than",
    "<": r"fewer than|less than|under|below|lower than",
    ">=": r"at least|no fewer than|no less than|not less than",
    "<=": r"at most|no more than|not more than|up to",
    "=": r"exactly|only|just",
}
_OPS_ZH = {">": "超过|多于|大于|高于", "<": "少于|不到|不足|低于|小于", ">=": "至少|不少于|不低于",
           "<=": "不超过|至多|不多于|最多"}  # fmt: skip
_POST = {">=": r"or more|及以上|以上", "<=": r"or fewer|or less|及以下|以下|以内"}
_N = r"(?P<n>\d+|" + "|".join(w for w in NUMBER_WORDS if w.isascii()) + r")"
_CLASSIFIER = r"(?:个|人|名|位|本|次|笔|条|项|件|家|次预约)"
#: Generic row nouns (the model's own nouns are added per model).
_ROW_NOUNS = ("people", "persons", "records", "rows", "entries", "items", "members", "times")


#: An aggregate, its condition, the spans read, notes (a currency conversion).
_Read = tuple[Aggregate, Where, list[tuple[int, int]], tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Having:
    aggregate: Aggregate
    group: str
    having: Where
    notes: tuple[str, ...] = ()


def read_having(
    scan: Scan, senses: dict[str, Sense], nouns: frozenset[str], rates: dict[str, float]
) -> Having | None:
    """Consume a group noun with a condition on an aggregate; None when there is none.
    Each group noun is tried in turn: "categories have two or more books that were made
    after 1989" — "books that" has no condition after it, "categories have" has."""
    for group, span in _groups(scan, senses, nouns):
        # "...的部门" ends the question: its condition comes before it; otherwise after.
        tail = (0, span[0]) if scan.text[span[0]] == "的" else (span[1], len(scan.rest))
        read = _fn_having(scan, senses, tail, rates) or _count_having(scan, nouns, tail)
        if read is None:
            continue
        agg, where, spans, notes = read
        for s in (span, *spans):
            scan.consume(*s)
        return Having(agg, group, where, notes)
    return None


def _groups(
    scan: Scan, senses: dict[str, Sense], nouns: frozenset[str]
) -> Iterator[tuple[str, tuple[int, int]]]:
    for column, pattern in _group_words(senses).present(scan.rest):
        m = pattern.search(scan.rest)
        if m and not ("." in column and _a_noun(m[0], nouns)):
            yield column, m.span()


def _a_noun(said: str, nouns: frozenset[str]) -> bool:
    """ "customers have at least one order" read on orders: "customers" names the related
    model (its title column stands for it), not groups of a column's values."""
    word = said.removeprefix("which").strip()
    return any(w in nouns for w in (word, word.removesuffix("s"), word.removesuffix("es")))


@per_object
def _group_words(senses: dict[str, Sense]) -> Needing[tuple[str, re.Pattern[str]]]:
    """Each text or yes/no column's "which <words> have" pattern, in order, by the first
    word its every match holds (a joined view has hundreds: issue #19 latency)."""
    out = []
    for sense in senses.values():
        if sense.column.type not in ("string", "boolean") and not _groups_numbers(sense):
            continue
        for word in sense.words:
            pattern, need = _group_pattern(word)
            out.append((need.split(" ")[0], (sense.column.name, pattern)))
    return Needing(out)


def _groups_numbers(sense: Sense) -> bool:
    """A number column that names groups, not a measure: "which advisors have more than two
    students" (an advisor's number), "the years in which there are more than one festival";
    a key ("..._id") or an amount (money, rating, quantity) is never a group noun here."""
    parts = sense.column.name.lower().split("_")
    return (
        sense.column.type in ("integer", "number")
        and sense.role in (None, "year")
        and parts[-1] not in ("id", "ids")
        and len(parts[-1]) > 2
    )


@functools.lru_cache(maxsize=8192)
def _group_pattern(word: str) -> tuple[re.Pattern[str], str]:
    """The pattern of "which <words> have", compiled once (see ``_aggregate``'s), and the
    text its every match holds."""
    w = re.escape(word)
    if word.isascii():
        y = word.endswith("y")
        # "which party has", "the parties with": the singular names the groups too.
        plural = rf"(?:{w[:-1]}ies|{w})" if y else rf"{w}(?:e?s)?"
        pattern = re.compile(rf"(?<![a-z])(?:which\s+)?{plural}(?=(?:{_REL_EN}))")
        return pattern, word[:-1] if y else word
    return re.compile(rf"(?:哪些|哪个|哪几个){w}|的{w}{_REL_ZH}"), word


def _fn_having(
    scan: Scan, senses: dict[str, Sense], tail: tuple[int, int], rates: dict[str, float]
) -> _Read | None:
    """ "average price is above 100", "平均工资高于6万": a function, its column, a number."""
    numeric = [s for s in senses.values() if s.column.type in ("integer", "number")]
    window = _window(scan, tail)
    for fn, pattern in FN_WORDS:
        for m in re.finditer(pattern, window.rest):
            found = measure(window, m, numeric)
            if found is None or not 0 <= found[1][0] - m.end() <= 12:
                continue  # the column must follow its function word closely
            sense, mspan = found
            after = Scan("")
            # The column's word stays readable: it tells the number rules which column.
            rest = " " * mspan[0] + _EXCEED.sub(_as_above, window.rest[mspan[0] :])
            after.text = after.rest = rest
            conds, notes = read_numbers(after, {sense.column.name: sense}, rates)
            if len(conds) != 1 or isinstance(conds[0].value, list):
                continue
            used = [i for i, (a, b) in enumerate(zip(after.rest, rest, strict=True)) if a != b]
            if not used or not _FILLER.fullmatch(window.rest[mspan[1] : used[0]]):
                continue  # "average salary of remote employees over 5000": not a having here
            agg = Aggregate(fn=fn, field=sense.column.name)  # type: ignore[arg-type]
            where = Where(field=agg.name, op=conds[0].op, value=conds[0].value)  # type: ignore[arg-type]
            return agg, where, [(m.start() + tail[0], used[-1] + 1 + tail[0])], tuple(notes)
    return None


_EXCEED = re.compile(r"(?<![a-z])exceed(?:s|ed)?(?![a-z])")
_FILLER = re.compile(r"(?:\s|is|are|was|were|of|count|number|amount|value|level|的|是|都)*")


def _as_above(m: re.Match[str]) -> str:
    """ "exceeds" reads as "above" (same length: offsets stay put)."""
    return "above".ljust(len(m[0]))


def _count_having(scan: Scan, nouns: frozenset[str], tail: tuple[int, int]) -> _Read | None:
    """ "more than 5 employees", "5 or more loans", "员工超过5人", "3次以上"."""
    words = "|".join(re.escape(n) for n in sorted({*nouns, *_ROW_NOUNS}, key=len, reverse=True))
    text = scan.rest[tail[0] : tail[1]]
    for op, patterns in _count_patterns(words):
        for pattern, kind in patterns:
            m = pattern.search(text)
            if m is None or (kind == "post" and not _counted(text, m, words)):
                continue
            agg = Aggregate(fn="count")
            where = Where(field=agg.name, op=op, value=int(number(m["n"])))  # type: ignore[arg-type]
            spans = [m.span("op"), m.span("n")]
            if m["noun"]:
                spans.append(m.span("noun"))
            if not m["noun"] or kind == "zh":
                spans = [m.span()]
            return agg, where, [(a + tail[0], b + tail[0]) for a, b in spans], ()
    return None


@functools.lru_cache(maxsize=256)
def _count_patterns(words: str) -> tuple[tuple[str, tuple[tuple[re.Pattern[str], str], ...]], ...]:
    """Per operator, the patterns of a count of rows named by ``words``, compiled once (a
    joined view's nouns made them miss ``re``'s cache: compiled per question)."""
    out = []
    for op in (">", "<", ">=", "<=", "="):
        # Up to two words between the number and the noun stay for the other rules:
        # "at least 3 remote employees" counts remote employees.
        # Never across a conjunction or a new clause: "price higher than 10000000 and
        # publications with ..." counts nothing (issue #19: read as count > 10000000).
        noun = rf"(?:(?!{_JOINER})[a-z-]+\s+){{0,2}}(?P<noun>(?:{words})(?:e?s)?)(?![a-z])"
        pre = rf"(?<![a-z])(?P<op>{_OPS_EN[op]})\s+{_N}\s+{noun}"
        zh = (
            rf"(?P<op>{_OPS_ZH[op]})\s*{_N}\s*(?:{_CLASSIFIER}|(?P<noun>{words}))"
            if op in _OPS_ZH
            else ""
        )
        post = rf"{_N}\s*(?:{_CLASSIFIER}\s*|{noun}\s+)?(?P<op>{_POST[op]})" if op in _POST else ""
        post2 = rf"{_N}\s+(?P<op>{_POST[op]})\s+{noun}" if op in _POST else ""
        kinds = (("pre", pre), ("zh", zh), ("post2", post2), ("post", post))
        out.append((op, tuple((re.compile(p), kind) for kind, p in kinds if p)))
    return tuple(out)


#: Words that join clauses or conditions: no counted noun lies beyond them.
_JOINER = r"(?:and|or|but|with|whose|who|which|that|where|while)\s"


def _counted(text: str, m: re.Match[str], words: str) -> bool:
    """ "5 or more" counts rows only with a classifier or a row noun around it."""
    around = text[max(0, m.start() - 6) : m.end() + 12]
    return bool(re.search(rf"{_CLASSIFIER}|(?<![a-z])(?:{words})(?![a-z])", around))


def _window(scan: Scan, span: tuple[int, int]) -> Scan:
    """A scan of ``span`` alone (offsets relative to its start)."""
    sub = Scan("")
    sub.text = scan.text[span[0] : span[1]]
    sub.rest = scan.rest[span[0] : span[1]]
    return sub
