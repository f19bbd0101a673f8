"""Quantities in a sentence — a number (or a range), and what it counts — compared across
units: "48 hours" is "2 days", "30 days" is not "90 days", "12 hours" is not "48 hours".

The unit is read from the words after the number: the first that ``pint`` knows (time,
length, mass, volume, percent and the rest of its registry; currencies added as
dimensions of their own, never converted), else the first word as a count noun ("20
patients"). Chinese numerals are read by ``cn2an`` ("三十天" → 30 天) and Chinese unit
words map to pint's names. Both libraries load on first use (pint's registry costs about a
second), and only for a sentence that holds a digit.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any

# Number words up to twenty and the tens: the language's own, so "two days" is 2 days.
_WORDS = {
    w: i
    for i, w in enumerate([
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen", "twenty",
    ])
}  # fmt: skip
_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
               "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000})  # fmt: skip
_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?|\.\d+"
_RANGE_SEP = r"\s*(?:-|–|—|to|and|or|~|至|到)\s*"
# A number or range, then up to three words (the unit is one of them). "€5", "$10" too.
_QUANTITY = re.compile(
    rf"(?<![A-Za-z0-9_.])(?<![A-Za-z]-)(?P<cur>[€$£¥])?(?P<a>{_NUM})(?:{_RANGE_SEP}(?P<b>{_NUM}))?"
    rf"(?P<ord>st|nd|rd|th)?(?![\w.]*\d)(?P<pct>\s*%)?(?P<after>(?:[\s\-]*[^\W\d_]+){{0,3}})",
    re.I,
)
# Words that are never the unit: "5 in the box" is not 5 inches, "3 a day" not 3 years.
_NOT_UNITS = frozenset(
    [
        "a",
        "an",
        "the",
        "in",
        "at",
        "on",
        "of",
        "to",
        "or",
        "and",
        "for",
        "by",
        "per",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "it",
        "its",
        "this",
        "that",
        "with",
        "from",
        "than",
        "into",
        "over",
        "under",
        "about",
        "after",
        "before",
        "up",
        "down",
        "out",
        "off",
        "more",
        "less",
        "most",
        "least",
        "times",
        "time",
        "fold",
        "x",
    ]
)
_CURRENCIES = {
    "€": "euro", "euro": "euro", "euros": "euro", "eur": "euro", "欧元": "euro",
    "$": "dollar", "dollar": "dollar", "dollars": "dollar", "usd": "dollar", "美元": "dollar",
    "£": "pound_sterling", "gbp": "pound_sterling", "¥": "yuan", "yuan": "yuan", "rmb": "yuan",
    "元": "yuan", "cny": "yuan", "块": "yuan",
}  # fmt: skip
# Chinese unit words → pint names (the language's units, not a list of phrasings).
_ZH_UNITS = {
    "秒": "second", "分钟": "minute", "小时": "hour", "天": "day", "日": "day", "周": "week",
    "星期": "week", "个月": "month", "月": "month", "年": "year", "公里": "kilometer",
    "千米": "kilometer", "米": "meter", "厘米": "centimeter", "公斤": "kilogram",
    "千克": "kilogram", "克": "gram", "升": "liter", "毫升": "milliliter",
}  # fmt: skip
_ZH_UNIT = re.compile("|".join(sorted(map(re.escape, [*_ZH_UNITS, *_CURRENCIES]), key=len,
                                      reverse=True)))  # fmt: skip
_ZH_NUMERAL = re.compile("[零〇一二两三四五六七八九十百千万亿]")
# A Chinese date reads as one value ("2024年3月5日" is not 2024 years, 3 months, 5 days).
_ZH_DATE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?")
_TOLERANCE = 0.02  # a month is 30.44 days in pint; "1 month" and "30 days" agree


@dataclass(frozen=True)
class Quantity:
    """A number or range in a sentence and the dimension it is in."""

    low: float
    high: float
    """Equal to ``low`` unless the text gives a range ("2 to 7 days")."""
    dimension: str
    """pint's dimensionality (``[time]``), a currency, ``%``, a count noun, or ``""``."""
    text: str
    """As written ("48 hours")."""

    def agrees(self, other: Quantity) -> bool:
        """Same dimension and the same value, or one inside the other's range."""
        if self.dimension != other.dimension:
            return False
        if _close(self.low, other.low) and _close(self.high, other.high):
            return True
        inside = other.low - _eps(other.low) <= self.low and self.high <= other.high + _eps(
            other.high
        )
        return inside or (
            self.low - _eps(self.low) <= other.low and other.high <= self.high + _eps(self.high)
        )


def _eps(x: float) -> float:
    return abs(x) * _TOLERANCE + 1e-9


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_TOLERANCE, abs_tol=1e-9)


def quantities(sentence: str) -> list[Quantity]:
    """Every quantity in ``sentence`` (English words, digits, Chinese numerals)."""
    text = _words_to_digits(sentence)
    if _ZH_NUMERAL.search(text):
        text = _chinese_to_digits(text)
    if not any(c.isdigit() for c in text):
        return []
    text = _RAISED_POINT.sub(".", text)  # "11·9 million" (Lancet style) is 11.9 million
    text = _SUSPENDED.sub(lambda m: f"{m.group(1)}-{m.group(3)}{m.group(2)}", text)
    dates = [_date(m) for m in _ZH_DATE.finditer(text)]
    text = _ZH_DATE.sub(lambda m: " " * len(m.group(0)), text)
    return dates + [
        q for m in _QUANTITY.finditer(text) if not _named(text, m) and (q := _quantity(m))
    ]


