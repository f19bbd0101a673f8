"""Aggregates from a question: "average salary by department", "how many loans per branch",
"各部门的平均工资", "每位医生的预约数量", "total fees of completed appointments".

A function word (average, total, how many, 平均, 多少...) needs a numeric column named near it
(except count); max/min without a group ("highest salary") are values only when the question
asks for a value (see ``_asks_value``), else superlatives that pick rows (``_order``).
A group is a column named after by/per/each/各/每/按.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from unifind.db.dsl import Aggregate, Where
from unifind.db.generate._scan import Scan, may_match, plural, search
from unifind.db.generate._sense import Sense

FN_WORDS: list[tuple[str, str]] = [
    ("avg", r"(?<![a-z])(?:average|avg|mean)(?![a-z])|平均"),
    ("sum", r"(?<![a-z])(?:total|sum of|sum)(?![a-z])|总计|合计|总和|总额|总"),
    ("max", r"(?<![a-z])(?:highest|maximum|max|largest|biggest)(?![a-z])|最高|最大|最多"),
    ("min", r"(?<![a-z])(?:lowest|minimum|min|smallest)(?![a-z])|最低|最小|最少"),
]
_FN_PATTERNS = [(fn, re.compile(p)) for fn, p in FN_WORDS]
_COUNT = re.compile(
    r"(?<![a-z])(?:how many|(?:total\s+)?number of|count of|count)(?![a-z])"
    r"|有多少|多少|几个|几位|几本|人数|总数|个数|数量"
)
_VALUE_CUE = re.compile(
    r"(?<![a-z])(?:what(?:'s| is| was| are| were)|how (?:much|high|low))(?![a-z])"
    r"|是多少|为多少|是几|有多高|有多少"
)
#: Words of a list of functions over one column ("highest, lowest and average").
_LISTED = frozenset(("and", "or", "the", "average", "avg", "mean", "total", "sum", "highest",
                     "maximum", "max", "largest", "biggest", "lowest", "minimum", "min",
                     "smallest"))  # fmt: skip
#: "the top 3 highest rates": rows ranked, not the maximum value.
_TOP_N = re.compile(r"(?<![a-z])(?:top|first|the)\s+(?:\d+|two|three|four|five|six|seven|eight"
                    r"|nine|ten)\s+$")  # fmt: skip
_LIST_BEFORE = re.compile(
    r"(?<![a-z])(?:average|avg|mean|total|sum|highest|maximum|max|largest|lowest|minimum|min"
    r"|smallest)\s*(?:,|and|or|,\s*and)\s*$"
)
_HOLDER = re.compile(r"(?<![a-z])(?:with|having|has|have|had)\s+the\s+$")
_ROW_CUE = re.compile(r"(?<![a-z])(?:who|whom|which|whose)(?![a-z])|谁|哪")
_GROUP_EN = r"(?<![a-z])(?:by|per|for each|in each|for every|each|every|across)\s+(?:the\s+)?"
_GROUP_ZH = r"(?:各个|各|每个|每位|每一个|每一|每|按)\s*"
_GROUP_CUE = re.compile(f"{_GROUP_EN}|{_GROUP_ZH}")


@dataclass(frozen=True, slots=True)
class Aggregation:
    aggregates: tuple[Aggregate, ...]
    groups: tuple[str, ...]
    havings: tuple[Where, ...] = ()


def read_aggregation(
    scan: Scan,
    senses: dict[str, Sense],
    nouns: frozenset[str] = frozenset(),
    keys: frozenset[str] = frozenset(),
) -> Aggregation | None:
    """Consume an aggregate question's functions, measures and groups; None when it is not
    one. Every function asked is kept, in the question's order: "the highest, lowest and
    average cost", "how many dorms and what is their total capacity" (issue #19).

    ``keys`` (the primary key, the columns of relations) identify rows: no average or total
    is taken over one ("the average fee on a CSU campus" is no avg(Campus))."""
    groups, spans = _groups(scan, senses, nouns)
    numeric = [s for s in senses.values() if s.column.type in ("integer", "number")]
    measures = [s for s in numeric if s.column.name not in keys]
    found: list[tuple[int, Aggregate]] = []
    measured: list[tuple[int, int]] = []
    for fn, pattern in _FN_PATTERNS:
        for m in scan.find(pattern):
            hit = measure(scan, m, measures if fn in ("avg", "sum") else numeric)
            if hit is None:
                continue
            sense, span = hit
            if _inside_name(scan, m, sense) or any(_begins(scan, m, s) for s in numeric):
                continue  # "total horses" names the column Total_Horses: no sum; "average
                # mean temperature": "mean" begins mean_temperature_f's name
            if fn in ("max", "min") and not groups and not _asks_value(scan, m, span, nouns):
                continue
            cue = scan.search(_VALUE_CUE) if fn in ("max", "min") else None
            for s in (m.span(), *([cue.span()] if cue else [])):
                scan.consume(*s)
            # The measure stays readable until every function is read: "total and average
            # amount" measures one column twice.
            measured.append(span)
            found.append((m.start(), Aggregate(fn=fn, field=sense.column.name)))  # type: ignore[arg-type]
    for s in measured:
        scan.consume(*s)
    if count := _count(scan, numeric, groups, bool(found)):
        field = _distinct(scan, count[1], senses, nouns)
        found.append((count[0], Aggregate(fn="count", field=field, distinct=field is not None)))
        scan.consume(*count)
    if not found:
        return None
    for s in spans:
        scan.consume(*s)
    aggs = {a.name: a for _, a in sorted(found, key=lambda t: t[0])}
    return Aggregation(tuple(aggs.values()), tuple(groups))


def _count(
    scan: Scan, numeric: list[Sense], groups: list[str], others: bool
) -> tuple[int, int] | None:
    """The span of a count phrase ("how many", "number of", "多少"), if it asks one."""
    count = scan.search(_COUNT)
    if count is None or (count[0] == "数量" and not groups and scan.rest[count.end() :].strip()):
        return None
    if count[0].endswith("number of") and _names_number(scan.rest[count.end() :], numeric):
        return None  # "the number of horses" is the column Total_Horses, not a count of rows
    if others and count[0] in ("count", "数量", "多少"):
        return None  # beside another function these say "how much", not "how many rows"
    return count.span()


_DIFFERENT = re.compile(
    r"\s*(?:the\s+)?(?:(?:number|count)\s+of\s+(?:the\s+)?)?(?:different|distinct|unique)\s+"
)


def _distinct(
    scan: Scan, end: int, senses: dict[str, Sense], nouns: frozenset[str] = frozenset()
) -> str | None:
    """ "how many different X": the column X names, read with its "different" (else None,
    and the word stays to be reported). Before a text column X, a kind word ("different
    kinds of clients") and the model's own noun ("different channel owners" of channels)
    may stand."""
    m = _DIFFERENT.match(scan.rest, end)
    if m is None:
        return None
    best = _named_at(scan.rest, m.end(), senses.values())
    start = m.end()
    if best is None:
        skip = _KIND_OF.match(scan.rest, m.end())
        start = skip.end() if skip else m.end()
        noun = re.match(r"([a-z]+)\s+", scan.rest[start:])
        if noun and (noun[1] in nouns or noun[1].removesuffix("s") in nouns):
            start += noun.end()  # "channel owners": the channels' owners
        # The model's own text columns: "different scientists assigned to projects" counts
        # scientists, not the projects they are assigned to.
        text = [
            s for s in senses.values() if s.column.type == "string" and "." not in s.column.name
        ]
        best = _named_at(scan.rest, start, text) if start > m.end() else None
    if best is None:
        return None
    scan.consume(m.start(), start + best[0])
    return best[1]


def _named_at(text: str, start: int, senses: Iterable[Sense]) -> tuple[int, str] | None:
    """The column whose longest phrase begins at ``start``: (its length, the column)."""
    head = text[start : start + 40]
    best: tuple[int, str] | None = None
    for sense in senses:
        for word in sense.words:
            hit = re.match(rf"{plural(word)}(?![a-z])", head) if word.isascii() else None
            if hit and (best is None or hit.end() > best[0]):
                best = (hit.end(), sense.column.name)
    return best


#: "different kinds of", "distinct types of": the values themselves are the kinds.
_KIND_OF = re.compile(r"(?:kinds?|types?|sorts?)\s+of\s+")


def _inside_name(scan: Scan, m: re.Match[str], sense: Sense) -> bool:
    """The function word begins a phrase naming the column ("total points" → pts), or is
    part of its name: a joined one's too ("club_rank.Total": "the total number of clubs"
    was read as sum(club_rank.Total), status ok; issue #19)."""
    own = sense.column.name.rpartition(".")[2]
    return m[0] in own.lower().split("_") or _begins(scan, m, sense)


def _begins(scan: Scan, m: re.Match[str], sense: Sense) -> bool:
    return any(
        " " in w and re.match(rf"{re.escape(w)}(?![a-z])", scan.text[m.start() :])
        for w in sense.words
    )


def _names_number(after: str, numeric: list[Sense]) -> bool:
    """The words right after "number of" name a numeric column."""
    head = after.lstrip()[:40]
    return any(
        re.match(rf"(?:the\s+)?{re.escape(w)}(?:e?s)?(?![a-z])", head)
        for s in numeric
        for w in s.words
        if w.isascii()
    )


def _asks_value(scan: Scan, m: re.Match[str], span: tuple[int, int], nouns: frozenset[str]) -> bool:
    """ "what is the highest salary", "最高工资是多少": the value, not the row holding it.

    The column must follow its function word ("highest salary", not "salary highest"), as a
    noun: "highest rated", "lowest paid" are superlatives that pick rows. Then a question
    asking for a value ("what is", "是多少") reads as one, and so does one naming no row
    ("the maximum fee"); "the employee with the highest salary", "who earns the most" stay rows.
    """
    word = scan.text[span[0] : span[1]]
    gap = scan.text[m.end() : span[0]].replace(",", " ").split()
    # "maximum athlete height": the model's own noun may stand between, as in a compound;
    # so may a list of functions: "the highest, lowest and average height".
    listed = [w for w in gap if w not in nouns]
    if span[0] < m.end() or len(gap) > 6 or any(w not in _LISTED for w in listed):
        return False
    if listed and not any(w in _LISTED - {"and", "or", "the"} for w in listed):
        return False
    if listed and not search(_ROW_CUE, scan.text):
        return True  # a list of functions over one column asks their values
    if search(_LIST_BEFORE, scan.text[: m.start()]) and not search(_ROW_CUE, scan.text):
        return True  # "the average and maximum damage": the second of a list
    if word.endswith("ed") or word == "paid":
        return False
    if search(_HOLDER, scan.text[: m.start()]) or search(_TOP_N, scan.text[: m.start()]):
        return False  # "the city with the largest population": the row holding it
    if search(_VALUE_CUE, scan.text):
        return True
    rows = "|".join(re.escape(n) for n in sorted(nouns, key=len, reverse=True) if n)
    return not search(_ROW_CUE, scan.text) and not (
        rows and re.search(rf"(?<![a-z])(?:{rows})(?![a-z])", scan.text)
    )


@functools.lru_cache(maxsize=8192)
def _group_pattern(word: str) -> re.Pattern[str]:
    """The pattern of "for each <word>", compiled once: built per read, these overflowed
    ``re``'s 512-entry cache on joined views (~600 compiles a question; issue #19 latency)."""
    w = re.escape(word)
    return re.compile(rf"{_GROUP_EN}{w}(?:e?s)?(?![a-z])|{_GROUP_ZH}{w}")


def _groups(
    scan: Scan, senses: dict[str, Sense], nouns: frozenset[str] = frozenset()
) -> tuple[list[str], list[tuple[int, int]]]:
    found: list[tuple[tuple[int, int], str]] = []
    if not may_match(_GROUP_CUE, scan.rest):
        return [], []  # every group pattern holds a cue word (a joined view has hundreds)
    for sense in senses.values():
        if sense.column.type not in ("string", "boolean"):
            continue
        for word in sense.words:
            m = _group_pattern(word).search(scan.rest) if word in scan.rest else None
            if m and word in nouns and re.match(r"(?:for |in )?(?:each|every)\b", m[0]):
                continue  # "for every company" on companies: every row, not a group
            if m:
                found.append((m.span(), sense.column.name))
                break
    # "for each product type": product_type_code, not also product_name ("product").
    groups: list[str] = []
    spans: list[tuple[int, int]] = []
    for span, name in sorted(found, key=lambda f: (f[0][0] - f[0][1], f[0][0])):
        if not any(span[0] < e and s < span[1] for s, e in spans):
            groups.append(name)
            spans.append(span)
    order = sorted(range(len(spans)), key=lambda i: spans[i][0])
    return [groups[i] for i in order], [spans[i] for i in order]


@functools.lru_cache(maxsize=8192)
def _measure_pattern(word: str) -> tuple[re.Pattern[str], str]:
    """A numeric column's word and the stem its every hit holds, compiled once (built per
    call they overflowed ``re``'s cache on joined views: recompiled each question)."""
    # "medal count" names the column "medals": its singular names it too.
    plural = word.endswith("s") and not word.endswith("ss") and len(word) > 3
    stem = word[:-1] if plural else word
    return re.compile(rf"(?<![a-z]){re.escape(stem)}(?:e?s)?(?![a-z])"), stem


def measure(
    scan: Scan, m: re.Match[str], numeric: list[Sense]
) -> tuple[Sense, tuple[int, int]] | None:
    """The numeric column named closest after the function word (else anywhere)."""
    best: tuple[int, Sense, tuple[int, int]] | None = None
    for sense in numeric:
        for word in sense.words:
            pat, stem = _measure_pattern(word)
            if stem not in scan.rest:
                continue  # every hit holds it (a joined view has hundreds of words)
            for hit in pat.finditer(scan.rest):
                dist = hit.start() - m.end()
                rank = dist if dist >= 0 else 1000 - dist
                if best is None or rank < best[0]:
                    best = (rank, sense, hit.span())
    return (best[1], best[2]) if best else None
