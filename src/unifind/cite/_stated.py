"""Numbers a claim states that its reference never does (issue #20).

A claim citing a reference for "120 mg a day", "interleukin-6" or "within 15 business days"
is not supported by a reference in which no 120, no 6 and no 15 appear, however similar the
rest of the sentence is: a changed figure is the one edit similarity can't see. A number
counts as stated when the reference holds the same value written any way this module reads
(digits with thousands separators or a raised decimal point "18·2", English number words,
Chinese numerals, month names for dates), rounded to the claim's precision ("30 %" for
"29.7 %"), or the same quantity in another unit ("48 hours" for "2 days").
"""

from __future__ import annotations

import functools
import re

from unifind.cite._numbers import _chinese_to_digits, _words_to_digits, quantities

# A number as written: digits, thousands groups, a decimal point (or the raised dot of
# British and Lancet style, "18·2").
_NUMBER = re.compile(r"\d+(?:[,\u202f\u2009\u00a0]\d{3})*(?:[.·]\d+)?")
# "60 463": a thousands group after a plain space, read both ways in a reference.
_SPACED = re.compile(r"(?<![\d.,])(\d{1,3}) (\d{3})(?![\d.,])")
# A list marker or a row's leading cell number is layout, not a figure of the claim.
_MARKER = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], start=1)}  # fmt: skip
# A month name next to a day or year ("5 March 2024", "Mar 5"): not the verb "may".
_MONTH = re.compile(r"(?<=\d[\s,])\s*(" + "|".join(_MONTHS) + "|" + "|".join(m[:3] for m in _MONTHS)
                    + r")\b|\b(" + "|".join(_MONTHS) + "|" + "|".join(m[:3] for m in _MONTHS)
                    + r")\.?(?=\s*\d)", re.I)  # fmt: skip
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_COMPOUND = re.compile(rf"\b({_TENS})[-\s]({_UNITS})\b", re.I)
_WORD_VALUES = {w: i for i, w in enumerate(_UNITS.split("|"), start=1)} | {
    w: 10 * i for i, w in enumerate(_TENS.split("|"), start=2)
}


def unstated(claim: str, reference: str) -> str | None:
    """The first number ``claim`` writes that ``reference`` never states (None: all are).
    A digit glued to a word ("M2", "Dscam1") is part of a name, whose spelling varies
    between a claim and its source; one after a hyphen ("IL-6") is the name's number."""
    mine = _numbers(_MARKER.sub("", claim, count=1), words=False)
    if not mine:
        return None
    theirs = _stated(reference)
    claimed = None
    for written, value in mine:
        if any(_same(written, value, v) for v in theirs):
            continue
        if claimed is None:
            claimed = quantities(claim)
            stated = quantities(reference)
        if any(written in q.text and any(q.agrees(s) for s in stated) for q in claimed):
            continue  # "48 hours" for the reference's "2 days"
        if written == "0" and _letter_o(claim, reference):
            continue
        return written
    return None


def _letter_o(claim: str, reference: str) -> bool:
    """Is the claim's "0" the letter O of a name the reference spells with it ("Forkhead 0
    (fox0)" for "forkhead O (FoxO)")? The word before it, with an O, is in the reference."""
    for m in _ZERO.finditer(claim):
        name = re.escape(m.group(1))
        if re.search(rf"\b{name}[\s-]?O\b", reference, re.I):
            return True
    return False


_ZERO = re.compile(r"\b([A-Za-z]{2,})[\s-]?0\b")


def _same(written: str, value: float, stated: float) -> bool:
    if stated == value:
        return True
    decimals = len(written.split(".")[1]) if "." in written else 0
    if decimals == 0 and abs(value) < 10:
        return False  # "3" for "3.4" is another figure; "30" for "29.7" is rounding
    return round(stated, decimals) == value


@functools.lru_cache(maxsize=256)
def _stated(reference: str) -> frozenset[float]:
    """Every value ``reference`` writes (digits, words, Chinese numerals, months)."""
    values = {v for _, v in _numbers(reference)}
    for m in _MONTH.finditer(reference):
        values.add(float(_month(m.group(1) or m.group(2))))
    values |= {float(a + b) for a, b in _SPACED.findall(reference)}
    for m in _COMPOUND.finditer(reference):  # "eighty-eight percent"
        values.add(float(_WORD_VALUES[m.group(1).lower()] + _WORD_VALUES[m.group(2).lower()]))
    return frozenset(values)


def _month(name: str) -> int:
    return next(i for full, i in _MONTHS.items() if full.startswith(name.lower()))


def _numbers(text: str, *, words: bool = True) -> list[tuple[str, float]]:
    """(as written, value) of every number in ``text``; with ``words``, number words and
    Chinese numerals too (a claim's "one of" or "一些" is no figure to look for, a
    reference's "two days" is a figure stated)."""
    if words:
        text = _words_to_digits(text)
        if any("\u4e00" <= c <= "\u9fff" for c in text):
            text = _chinese_to_digits(text)
    out = []
    for m in _NUMBER.finditer(text):
        if not words and m.start() and text[m.start() - 1].isalpha():
            continue  # a claim's "M2", "Dscam1", "SEV1": a name's spelling, often another
        written = re.sub(r"[,\u202f\u2009\u00a0]", "", m.group(0)).replace("·", ".")
        out.append((written, float(written)))
    return out
