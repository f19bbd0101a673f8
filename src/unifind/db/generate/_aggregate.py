"""Aggregates from a question: "average salary by department", "how many loans per branch",
"各部门的平均工资", "每位医生的预约数量", "total fees of completed appointments".

A function word (average, total, how many, 平均, 多少...) needs a numeric column named near it
(except count); max/min need a group ("highest salary in each department"), since without one
they are superlatives that pick rows. A group is a column named after by/per/each/各/每/按.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from unifind.db.dsl import Aggregate
from unifind.db.generate._scan import Scan
from unifind.db.generate._sense import Sense

_FN_WORDS: list[tuple[str, str]] = [
    ("avg", r"(?<![a-z])(?:average|avg|mean)(?![a-z])|平均"),
    ("sum", r"(?<![a-z])(?:total|sum of|sum)(?![a-z])|总计|合计|总和|总额|总"),
    ("max", r"(?<![a-z])(?:highest|maximum|max|largest|biggest)(?![a-z])|最高|最大|最多"),
    ("min", r"(?<![a-z])(?:lowest|minimum|min|smallest)(?![a-z])|最低|最小|最少"),
]
_COUNT = re.compile(
    r"(?<![a-z])(?:how many|number of|count of|count)(?![a-z])|有多少|多少|几个|几位|几本|人数|总数"
    r"|个数|数量"
)
_GROUP_EN = r"(?<![a-z])(?:by|per|for each|in each|for every|each|every|across)\s+(?:the\s+)?"
_GROUP_ZH = r"(?:各个|各|每个|每位|每一个|每一|每|按)\s*"


@dataclass(frozen=True, slots=True)
class Aggregation:
    aggregates: tuple[Aggregate, ...]
    groups: tuple[str, ...]


def read_aggregation(scan: Scan, senses: dict[str, Sense]) -> Aggregation | None:
    """Consume an aggregate question's function, measure and groups; None when it is not one."""
    groups, spans = _groups(scan, senses)
    numeric = [s for s in senses.values() if s.column.type in ("integer", "number")]
    for fn, pattern in _FN_WORDS:
        if fn in ("max", "min") and not groups:
            continue
        for m in scan.find(re.compile(pattern)):
            measure = _measure(scan, m, numeric)
            if measure is None:
                continue
            sense, span = measure
            for s in (*spans, m.span(), span):
                scan.consume(*s)
            return Aggregation((Aggregate(fn=fn, field=sense.column.name),), tuple(groups))  # type: ignore[arg-type]
    count = _COUNT.search(scan.rest)
    if count is None or (count[0] == "数量" and not groups and scan.rest[count.end() :].strip()):
        return None
    for s in (*spans, count.span()):
        scan.consume(*s)
    return Aggregation((Aggregate(fn="count"),), tuple(groups))


def _groups(scan: Scan, senses: dict[str, Sense]) -> tuple[list[str], list[tuple[int, int]]]:
    groups: list[str] = []
    spans: list[tuple[int, int]] = []
    for sense in senses.values():
        if sense.column.type not in ("string", "boolean") or sense.column.name in groups:
            continue
        for word in sense.words:
            w = re.escape(word)
            pattern = re.compile(rf"{_GROUP_EN}{w}(?:e?s)?(?![a-z])|{_GROUP_ZH}{w}")
            m = pattern.search(scan.rest)
            if m:
                groups.append(sense.column.name)
                spans.append(m.span())
                break
    return groups, spans


def _measure(
    scan: Scan, m: re.Match[str], numeric: list[Sense]
) -> tuple[Sense, tuple[int, int]] | None:
    """The numeric column named closest after the function word (else anywhere)."""
    best: tuple[int, Sense, tuple[int, int]] | None = None
    for sense in numeric:
        for word in sense.words:
            pat = re.compile(rf"(?<![a-z]){re.escape(word)}(?:e?s)?(?![a-z])")
            for hit in pat.finditer(scan.rest):
                dist = hit.start() - m.end()
                rank = dist if dist >= 0 else 1000 - dist
                if best is None or rank < best[0]:
                    best = (rank, sense, hit.span())
    return (best[1], best[2]) if best else None
