"""Groups asked for without "by" (issue #19): "which X has the most Y", "the 3 most common X",
"X and the number of Y", "the number of Y for each X".

All from English grammar over the model's own column words: a group is a column that is
neither the model's title (a title names one row, so "which name has the most ..." is a
row, not a group) nor a key; a number column groups too ("the most common cloud cover").
"the most/fewest" after it ranks the groups by their count.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from unifind.db._memo import per_object
from unifind.db.generate._scan import NUMBER_WORDS, Scan, number, plural, search
from unifind.db.generate._sense import Sense

_MOST = (
    r"(?P<dir>greatest number of|largest number of|highest number of|biggest number of"
    r"|maximum number of|smallest number of|lowest number of|minimum number of|most number of"
    r"|least number of|fewest number of|most|fewest|least)"
)
_COMMON = r"(?P<dir>most|least)\s+(?:common|frequent|popular|often)"
_N = r"(?:(?P<n>\d+|" + "|".join(w for w in NUMBER_WORDS if w.isascii()) + r")\s+)"
_HAS = r"(?:has|have|had|is|are|was|were|with|gets|got|contains?|holds?|owns?|hosts?)"


@dataclass(frozen=True, slots=True)
class TopGroup:
    """Groups of ``column`` ranked by their count."""

    column: str
    sort: str
    limit: int | None


@functools.lru_cache(maxsize=512)
def _patterns(cols: str) -> tuple[re.Pattern[str], ...]:
    col = rf"(?P<col>{cols})(?![a-z])"
    return tuple(
        re.compile(p)
        for p in (
            rf"(?<![a-z])(?:which|what)\s+{_N}?{col}\s+(?:\w+\s+)?{_HAS}\s+(?:the\s+)?{_MOST}"
            r"(?![a-z])",
            rf"(?<![a-z])(?:the\s+)?{_N}?{col}\s+(?:that|which|who)\s+{_HAS}\s+(?:the\s+)?"
            rf"{_MOST}(?![a-z])",
            rf"(?<![a-z])(?:the\s+)?{_N}?{col}\s+with\s+(?:the\s+)?{_MOST}(?![a-z])",
            rf"(?<![a-z])(?:the\s+)?{_N}?{_COMMON}\s+{col}",
            rf"(?<![a-z]){col}\s+(?:that|which)\s+(?:is|are)\s+(?:the\s+)?{_COMMON}",
        )
    )


def group_words(
    senses: dict[str, Sense], title: str | None, *, keys: bool = False
) -> dict[str, str]:
    """Each phrase naming a column that can group rows (not the title; a key only with
    ``keys``: it is named only with its "id", as in "the customer ids and how many ...")."""
    out: dict[str, str] = {}
    for sense in senses.values():
        col = sense.column
        key = not keys and col.name.lower().split("_")[-1] in ("id", "ids")
        if col.type not in ("string", "integer", "number") or col.name == title or key:
            continue
        for word in sense.words:
            if word.isascii() and len(word) >= 3:
                out.setdefault(word, sense.column.name)
    return out


#: A word every match of ``_MOST`` or ``_COMMON`` holds: no regex over hundreds of
#: column phrases when the question has none (issue #19 latency).
_CUE_WORDS = re.compile(r"most|least|fewest|number of")
_Top = tuple[dict[str, str], tuple[re.Pattern[str], ...]]


@per_object
def _by_title(senses: dict[str, Sense]) -> dict[str | None, _Top]:
    return {}


def _top_patterns(senses: dict[str, Sense], title: str | None) -> _Top:
    """``group_words`` and their patterns, built once per senses and title."""
    by_title = _by_title(senses)
    hit = by_title.get(title)
    if hit is None:
        words = group_words(senses, title)
        alternation = "|".join(plural(w) for w in sorted(words, key=len, reverse=True))
        hit = by_title[title] = (words, _patterns(alternation) if words else ())
    return hit


def read_top_group(
    scan: Scan, senses: dict[str, Sense], title: str | None, numeric_words: frozenset[str]
) -> TopGroup | None:
    """Consume "which X has the most ..." and kin; None when the question has none."""
    if not scan.search(_CUE_WORDS):
        return None  # each pattern holds one (see _MOST, _COMMON)
    words, patterns = _top_patterns(senses, title)
    if not words:
        return None
    for pattern in patterns:
        for m in scan.find(pattern):
            after = scan.rest[m.end() : m.end() + 30]
            if any(re.match(rf"\s+{re.escape(w)}(?![a-z])", after) for w in numeric_words):
                continue  # "the city with the most population": a row, by a number
            down = not m["dir"].startswith(("fewest", "least", "smallest", "lowest", "minimum"))
            n = m["n"]
            scan.consume(*m.span())
            column = next(c for w, c in words.items() if re.fullmatch(plural(w), m["col"]))
            return TopGroup(column, "desc" if down else "asc",
                            int(number(n)) if n else 1)  # fmt: skip
    return None


_CUE = re.compile(
    # Not "for all": "the max and min grade point for all letter grades", "how many games
    # are played for all students" ask one aggregate over every row (issue #19).
    r"(?<![a-z])(?:for each|for every|in each|of each|each|every|per"
    # "the total credits of courses by different departments", "the average age of
    # students with different sex": the noun after "different" beside an aggregate is
    # what it is taken per (not "of different": "the number of different majors and
    # cities" counts distinct values)
    r"|(?:for|by|in|with|across|among) (?:the )?different"
    r"|and the number|and number|and the count|and count|and how many|along with"
    # "and the corresponding number of gymnasts": an adjective may stand before the noun
    r"|and (?:(?:the|their) )?(?:corresponding|respective|total) (?:number|count)"
    r"|with the number|with their number)(?![a-z])"
)


def _number(word: str) -> str:
    """``plural(word)``, and a plural column name's singular ("for each language" names
    the column languages)."""
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss") and " " not in word:
        return rf"(?:{plural(word[:-1])})"
    return plural(word)


def _after_noun(
    after: str, words: dict[str, str], used: set[str], nouns: frozenset[str]
) -> list[str]:
    """The columns named right after the model's own noun ("each channel owner")."""
    alternation = "|".join(plural(n) for n in sorted(nouns, key=len, reverse=True)
                           if n.isascii() and len(n) > 2)  # fmt: skip
    if not alternation:
        return []
    return [c for w, c in sorted(words.items(), key=lambda wc: -len(wc[0]))
            if c not in used and w not in nouns
            and re.match(rf"\s+(?:the\s+)?(?:{alternation})\s+{_number(w)}(?![a-z])",
                         after)]  # fmt: skip


