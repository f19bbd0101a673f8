"""Comparatives and ranges with numbers, units and currency symbols, English and Chinese.

"under $100", "between 10 and 20 kg", "over 200 euros", "at least 4 stars", "100元以下",
"4.5分以上", "500-1000美元", "8万欧元". The column is chosen by the unit (a currency finds a
money column), else by a column word near the number ("rating above 4"), else by a
comparative word ("cheaper than"), else the model's first money column. An amount in another
currency than the column's is converted with the configured rates (``db.currency_rates``:
the value of one unit of each currency in a common base) and the note says so; without a rate
the comparison is refused with a note, never made as if the currencies were equal.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from unifind.db.dsl import Where
from unifind.db.generate._scan import Scan, phrase_pattern
from unifind.db.generate._sense import Sense
from unifind.db.models import Column

_MONEY = ("$", "usd", "dollar", "dollars", "bucks", "€", "eur", "euro", "euros", "¥", "yuan",
          "rmb", "cny", "元", "块", "块钱", "美元", "欧元", "£", "gbp", "pound",
          "pounds")  # fmt: skip
UNITS: dict[str, tuple[str, float]] = {
    **{w: ("money", 1.0) for w in _MONEY},
    **{w: ("kg", 1.0) for w in ("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms", "公斤",
                                "千克")},
    **{w: ("kg", 0.001) for w in ("g", "gram", "grams", "克")},
    **{w: ("stars", 1.0) for w in ("star", "stars", "颗星", "星", "分")},
    **{w: ("%", 1.0) for w in ("%", "percent", "per cent", "pct")},
    **{w: ("minutes", 1.0) for w in ("minutes", "minute", "mins", "分钟")},
    **{w: ("minutes", 60.0) for w in ("hours", "hour", "hrs", "小时")},
}  # fmt: skip
#: The currency each money word names; "元" and "¥" read as Chinese yuan.
CURRENCY_OF = {
    **dict.fromkeys(("$", "usd", "dollar", "dollars", "bucks", "美元"), "USD"),
    **dict.fromkeys(("€", "eur", "euro", "euros", "欧元"), "EUR"),
    **dict.fromkeys(("¥", "yuan", "rmb", "cny", "元", "块", "块钱"), "CNY"),
    **dict.fromkeys(("£", "gbp", "pound", "pounds"), "GBP"),
}

_UNIT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))


def _val(p: str) -> str:
    return (rf"(?:(?P<{p}c>[$€¥£])\s*)?(?P<{p}n>\d+(?:\.\d+)?)(?P<{p}k>k(?![a-z])|万|千)?"
            rf"\s*(?P<{p}u>(?:{_UNIT})(?![a-z]))?")  # fmt: skip


_CMP = {
    "<": ("under", "below", "less than", "cheaper than", "lighter than", "fewer than",
          "lower than", "smaller than", "shorter than", "earlier than", "低于", "少于", "小于",
          "不到", "不足", "短于", "<"),
    "<=": ("up to", "at most", "no more than", "not more than", "no higher than", "maximum",
           "max", "within", "不超过", "不高于", "最多", "至多", "<=", "≤"),
    ">": ("over", "above", "more than", "greater than", "higher than", "heavier than",
          "more expensive than", "pricier than", "exceeding", "bigger than", "larger than",
          "longer than", "later than", "高于", "超过", "大于", "多于", "长于", ">"),
    ">=": ("at least", "no less than", "not less than", "minimum", "min", "starting at",
           "from", "至少", "不低于", "不少于", "最少", ">=", "≥"),
}  # fmt: skip
_POST = {
    ">=": ("or more", "or higher", "or above", "or over", "and up", "and above", "+", "及以上",
           "以上"),
    "<=": ("or less", "or lower", "or fewer", "or below", "or under", "and under", "and below",
           "及以下", "以下", "以内", "之内"),
}  # fmt: skip
_CMP_OP = {w: op for op, words in _CMP.items() for w in words}
_POST_OP = {w: op for op, words in _POST.items() for w in words}


def _alt(words: object) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))  # type: ignore[call-overload]


_NOT_WORD = r"(?<![a-z])"
PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "between",
        re.compile(
            rf"{_NOT_WORD}(?:between|from|介于|在)\s*{_val('a')}\s*"
            rf"(?:and|to|-|–|~|和|到|至)\s*{_val('b')}\s*(?:之间|范围内)?"
        ),
    ),
    ("between", re.compile(rf"{_val('a')}\s*(?:-|–|~|to|到|至)\s*{_val('b')}\s*(?:之间)?")),
    # "50 or below", never "above 50 or below 46": there "or" joins two comparisons.
    ("post", re.compile(rf"{_val('a')}\s*(?P<post>{_alt(_POST_OP)})(?![a-z])(?!\s*[$€¥£]?\d)")),
    ("prefix", re.compile(rf"{_NOT_WORD}(?P<cmp>{_alt(_CMP_OP)})\s*{_val('a')}")),
    ("bare", re.compile(_val("a"))),  # kept only WITH a unit: "4 stars", "$500"
]

_DIGIT = re.compile(r"\d")

_HINTS = {
    "money": ("cheaper", "pricier", "expensive", "cost", "costs", "priced", "price", "budget",
              "便宜", "贵", "价格", "spent", "spend", "earning", "earn", "paid"),
    "kg": ("lighter", "heavier", "weigh", "weighs", "weighing", "重", "轻"),
    "stars": ("rated", "rating", "评分", "好评"),
    "minutes": ("longer", "shorter", "lasting", "时长"),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class NumberCondition:
    column: str
    op: str
    value: float | list[float]
    span: tuple[int, int] = (0, 0)
    """Where the question says it."""


def family(column: Column, sense: Sense | None = None) -> str | None:
    """The unit family of a column: ``money``, ``kg``, ``stars``, ``%``, ``minutes`` or None."""
    if sense is not None and sense.role == "money":
        return "money"
    if sense is not None and sense.role == "rating":
        return "stars"
    if not column.unit:
        return None
    return UNITS.get(column.unit.lower(), (column.unit.lower(), 1.0))[0]


def read_numbers(
    scan: Scan,
    senses: dict[str, Sense],
    rates: dict[str, float],
    refused: list[str] | None = None,
    rows: frozenset[str] = frozenset(),
) -> tuple[list[NumberCondition], list[str]]:
    """Consume every comparison a column can be found for; notes on currencies. A comparison
    read but not compared (a currency with no rate) is added to ``refused``. ``rows``: the
    nouns naming the model's rows; "more than 10 employees" counts them (``_counts_rows``)."""
    numeric = [s for s in senses.values() if s.column.type in ("integer", "number")]
    found: list[NumberCondition] = []
    notes: list[str] = []
    if not _DIGIT.search(scan.rest):
        return found, notes  # every pattern's match holds a digit (most questions: none)
    for kind, pattern in PATTERNS:
        for m in scan.find(pattern):
            if rows and _counts_rows(m, scan, rows, numeric):
                continue
            cond = _condition(kind, m, scan, numeric, rates, notes)
            if isinstance(cond, NumberCondition) and kind != "bare" and (
                    other := _other_nearer(m, scan, numeric, senses, rows)):  # fmt: skip
                said = " ".join(m[0].split())
                notes.append(f"{said!r} follows {other.column.name}, which holds no numbers: "
                             f"not compared with {cond.column} (ignored)")  # fmt: skip
                cond = None
            if cond is not False:
                scan.consume(*m.span())
            if isinstance(cond, NumberCondition):
                found.append(dataclasses.replace(cond, span=m.span()))
            elif cond is None and refused is not None:
                refused.append(m[0].strip())
    return found, notes