# The raised decimal point of British and Lancet style between two digits.
_RAISED_POINT = re.compile(r"(?<=\d)·(?=\d)")
# A suspended hyphen: "55- and 65-year-old" is 55-year and 65-year (also "-, " and "- to").
_SUSPENDED = re.compile(
    r"\b(\d+(?:\.\d+)?)-(\s*(?:,|and|or|to)\s+|,\s*)"
    r"(?=(?:\d+(?:\.\d+)?-(?:\s*(?:,|and|or|to)\s+|,\s*))*\d+(?:\.\d+)?-([^\W\d_]+))"
)
# Where a number is part of a name, not a quantity: after a name's number and a slash
# ("BRCA1/2 mutations", "CDK4/6 inhibitors": variants 1 and 2), or an integer after an
# acronym and a space ("BRCA 1 mutation carriers", "COVID 19": a label's number).
_NAME_SLASH = re.compile(r"[^\W\d_][\w-]*\d/$")
_ACRONYM = re.compile(r"(?<![\w-])([A-Z]{2,})\s$")
# Scale words: "30 million cases" is 30,000,000 cases.
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


def _named(text: str, m: re.Match[str]) -> bool:
    before = text[max(0, m.start() - 40) : m.start()]
    acronym = _ACRONYM.search(before)
    # ...an integer: "HR 1.13", "OR 2.5" are statistics, not names
    if acronym and acronym.group(1).lower() not in _CURRENCIES and "." not in m.group("a"):
        return True
    return bool(_NAME_SLASH.search(before))


def _date(m: re.Match[str]) -> Quantity:
    value = float(f"{m.group(1)}{int(m.group(2)):02d}{int(m.group(3) or 0):02d}")
    return Quantity(value, value, "date", m.group(0))


def _words_to_digits(sentence: str) -> str:
    pattern = r"\b(" + "|".join(_WORDS) + r")\b(?=\s+[A-Za-z%])"
    return re.sub(pattern, lambda m: str(_WORDS[m.group(1).lower()]), sentence, flags=re.I)


def _chinese_to_digits(text: str) -> str:
    try:
        import cn2an

        return str(cn2an.transform(text, "cn2an"))
    except Exception:  # a numeral cn2an can't read ("一些"): leave the text as written
        return text


def _quantity(m: re.Match[str]) -> Quantity | None:
    low = float(m.group("a").replace(",", ""))
    high = float(m.group("b").replace(",", "")) if m.group("b") else low
    if high < low:
        return None  # "2023-05" is a date, "10-3" a score: not a range
    after = m.group("after") or ""
    if m.group("pct"):
        dim, scale, after = "%", 1.0, ""
    elif m.group("cur"):
        dim, scale, after = "currency:" + _CURRENCIES[m.group("cur")], 1.0, ""
    elif m.group("ord"):
        dim, scale, after = "ordinal", 1.0, ""
    else:
        scale_word = re.match(r"[\s\-]*([^\W\d_]+)", after)
        factor = _SCALES.get(scale_word.group(1).lower(), 0.0) if scale_word else 0.0
        if scale_word and factor:
            low, high = low * factor, high * factor
            rest = after[scale_word.end() :]
            dim, scale, upto = _unit(rest) if rest.strip() else ("count:", 1.0, 0)
            upto += scale_word.end()
        else:
            dim, scale, upto = _unit(after)
        after = after[:upto]
    number = m.group(0)[: len(m.group(0)) - len(m.group("after") or "")]
    return Quantity(low * scale, high * scale, dim, f"{number}{after.rstrip()}".strip())


def _unit(after: str) -> tuple[str, float, int]:
    """The dimension of the words after a number, the factor to its base unit, and where
    the unit's word ends in ``after``."""
    zh = _ZH_UNIT.match(after.lstrip())
    if zh:
        word, end = zh.group(0), len(after) - len(after.lstrip()) + zh.end()
        if word in _CURRENCIES:
            return "currency:" + _CURRENCIES[word], 1.0, end
        return (*(_pint_unit(_ZH_UNITS[word]) or ("", 1.0)), end)
    words = list(re.finditer(r"[^\W\d_]+", after))
    for m in words[:2]:
        word = m.group(0).lower()
        if word in _CURRENCIES:
            return "currency:" + _CURRENCIES[word], 1.0, m.end()
        if word in _NOT_UNITS:
            break  # "3 a day", "5 in the box": the unit, if any, is not after a small word
        if len(word) > 1 and (found := _pint_unit(word)):
            return (*found, m.end())
    first = next((m for m in words if m.group(0).lower() not in _NOT_UNITS), None)
    if first is None:
        return "", 1.0, 0
    return f"count:{first.group(0).lower().rstrip('s')}", 1.0, first.end()


@functools.lru_cache(maxsize=4096)
def _pint_unit(word: str) -> tuple[str, float] | None:
    registry = _registry()
    try:
        q = registry.Quantity(1, word)
        base = q.to_base_units()
    except Exception:  # not a unit pint knows ("patients"), or a word it can't parse
        return None
    dims = str(base.dimensionality)
    if dims == "dimensionless":  # "percent" is "%"; "dozen", "pair" are count nouns
        return ("%", 1.0) if word in ("percent", "pct") else None
    return (dims, float(base.magnitude))


@functools.lru_cache(maxsize=1)
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()
