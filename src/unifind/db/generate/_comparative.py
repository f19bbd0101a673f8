"""Comparative adjectives that name their measure: "older than 30" is age > 30, "taller than
1.8" height > 1.8 (issue #19: "older" was not understood and 30 was bound to no column).

English grammar, not a schema's phrasing: each adjective names the measure it compares, and
the phrase is read as "<measure> over/under" only when the model has a column that the
measure's word names; otherwise the words stay, and are reported as not understood.
"""

from __future__ import annotations

import re

from unifind.db.generate._scan import Scan, phrase_pattern
from unifind.db.generate._sense import Sense

#: adjective → (the measure's word, the comparison).
COMPARATIVES = {
    "older": ("age", "over"), "younger": ("age", "under"),
    "taller": ("height", "over"), "shorter": ("height", "under"),
    "heavier": ("weight", "over"), "lighter": ("weight", "under"),
    "longer": ("length", "over"), "faster": ("speed", "over"), "slower": ("speed", "under"),
}  # fmt: skip
_PATTERN = re.compile(rf"(?<![a-z])(?P<adj>{'|'.join(COMPARATIVES)})\s+than(?=\s+[$€¥£]?\d)")


def read_comparatives(scan: Scan, senses: dict[str, Sense]) -> None:
    """Rewrite "older than 30" as "age over 30" where a column is named "age" (same length,
    so every offset stays), for the number rules to read."""
    for m in scan.find(_PATTERN):
        word, op = COMPARATIVES[m["adj"]]
        if not any(phrase_pattern(word).fullmatch(w) for s in senses.values() for w in s.words):
            continue
        if len(f"{word} {op}") <= m.end() - m.start():
            scan.rewrite(m.start(), m.end(), f"{word} {op}")