_NOUN = re.compile(r"\s*([a-z]+)(?![a-z])")


def _counts_rows(m: re.Match[str], scan: Scan, rows: frozenset[str], numeric: list[Sense]) -> bool:
    """ "department ids for which more than 10 employees had a commission", "majors that
    have less than 3 students": a number followed by a noun naming the model's rows counts
    rows; no column's value (issue #19: bound to the department id and the major, status
    ok). Left unread, it is said. A column the noun names too ("over 100 employees" of a
    headcount column) keeps it."""
    if m["au"] or m["ac"]:
        return False
    first = _NOUN.match(scan.text, m.end())
    if first is None:
        return False
    second = _NOUN.match(scan.text, first.end())
    columns = {w for s in numeric for w in s.words}
    phrases = [first[1]] + ([f"{first[1]} {second[1]}"] if second else [])
    if any(_forms(p) & columns for p in phrases):
        # "over 100 employees" of a headcount column: that column; "more than 1 draft
        # copies": a noun of the rows after a column's word counts rows
        return not (second is None or _forms(phrases[1]) & columns
                    or not _forms(second[1]) & rows)  # fmt: skip
    return bool(_forms(first[1]) & rows)


def _forms(phrase: str) -> set[str]:
    """A phrase and the singulars of its last word."""
    head, _, last = phrase.rpartition(" ")
    lasts = {last, last[:-1] if last.endswith("s") else last, f"{last[:-3]}y"}
    return {f"{head} {w}".strip() for w in lasts}


