"""Text conditions said in words: "names containing 'a'", "that start with the letter J",
"titles ending with 'ing'" (issue #19): a LIKE on the text column named before the phrase
(its words or a part of its name), else the model's title. English grammar only.
"""

from __future__ import annotations

import re

from unifind.db.compile import LIKE_ESCAPE
from unifind.db.dsl import Where
from unifind.db.generate._scan import Scan, plural
from unifind.db.generate._sense import Sense

_KIND = r"(?:(?:the\s+|a\s+|an\s+)?(?:word|words|substring|string|letter|letters|character|" \
        r"characters|phrase|text|prefix|suffix)\s+)?"  # fmt: skip
_QUOTED = r"[\"'“‘](?P<v>[^\"'”’]{1,60})[\"'”’]"
_PATTERNS = (
    ("contains", re.compile(rf"(?<![a-z])(?:contain|contains|containing|include|includes"
                            rf"|including)\s+{_KIND}{_QUOTED}")),
    ("starts", re.compile(rf"(?<![a-z])(?:start|starts|starting|begin|begins|beginning)\s+"
                          rf"with\s+{_KIND}(?:{_QUOTED}|(?<=letter )(?P<w>[a-z0-9])(?![a-z0-9]))")),
    ("ends", re.compile(rf"(?<![a-z])(?:end|ends|ending)\s+with\s+{_KIND}"
                        rf"(?:{_QUOTED}|(?<=letter )(?P<w>[a-z0-9])(?![a-z0-9]))")),
    # "artists that have "a" in their names", 'who have an "a" in their first name': the
    # column is named after the quote.
    ("contains", re.compile(rf"(?<![a-z])(?:have|has|having|with)\s+(?:an?\s+)?{_KIND}"
                            rf"{_QUOTED}\s+in\s+(?:the\s+|their\s+|its\s+|his\s+|her\s+)?(?P<after>[a-z]+)"
                            r"(?:\s+(?P<after2>[a-z]+))?")),
)  # fmt: skip


def read_text_conditions(scan: Scan, senses: dict[str, Sense], title: str | None) -> list[Where]:
    """Consume the phrases; one LIKE each."""
    out: list[Where] = []
    for kind, pattern in _PATTERNS:
        for m in scan.find(pattern):
            value = m["v"] or m.groupdict().get("w")
            end = m.end()
            if m.groupdict().get("after"):
                # The column's words end at the first word after "in their" or the second
                # ("in their first name"); the second is read only when it ends them.
                two = m["after2"] and _named_before(scan, m.end("after2"), senses, m.end("after"))
                end = m.end("after2") if two else m.end("after")
            column = _named_before(scan, end if m.groupdict().get("after") else m.start(),
                                   senses) or title  # fmt: skip
            if not value or column is None:
                continue
            text = (
                value.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", r"\%").replace("_", r"\_")
            )
            like = {"contains": f"%{text}%", "starts": f"{text}%", "ends": f"%{text}"}[kind]
            out.append(Where(field=column, op="like", value=like))
            scan.consume(m.start(), end)
    return out


def _named_before(scan: Scan, start: int, senses: dict[str, Sense], past: int = -1) -> str | None:
    """The text column whose words end last before ``start`` (and after ``past``); of two
    ending there, the longer name ("last names" is last_name, not a name part)."""
    best: tuple[tuple[int, int], str] | None = None
    for sense in senses.values():
        if sense.column.type != "string":
            continue
        parts = [p for p in sense.column.name.lower().split("_") if p not in ("id", "ids")]
        for word in (*sense.words, *parts):
            if not word.isascii() or len(word) < 2:
                continue
            for hit in re.finditer(rf"(?<![a-z]){plural(word)}(?![a-z])", scan.text[:start]):
                key = (hit.end(), hit.end() - hit.start())
                if hit.end() > past and (best is None or key > best[0]):
                    best = (key, sense.column.name)
    return best[1] if best else None
