"""Relative and absolute dates in English and Chinese → a half-open day range.

Conventions (stated because people differ): "last week" is the previous ISO calendar week
(Monday to Sunday), "last month" the previous calendar month, "last 30 days" / "最近30天"
the 30 days before today plus today. "since X" includes X; "from X" means within X
("orders from last week"); "after X" starts when X ends; "before X" ends when X starts.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from unifind.db.generate._scan import NUMBER_WORDS, Scan, literals, number

Range = tuple[dt.date, dt.date]  # [start, end)

MONTHS = {m: i for i, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
     ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
     ("october", "oct"), ("november", "nov"), ("december", "dec")], start=1)
    for m in names}  # fmt: skip
_MON = "|".join(sorted(MONTHS, key=len, reverse=True))
_NUM = r"\d+|" + "|".join(NUMBER_WORDS)
#: Each month's name begins with one of these.
_MONTH3 = "|".join(sorted({m[:3] for m in MONTHS}))
# Python look-behinds need a fixed width: one per word.
_AFTER_WORD = (
    "(?:"
    + "|".join(
        rf"(?<=\b{w} {y})"
        for w in ("in", "since", "before", "after", "during", "until")
        for y in ("", "year ", "the year ", "year of ", "the year of ")
    )
    + ")"
)


def add_months(d: dt.date, n: int) -> dt.date:
    y, m = divmod(d.month - 1 + n, 12)
    return dt.date(d.year + y, m + 1, 1)


def _month(y: int, m: int) -> Range:
    start = dt.date(y, m, 1)
    return start, add_months(start, 1)


def _day(y: int, m: int, d: int) -> Range:
    start = dt.date(y, m, d)
    return start, start + dt.timedelta(days=1)


def _recent_month(m: int, today: dt.date) -> Range:
    # A month without a year means its latest occurrence not after today.
    return _month(today.year if m <= today.month else today.year - 1, m)


def _ago(n: float, unit: str, today: dt.date) -> Range:
    k = int(n)
    if unit.startswith(("week", "周", "个星期", "星期")):
        start = today - dt.timedelta(weeks=k)
    elif unit.startswith(("month", "个月", "月")):
        start = add_months(today.replace(day=1), -k).replace(day=min(today.day, 28))
    elif unit.startswith(("year", "年")):
        start = today.replace(year=today.year - k)
    else:
        start = today - dt.timedelta(days=k)
    return start, today + dt.timedelta(days=1)


def _ahead(n: float, unit: str, today: dt.date) -> Range:
    days = int(n) * (7 if unit.startswith(("week", "周")) else 1)
    return today, today + dt.timedelta(days=days + 1)


Maker = Callable[[re.Match[str], dt.date], Range]


def _week(offset: int) -> Maker:
    def make(_m: re.Match[str], t: dt.date) -> Range:
        monday = t - dt.timedelta(days=t.weekday()) + dt.timedelta(weeks=offset)
        return monday, monday + dt.timedelta(days=7)

    return make


def _this_month(offset: int) -> Maker:
    return lambda _m, t: _month(add_months(t, offset).year, add_months(t, offset).month)


def _year_of(offset: int) -> Maker:
    return lambda _m, t: (dt.date(t.year + offset, 1, 1), dt.date(t.year + offset + 1, 1, 1))


def _days_ago(k: int) -> Maker:
    return lambda _m, t: (t - dt.timedelta(days=k), t - dt.timedelta(days=k - 1))


# Most specific first: each match is consumed before the next pattern runs.
PATTERNS: list[tuple[re.Pattern[str], Maker]] = [
    (re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})"), lambda m, _t: _day(*map(int, m.groups()))),
    (re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})[日号]"), lambda m, _t: _day(*map(int, m.groups()))),
    (
        re.compile(rf"\b({_MON})\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b"),
        lambda m, _t: _day(int(m[3]), MONTHS[m[1]], int(m[2])),
    ),
    (
        re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? ({_MON})\.?,? (\d{{4}})\b"),
        lambda m, _t: _day(int(m[3]), MONTHS[m[2]], int(m[1])),
    ),
    (re.compile(r"(\d{4})年(\d{1,2})月(?:份)?"), lambda m, _t: _month(int(m[1]), int(m[2]))),
    (re.compile(r"\b(\d{4})-(\d{1,2})\b"), lambda m, _t: _month(int(m[1]), int(m[2]))),
    (re.compile(rf"\b({_MON})\.?,? (\d{{4}})\b"), lambda m, _t: _month(int(m[2]), MONTHS[m[1]])),
    (re.compile(r"(\d{4})年"), lambda m, _t: _year_of(int(m[1]) - _t.year)(m, _t)),
    (
        # The look-ahead is implied by what follows it: it spares trying the 30 look-behinds
        # at every character (most of the time of reading dates; issue #19 latency).
        re.compile(rf"(?=19|20){_AFTER_WORD}((?:19|20)\d{{2}})\b"),
        lambda m, t: _year_of(int(m[1]) - t.year)(m, t),
    ),
    (
        re.compile(
            rf"\b(?:in |within |over |during )?(?:the )?(?:last|past|previous) ({_NUM}) "
            r"(days?|weeks?|months?|years?)\b"
        ),
        lambda m, t: _ago(number(m[1]), m[2], t),
    ),
    (
        re.compile(rf"(?:最近|过去|近)\s*({_NUM})\s*(天|日|周|个星期|星期|个月|月|年)"),
        lambda m, t: _ago(number(m[1]), m[2], t),
    ),
    (
        re.compile(
            rf"\b(?:in |within |over |during )?(?:the )?(?:next|coming) ({_NUM}) "
            r"(days?|weeks?)\b"
        ),
        lambda m, t: _ahead(number(m[1]), m[2], t),
    ),
    (
        re.compile(rf"(?:未来|接下来)\s*({_NUM})\s*(天|日|周)"),
        lambda m, t: _ahead(number(m[1]), m[2], t),
    ),
    (
        re.compile(rf"\b({_MON})\.? (\d{{1,2}})(?:st|nd|rd|th)?\b(?! ?\d)"),
        lambda m, t: _day(t.year, MONTHS[m[1]], int(m[2])),
    ),
    (re.compile(r"\btoday\b|今天|今日"), lambda _m, t: (t, t + dt.timedelta(days=1))),
    (re.compile(r"\btomorrow\b|明天"), _days_ago(-1)),
    (re.compile(r"\b(?:next|coming) week\b|下周|下个星期|下星期"), _week(1)),
    (re.compile(r"\b(?:next|coming) month\b|下个月|下月"), _this_month(1)),
    (re.compile(r"\byesterday\b|昨天|昨日"), _days_ago(1)),
    (re.compile(r"\bthe day before yesterday\b|前天"), _days_ago(2)),
    (re.compile(r"\b(?:this|current) week\b|本周|这周|这个星期|本星期"), _week(0)),
    (re.compile(r"\b(?:last|previous|past) week\b|上周|上个星期|上星期|上个礼拜"), _week(-1)),
    (re.compile(r"\b(?:this|current) month\b|本月|这个月"), _this_month(0)),
    (re.compile(r"\b(?:last|previous|past) month\b|上个月|上月"), _this_month(-1)),
    (re.compile(r"\b(?:this|current) year\b|今年"), _year_of(0)),
    (re.compile(r"\b(?:last|previous|past) year\b|去年"), _year_of(-1)),
    (
        re.compile(rf"(?={_MONTH3}){_AFTER_WORD}({_MON})\b"),
        lambda m, t: _recent_month(MONTHS[m[1]], t),
    ),
    (re.compile(r"(?<![\d.])(\d{1,2})月(?:份)?"), lambda m, t: _recent_month(int(m[1]), t)),
]


def _union(patterns: list[re.Pattern[str]]) -> tuple[str, ...] | None:
    """Texts one of which a match of any pattern holds (each pattern's ``literals``), the
    shortest of any two that hold one another; None when a pattern requires none."""
    found: set[str] = set()
    for pattern in patterns:
        needs = literals(pattern)
        if needs is None:
            return None
        found.update(needs)
    kept = sorted(found, key=lambda t: (len(t), t))
    return tuple(t for i, t in enumerate(kept) if not any(k in t for k in kept[:i]))


#: A question that holds none of these has no date: the patterns are not tried one by one
#: (most questions; issue #19 latency).
_ANY_DATE = _union([p for p, _ in PATTERNS])

#: The word before a date, possibly with "the year (of)" between: "after the year 1989",
#: "before year 2000", "founded after the year of 1850" (issue #19: "after" was searched as
#: text and the year bound as "= 1989", status ok).
_PREFIX = re.compile(
    r"(?<![a-z])(?P<word>since|from|starting|as of|after|before|until|till|prior to|in|during"
    r"|on|自从|自|从)\s*(?:(?:the\s+)?years?\s+(?:of\s+)?)?$"
)
#: How far before a date its prefix word may start ("prior to the year of ").
_PREFIX_CHARS = 24
_SUFFIX = re.compile(r"^\s*(?P<word>以来|起|开始|之后|以后|后|之前|以前|前)")


@dataclass(frozen=True, slots=True)
class DateCondition:
    """``op`` in ``between`` (``[start, end)`` as a half-open range), ``>=``, ``<``."""

    op: str
    start: dt.date
    end: dt.date


def read_dates(scan: Scan, today: dt.date) -> list[DateCondition]:
    """Consume every date expression; each becomes one condition."""
    found: list[DateCondition] = []
    if _ANY_DATE is not None and not _holds_any(scan.rest, _ANY_DATE):
        return found
    for pattern, make in PATTERNS:
        for m in scan.find(pattern):
            try:
                start, end = make(m, today)
            except ValueError:  # 2024-13-45: not a date, leave it as text
                continue
            lo, hi = m.start(), m.end()
            op = "between"
            if p := _PREFIX.search(scan.before(lo, _PREFIX_CHARS)):
                lo -= len(scan.before(lo, _PREFIX_CHARS)) - p.start()
                op = _direction(p["word"])
            if op == "between" and (s := _SUFFIX.match(scan.after(hi, 6))):
                hi += s.end()
                op = _direction(s["word"])
            scan.consume(lo, hi)
            if op == ">=end":
                op, start = ">=", end
            found.append(DateCondition(op, start, end))
    return found


def _holds_any(text: str, needs: tuple[str, ...]) -> bool:
    for need in needs:  # noqa: SIM110 (a loop: no generator made)
        if need in text:
            return True
    return False


def _direction(word: str) -> str:
    if word in ("since", "starting", "as of", "自从", "自", "从", "以来", "起", "开始"):
        return ">="
    if word in ("after", "之后", "以后", "后"):
        return ">=end"
    if word in ("before", "until", "till", "prior to", "之前", "以前", "前"):
        return "<"
    return "between"