def _condition(
    kind: str,
    m: re.Match[str],
    scan: Scan,
    numeric: list[Sense],
    rates: dict[str, float],
    notes: list[str],
) -> NumberCondition | bool | None:
    """A condition; None when refused (consumed, noted); False when not a comparison here."""
    unit = m["au"] or m["ac"] or (m.groupdict().get("bu") or m.groupdict().get("bc"))
    if kind == "bare" and not unit and not m["ak"]:
        named = _named_beside(m, scan, numeric)
        return False if named is None else NumberCondition(named.column.name, "=", _tidy(
            _amount(m, "a")))  # fmt: skip
    sense = _pick_column(unit, m, scan, numeric)
    if sense is None or (kind == "bare" and not unit):
        return False
    col = sense.column
    factor = UNITS[unit][1] if unit and family(col, sense) == UNITS[unit][0] else 1.0
    said = CURRENCY_OF.get(unit or "")
    if said and sense.currency and said != sense.currency:
        if said not in rates or sense.currency not in rates:
            notes.append(f"{m[0].strip()!r} is in {said} and {col.name} in {sense.currency}: "
                         "not compared (no exchange rate; set db.currency_rates)")  # fmt: skip
            return None
        factor = rates[said] / rates[sense.currency]
    a = _amount(m, "a") * factor
    if factor != 1.0 and said:
        notes.append(f"{m[0].strip()!r} converted to {_tidy(a):g} {sense.currency} for "
                     f"{col.name} at the configured rate (db.currency_rates)")  # fmt: skip
    if kind == "between":
        b = _amount(m, "b") * factor
        return NumberCondition(col.name, "between", [_tidy(min(a, b)), _tidy(max(a, b))])
    if kind == "post":
        return NumberCondition(col.name, _POST_OP[m["post"]], _tidy(a))
    if kind == "prefix":
        return NumberCondition(col.name, _CMP_OP[m["cmp"]], _tidy(a))
    return NumberCondition(col.name, ">=" if family(col, sense) == "stars" else "=", _tidy(a))


_SCALE = {"k": 1000, "千": 1000, "万": 10000}


def _amount(m: re.Match[str], p: str) -> float:
    return float(m[f"{p}n"]) * _SCALE.get(m[f"{p}k"] or "", 1)


def _tidy(v: float) -> float:
    return int(v) if float(v).is_integer() else round(v, 6)


def _pick_column(
    unit: str | None, m: re.Match[str], scan: Scan, numeric: list[Sense]
) -> Sense | None:
    if unit:
        fam = UNITS[unit][0]
        same = [s for s in numeric if family(s.column, s) == fam]
        if same:
            return _nearest(same, m, scan) or same[0]
    if near := _nearest(numeric, m, scan):
        return near
    window = scan.text[max(0, m.start() - 30) : m.end()]
    for fam, words in _HINTS.items():
        if any(w in window for w in words):
            hinted = [s for s in numeric if family(s.column, s) == fam]
            if hinted:
                return hinted[0]
    money = [s for s in numeric if family(s.column, s) == "money"]
    return money[0] if money else None


