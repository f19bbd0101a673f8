"""Comparatives and ranges with numbers, units and currency symbols, English and Chinese.

"under $100", "between 10 and 20 kg", "over 200 euros", "at least 4 stars", "100元以下",
"4.5分以上", "500-1000美元". The column is chosen by the unit (a currency finds the money
column), else by a column alias near the number ("rating above 4"), else by a comparative
word ("cheaper than"), else the model's first money column. Currencies are not converted:
a model usually stores one currency and "under 100 euros" on a USD column is a loose
request we honour literally rather than invent an exchange rate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from unifind.db.generate._scan import Scan, phrase_pattern
from unifind.db.models import Column, Model

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
}  # fmt: skip

_UNIT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))


def _val(p: str) -> str:
    return (rf"(?:(?P<{p}c>[$€¥£])\s*)?(?P<{p}n>\d+(?:\.\d+)?)(?P<{p}k>k(?![a-z]))?"
            rf"\s*(?P<{p}u>(?:{_UNIT})(?![a-z]))?")  # fmt: skip


_CMP = {
    "<": ("under", "below", "less than", "cheaper than", "lighter than", "fewer than",
          "lower than", "smaller than", "低于", "少于", "小于", "不到", "不足", "<"),
    "<=": ("up to", "at most", "no more than", "not more than", "no higher than", "maximum",
           "max", "within", "不超过", "不高于", "最多", "至多", "<=", "≤"),
    ">": ("over", "above", "more than", "greater than", "higher than", "heavier than",
          "more expensive than", "pricier than", "exceeding", "bigger than", "larger than",
          "高于", "超过", "大于", "多于", ">"),
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
    ("post", re.compile(rf"{_val('a')}\s*(?P<post>{_alt(_POST_OP)})(?![a-z])")),
    ("prefix", re.compile(rf"{_NOT_WORD}(?P<cmp>{_alt(_CMP_OP)})\s*{_val('a')}")),
    ("bare", re.compile(_val("a"))),  # kept only WITH a unit: "4 stars", "$500"
]

_HINTS = {
    "money": ("cheaper", "pricier", "expensive", "cost", "costs", "priced", "price", "budget",
              "便宜", "贵", "价格", "spent", "spend"),
    "kg": ("lighter", "heavier", "weigh", "weighs", "weighing", "重", "轻"),
    "stars": ("rated", "rating", "评分", "好评"),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class NumberCondition:
    column: str
    op: str
    value: float | list[float]


def family(column: Column) -> str | None:
    """The unit family of a column: ``money``, ``kg``, ``stars``, ``%`` or None."""
    if not column.unit:
        return None
    return UNITS.get(column.unit.lower(), (column.unit.lower(), 1.0))[0] if column.unit else None


def read_numbers(scan: Scan, model: Model) -> list[NumberCondition]:
    """Consume every comparison a column can be found for."""
    numeric = [c for c in model.columns.values() if c.type in ("integer", "number")]
    found: list[NumberCondition] = []
    for kind, pattern in PATTERNS:
        for m in scan.find(pattern):
            cond = _condition(kind, m, scan, model, numeric)
            if cond is not None:
                scan.consume(*m.span())
                found.append(cond)
    return found


def _condition(
    kind: str, m: re.Match[str], scan: Scan, model: Model, numeric: list[Column]
) -> NumberCondition | None:
    unit = m["au"] or m["ac"] or (m.groupdict().get("bu") or m.groupdict().get("bc"))
    col = _pick_column(unit, m, scan, numeric)
    if col is None or (kind == "bare" and not unit):
        return None
    factor = UNITS[unit][1] if unit and family(col) == UNITS[unit][0] else 1.0
    a = _amount(m, "a") * factor
    if kind == "between":
        b = _amount(m, "b") * factor
        return NumberCondition(col.name, "between", [_tidy(min(a, b)), _tidy(max(a, b))])
    if kind == "post":
        return NumberCondition(col.name, _POST_OP[m["post"]], _tidy(a))
    if kind == "prefix":
        return NumberCondition(col.name, _CMP_OP[m["cmp"]], _tidy(a))
    return NumberCondition(col.name, ">=" if family(col) == "stars" else "=", _tidy(a))


def _amount(m: re.Match[str], p: str) -> float:
    return float(m[f"{p}n"]) * (1000 if m[f"{p}k"] else 1)


def _tidy(v: float) -> float:
    return int(v) if float(v).is_integer() else round(v, 6)


def _pick_column(
    unit: str | None, m: re.Match[str], scan: Scan, numeric: list[Column]
) -> Column | None:
    if unit:
        fam = UNITS[unit][0]
        same = [c for c in numeric if family(c) == fam]
        if same:
            return _nearest(same, m, scan) or same[0]
    if near := _nearest(numeric, m, scan):
        return near
    window = scan.text[max(0, m.start() - 30) : m.end()]
    for fam, words in _HINTS.items():
        if any(w in window for w in words):
            hinted = [c for c in numeric if family(c) == fam]
            if hinted:
                return hinted[0]
    money = [c for c in numeric if family(c) == "money"]
    return money[0] if money else None


def _nearest(columns: list[Column], m: re.Match[str], scan: Scan) -> Column | None:
    """The column whose alias (or name) ends closest before, or starts closest after, ``m``."""
    best: tuple[int, Column] | None = None
    before = scan.text[max(0, m.start() - 30) : m.start()]
    after = scan.text[m.end() : m.end() + 20]
    for col in columns:
        for alias in (*col.aliases, col.name.replace("_", " ")):
            pat = phrase_pattern(alias)
            for hit in pat.finditer(before):
                dist = len(before) - hit.end()
                best = min(best, (dist, col), key=_dist) if best else (dist, col)
            if hit2 := pat.search(after):
                dist = hit2.start() + 5  # prefer an alias before the number
                best = min(best, (dist, col), key=_dist) if best else (dist, col)
    return best[1] if best else None


def _dist(pair: tuple[int, Column]) -> int:
    return pair[0]
