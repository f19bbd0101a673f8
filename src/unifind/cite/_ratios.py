"""Directions a source states as a figure (issue #20): "odds ratio for gastric cancer 2.77
(95 % CI 1.04 to 7.97)" says the risk is higher, "HR 0.76 (0.65-0.90)" that it is lower,
though no word says "increased" or "reduced".

A ratio of risks, odds, hazards or rates (named in words or by its usual abbreviation, in
English or Chinese) above 1 is a rise, below 1 a fall; one whose confidence interval holds 1
is neither (no difference shown). Only figures written with a decimal point are read: a
ratio is reported that way ("2.77", "0.8"), and the whole numbers near a ratio's name are
doses, counts and years ("HR for each 10 mg increase").
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Ratio:
    """One ratio figure in a text."""

    side: int
    """0: above 1 (a rise), 1: below 1 (a fall)."""
    name: str
    """The ratio's name and figure as written ("odds ratio ... 2.77")."""
    start: int
    """Where its name starts in the text."""
    between: str
    """The text between its name and its figure: what it is the ratio of ("for the risk of
    gastric cancer")."""


_NAME = re.compile(
    r"\b(?i:(?:odds|hazards?|risk|rate|incidence rate|prevalence)\s+ratios?|relative\s+risks?)\b"
    r"|\b(?:a?ORs?|a?HRs?|a?RRs?|IRRs?|SIRs?|SMRs?)\b|比值比|风险比|危险比|相对危险度|相对风险",
)
# The figure: the first decimal after the name, not a percentage (a CI's level "95 %").
_FIGURE = re.compile(r"(?<![\d.])(\d+\.\d+)(?![\d.]|\s*%)")
# A confidence interval right after the figure: "(95% CI, 1.04 to 7.97)", "(0.65-0.90)".
_INTERVAL = re.compile(
    r"^[\s,;:，；：]*[(\[（]?\s*(?:95\s*%\s*(?:CI|confidence interval|置信区间)\s*[,:=]?\s*)?"
    r"(\d+(?:\.\d+)?)\s*(?:-|–|—|to|,|~|至)\s*(\d+(?:\.\d+)?)",
    re.I,
)
#: Characters between a ratio's name and its figure.
REACH = 120
# Where a ratio's reach stops: the end of a clause, another figure's name.
_STOP = re.compile(r"[;.](?:\s|$)|；|。")


def ratios(text: str) -> list[Ratio]:
    """The ratio figures of ``text`` that show a rise or a fall."""
    out: list[Ratio] = []
    for m in _NAME.finditer(text):
        rest = text[m.end() : m.end() + REACH]
        if stop := _STOP.search(rest):
            rest = rest[: stop.start()]
        figure = _FIGURE.search(rest)
        if figure is None:
            continue
        value = float(figure.group(1))
        interval = _INTERVAL.match(rest[figure.end() :])
        if interval and float(interval.group(1)) <= 1 <= float(interval.group(2)):
            continue  # the interval holds 1: no difference shown
        if value == 1 or value <= 0:
            continue
        between = rest[: figure.start()]
        name = f"{m.group(0)} {figure.group(1)}"
        out.append(Ratio(0 if value > 1 else 1, name, m.start(), between))
    return out
