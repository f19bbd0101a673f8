"""A number column compared with its own average, largest or smallest over every row: "rooms
whose price is higher than the average price", "tracks with seating above average", "students
younger than the average age", "salaries less than the largest salary", "价格高于平均价格的房间",
"价格低于最高价格" (issue #19: the comparison was left out and every row answered, partial).

English and Chinese grammar, not a dataset's phrasing: the compared column is the one named
right before the comparison ("price is higher than") or right after the aggregate ("than the
average price"), or the measure a comparative adjective names ("older" → age, where a column
is called so). Only the average (mean) of all rows is read: a restricted aggregate ("than the
average salary of instructors in Physics") or a verb with no column ("earn more than the
average") is left to ``_nested``'s note (partial), never guessed.
"""

from __future__ import annotations

import re

from unifind.db.dsl import Fn, SubAggregate, Where
from unifind.db.generate._comparative import COMPARATIVES
from unifind.db.generate._scan import Scan, phrase_pattern
from unifind.db.generate._sense import Sense

_MORE = r"more|greater|higher|larger|bigger|above|over|exceeds?|exceeding"
_LESS = r"less|lower|smaller|fewer|below|under"
_ADJ = "|".join(COMPARATIVES)
_EN = re.compile(
    rf"(?<![a-z])(?P<cmp>{_MORE}|{_LESS}|{_ADJ})\s+(?:than\s+)?(?:that\s+of\s+)?(?:the\s+)?"
    r"(?:overall\s+)?(?P<agg>average|mean|largest|biggest|highest|maximum|greatest|smallest|lowest"
    r"|minimum)(?![a-z])"
    r"(?:\s+(?:number\s+of\s+|amount\s+of\s+)?(?P<after>[a-z][a-z ]{0,30}?))?"
    r"(?=\s*(?:[?.,;!]|$|\s(?:and|or|for\s+(?:each|every)|sorted|ordered|order"
    r"|in\s+(?:ascending|descending))"
    r"(?![a-z])))"
)
_ZH = re.compile(
    r"(?P<cmp>高于|大于|超过|多于|低于|小于|少于)(?:所有\w{0,6}?的)?"
    r"(?P<agg>平均|最高|最低|最大|最小)(?:值|水平|数)?"
)
_ZH_LESS = ("低于", "小于", "少于")
#: The aggregate a word after "than the" names: the largest / smallest of every row.
_MAX: tuple[Fn, str] = ("max", "highest")
_MIN: tuple[Fn, str] = ("min", "lowest")
_AVG: tuple[Fn, str] = ("avg", "average")
_AGG: dict[str, tuple[Fn, str]] = (
    {w: _AVG for w in ("average", "mean", "平均")}
    | {w: _MAX for w in ("largest", "biggest", "highest", "maximum", "greatest", "最高", "最大")}
    | {w: _MIN for w in ("smallest", "lowest", "minimum", "最低", "最小")}
)
#: Words that may follow the aggregate before the end: the rows themselves ("of all rooms").
_ROWS = re.compile(r"(?:of\s+)?(?:all\s+|every\s+|the\s+|a\s+|an\s+)?(?P<noun>[a-z]+)")
_OWN_ROWS = re.compile(
    r"(?P<col>[a-z][a-z ]*?)\s+(?:of|for|among|across)\s+(?:all\s+|every\s+|the\s+)?"
    r"(?P<noun>[a-z]+)"
)
_AGGREGATED = re.compile(
    r"(?<![a-z])(?:average|mean|avg|total|sum|max(?:imum)?|min(?:imum)?|highest|lowest)\s+$"
    r"|(?:平均|总|最高|最低)$"
)
_LINK = r"(?:\s+(?:is|are|was|were|be|being))?\s+"


def read_versus(
    scan: Scan, senses: dict[str, Sense], nouns: frozenset[str] = frozenset()
) -> list[tuple[Where, str]]:
    """Each "<column> higher than the average" read as ``column > avg(column)``, consumed."""
    numeric = [s for s in senses.values() if s.column.type in ("integer", "number")]
    if not numeric:
        return []
    out = []
    for pattern in (_EN, _ZH):
        for m in scan.find(pattern):
            cmp = m["cmp"]
            restricted, sense = _named_after(m, numeric, nouns) if pattern is _EN else (False, None)
            if restricted:
                continue  # words after the aggregate that are no column: a restriction
            start = m.start()
            if sense is None and cmp in COMPARATIVES:
                word = COMPARATIVES[cmp][0]
                sense = next((s for s in numeric if word in s.words), None)
            if sense is None:
                found = _named_before(scan, start, numeric)
                if found is None:
                    continue
                sense, start = found
            if cmp in COMPARATIVES:
                less = COMPARATIVES[cmp][1] == "under"
            else:
                less = bool(re.fullmatch(_LESS, cmp)) or cmp in _ZH_LESS
            name = sense.column.name
            agg, word = _AGG.get(m.groupdict().get("agg") or "average", _AVG)
            where = Where(field=name, op="<" if less else ">",
                          value=SubAggregate(agg=agg, field=name))  # fmt: skip
            said = scan.text[start : m.end()].strip()
            scan.consume(start, m.end())
            out.append((where, f"{said!r}: {name} {'<' if less else '>'} the {word} {name} "
                               "of every row"))  # fmt: skip
    return out


def _named_after(
    m: re.Match[str], numeric: list[Sense], nouns: frozenset[str]
) -> tuple[bool, Sense | None]:
    """The column named after "average"; True first where other words follow it (a
    restriction of the rows averaged, not read here)."""
    after = (m["after"] or "").strip()
    if not after:
        return False, None
    own = _OWN_ROWS.fullmatch(after)
    if own and (own["noun"] in nouns or own["noun"].removesuffix("s") in nouns):
        after = own["col"]  # "the average hours for all projects": the rows themselves
    for sense in numeric:
        if any(phrase_pattern(w).fullmatch(after) for w in sense.words):
            return False, sense
    rows = _ROWS.fullmatch(after)
    if rows and (rows["noun"] in nouns or rows["noun"].removesuffix("s") in nouns):
        return False, None  # "than the average of all rooms": the rows themselves
    return True, None


def _named_before(scan: Scan, start: int, numeric: list[Sense]) -> tuple[Sense, int] | None:
    """A column named just before the comparison ("price is higher", "a seating above")."""
    head = scan.rest[:start]
    best: tuple[Sense, int] | None = None
    for sense in numeric:
        for word in sense.words:
            for m in phrase_pattern(word).finditer(head):
                gap = head[m.end() :]
                adjacent = not gap.strip() or re.fullmatch(_LINK, gap)
                if adjacent and (best is None or m.start() < best[1]):
                    best = (sense, m.start())
    if best and _AGGREGATED.search(head[: best[1]]):
        return None  # "departments with average salary greater than": groups compared
    return best