_EACH = frozenset(("for each", "for every", "in each", "of each", "each", "every", "per"))


def loose_group(
    scan: Scan, senses: dict[str, Sense], used: set[str], nouns: frozenset[str]
) -> str | None:
    """A text column named beside an aggregate with a cue ("each", "and the number of"):
    the aggregate is per value of that column. The title column counts too here ("the name
    and the number of ..." groups by name)."""
    cue = search(_CUE, scan.text)  # "and the number of": its count may be read already
    if cue is None:
        return None
    words = group_words(senses, None, keys=True)
    best: tuple[int, str] | None = None
    longest = 0
    for word, column in words.items():
        if column in used:
            continue  # "how many students in each ... of the physics department": a condition
        if word in nouns or word.rstrip("s") in nouns:
            continue  # "how many artists are male and how many ...": the rows, no group
        m = re.search(rf"(?<![a-z]){plural(word)}(?![a-z])", scan.rest)
        # The longest phrase at a place names the column: "allergy type", not "allergy".
        if m and (best is None or (m.start(), -m.end()) < (best[0], -longest)):
            best, longest = (m.start(), column), m.end()
    each = [m for m in _CUE.finditer(scan.text) if m[0] in _EACH]
    if each:
        # "for each year": the group is the column named right after; "for each apartment"
        # (the model itself) asks per row: no group, and "each" stays to be reported.
        after = scan.text[each[0].end() :]
        named = [c for w, c in sorted(words.items(), key=lambda wc: -len(wc[0]))
                 if c not in used
                 and re.match(rf"\s+(?:the\s+)?(?:different\s+)?{_number(w)}(?![a-z])",
                              after)]  # fmt: skip
        per_row = any(re.match(rf"\s+(?:the\s+)?{plural(n)}(?![a-z])", after)
                      for n in nouns if n.isascii() and len(n) > 2)  # fmt: skip
        others = any(m[0] not in _EACH for m in _CUE.finditer(scan.text))
        if per_row:  # "for every company" on companies: all rows, even if a column is
            # called "company" too; "for each channel owner": the model's noun names
            # whose owner, the column after it is the group
            named = _after_noun(after, words, used, nouns)
        best = (0, named[0]) if named else (best if others and not per_row else None)
    if best is None:
        return None
    for m in _CUE.finditer(scan.text):
        scan.consume(*m.span())  # the cues are read: they made the group
    return best[1]