def _nearest(senses: list[Sense], m: re.Match[str], scan: Scan) -> Sense | None:
    """The column whose word ends closest before, or starts closest after, ``m``."""
    best: tuple[int, Sense] | None = None
    # Unconsumed text only: a word another rule already read ("in stock") names no column here.
    before = scan.rest[max(0, m.start() - 30) : m.start()]
    after = scan.rest[m.end() : m.end() + 24]
    for sense in senses:
        for word in sense.words:
            pat = phrase_pattern(word)
            for hit in pat.finditer(before):
                dist = len(before) - hit.end()
                best = min(best, (dist, sense), key=_dist) if best else (dist, sense)
            if hit2 := pat.search(after):
                dist = hit2.start() + 5  # prefer a word before the number
                best = min(best, (dist, sense), key=_dist) if best else (dist, sense)
    return best[1] if best else None


def _other_nearer(
    m: re.Match[str],
    scan: Scan,
    numeric: list[Sense],
    senses: dict[str, Sense],
    rows: frozenset[str] = frozenset(),
) -> Sense | None:
    """The column named right before a comparison when it is not a number column and names
    it closer than any number column does: "hosts of age above 50" where age is text (issue
    #19: bound to a number of hosts, status ok). The comparison is that column's; binding a
    farther number column answers another question. Words before the comparison only (the
    ones after it read as its unit or its noun)."""
    before = scan.rest[max(0, m.start() - 30) : m.start()]

    def gap(sense: Sense) -> int | None:
        # The model's own nouns name its rows, not a column ("appointments under 50
        # dollars": appointment_date is also called "appointments").
        words = [w for w in sense.words if w not in rows]
        ends = [h.end() for w in words for h in phrase_pattern(w).finditer(before)]
        return len(before) - max(ends) if ends else None

    near = [d for s in numeric if (d := gap(s)) is not None]
    best: tuple[int, Sense] | None = None
    for sense in senses.values():
        if sense.column.type in ("integer", "number") or sense in numeric:
            continue
        d = gap(sense)
        if d is not None and (best is None or d < best[0]):
            best = (d, sense)
    if best is None or (near and min(near) <= best[0]):
        return None
    # Only a word right before the comparison ("age above", "age is over", "age of over"),
    # not one a clause away.
    return best[1] if _JOINER.fullmatch(before[len(before) - best[0] :]) else None


_JOINER = re.compile(r"[\s,]*(?:(?:is|of|was|are|were)\s*)?")


def _named_beside(m: re.Match[str], scan: Scan, numeric: list[Sense]) -> Sense | None:
    """A plain number right after its column's words ("district 1", "flight number 99",
    "a rating of 10") or right before them ("7 bikes available"): that column equals it.
    One column only: a number between two column words binds to neither."""
    before = scan.rest[max(0, m.start() - 40) : m.start()]
    after = scan.rest[m.end("an") : m.end("an") + 40]
    hits: set[str] = set()
    for sense in numeric:
        for word in sense.words:
            pat = phrase_pattern(word)
            if any(_BEFORE.fullmatch(before[h.end() :]) for h in pat.finditer(before)):
                hits.add(sense.column.name)
            if after.startswith(" ") and pat.match(after, 1):
                hits.add(sense.column.name)
    if len(hits) != 1:
        return None
    return next(s for s in numeric if s.column.name in hits)


#: What may stand between a column's words and the number that follows them.
_BEFORE = re.compile(r"\s*(?:\s(?:is|of|equal to|equals|=|number|no\.|#)\s*)?\s*")


def _dist(pair: tuple[int, Sense]) -> int:
    return pair[0]


_EITHER = re.compile(r"\s*,?\s*(?:or|either)\s*")


def number_wheres(text: str, found: list[NumberCondition]) -> list[Where]:
    """The conditions as wheres; two on one column joined by "or" ("age above 50 or below
    46") are either of them, one parenthesised group (issue #19: read as both)."""
    conds = sorted(found, key=lambda c: c.span)
    out: list[Where] = []
    i = 0
    while i < len(conds):
        c = conds[i]
        where = Where(field=c.column, op=c.op, value=c.value)  # type: ignore[arg-type]
        nxt = conds[i + 1] if i + 1 < len(conds) else None
        if nxt and nxt.column == c.column and _EITHER.fullmatch(text[c.span[1] : nxt.span[0]]):
            other = Where.model_validate(
                {"field": nxt.column, "op": nxt.op, "value": nxt.value, "or": True}
            )
            out.append(Where(wheres=(where, other)))
            i += 2
            continue
        out.append(where)
        i += 1
    return out
