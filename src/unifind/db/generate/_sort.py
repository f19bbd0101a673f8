"""Explicit ordering: "sorted by age", "ordered by name desc", "in descending order of
population", "from highest to lowest salary", "in alphabetical order" (issue #19).

A direction word is English grammar, not a schema's: ascending, increasing, alphabetical,
"lowest to highest" sort up; descending, decreasing, "highest to lowest" sort down. The
column is the one named right after "by"/"of" (by any of its words, see ``_sense``); with
no column named there, "alphabetical" sorts the text column the question names (else the
model's title) and a bare "ascending"/"descending" the nearest column named before it.
"""

from __future__ import annotations

import functools
import re

from unifind.db._memo import per_object
from unifind.db.generate._scan import Scan, plural
from unifind.db.generate._sense import Sense

_UP = (
    r"ascending|increasing|alphabetical|alphabetic|lexicographical|lexicographic|a to z"
    r"|lowest to highest|smallest to largest|low to high|least to most|fewest to most"
    r"|earliest to latest|oldest to newest|shortest to longest|asc"
)
_DOWN = (
    r"descending|decreasing|reverse alphabetical|reverse alphabetic|z to a|highest to lowest"
    r"|largest to smallest|high to low|most to least|latest to earliest|newest to oldest"
    r"|longest to shortest|desc"
)
#: "from highest", "highest first": the top of the order named alone. Only the words whose
#: direction is the same for every column (not "oldest", which is up for dates, down for ages).
_DOWN_END = r"highest|largest|greatest|biggest|most"
_UP_END = r"lowest|smallest|least|fewest"
_END = (
    rf"from\s+(?:the\s+)?(?:{_DOWN_END}|{_UP_END})(?!\s*(?:to|-)(?![a-z]))"
    rf"|(?:{_DOWN_END}|{_UP_END})\s+first"
)
_DIR = rf"(?:{_END}|(?:from\s+(?:the\s+)?)?(?:{_DOWN}|{_UP}))"
_VERB = r"(?:sorted|ordered|sort|order|ranked|rank|arranged|listed|organized|organised)"
_THE = r"(?:(?:the|their|its|his|her)\s+)?"


@functools.lru_cache(maxsize=512)
def _patterns(cols: str, nouns: str) -> tuple[re.Pattern[str], ...]:
    # The model's noun may stand before its column: "in descending order of building height".
    col = rf"(?:(?:{nouns})\s+)?(?P<col>{cols})(?![a-z])" if nouns else rf"(?P<col>{cols})(?![a-z])"
    tail = (
        rf"(?:\s*,?\s*(?:in\s+|and\s+)?(?:the\s+|an?\s+)?(?:(?P<d2>{_DIR})(?![a-z])"
        r"(?:\s+order)?))?"
    )
    return (
        # "in descending order of population", "in ascending order by age"
        re.compile(
            rf"(?<![a-z])(?:in\s+)?(?:an?\s+)?(?P<d1>{_DIR})\s+order\s+(?:of|by|for|on)\s+"
            rf"{_THE}{col}"
        ),
        # "sorted by age", "ordered descending by population", "sort them by name in desc order"
        re.compile(
            rf"(?<![a-z]){_VERB}\s+(?:(?:them|it|the results?|the list)\s+)?(?:in\s+)?"
            rf"(?:(?P<d1>{_DIR})\s+(?:order\s+)?)?(?:(?:according\s+to|based\s+on|on|by)\s+)"
            rf"{_THE}{col}{tail}"
        ),
        # "from highest to lowest salary"
        re.compile(rf"(?<![a-z])(?P<d1>{_DIR})\s+{_THE}{col}"),
    )


_BARE = re.compile(
    rf"(?<![a-z])(?:{_VERB}\s+)?(?:(?:in|by)\s+)?(?:an?\s+|the\s+)?(?P<d1>{_DIR})(?:\s+order)?"
    rf"(?![a-z])"
)


def read_sort(
    scan: Scan,
    senses: dict[str, Sense],
    title: str | None,
    nouns: frozenset[str],
    bare: list[tuple[str | None, str, tuple[int, int]]] | None = None,
) -> list[tuple[str, str]]:
    """Consume explicit ordering phrases; (column, "asc"|"desc") in the order read.

    ``nouns`` name the model itself: "names of courses" names no course_* column. A sort
    naming no column after its direction word ("ordered from most to least") is also added
    to ``bare`` (column or None, direction, span): over groups it sorts their aggregate
    (see the builtin); one with no column is left unconsumed here."""
    phrases, alternation = _sortable(senses)
    if not phrases:
        return []
    out: list[tuple[str, str]] = []
    for pattern in _patterns(alternation, _named(nouns)):
        for m in scan.find(pattern):
            direction = _direction(m["d1"] or m.groupdict().get("d2"))
            out.append((_column(phrases, m["col"]), direction))
            scan.consume(*m.span())
    for m in scan.find(_BARE):
        direction = _direction(m["d1"])
        name = _nearest_before(scan, m.start(), senses, nouns, alphabetical="alpha" in m["d1"])
        name = name or (title if "alpha" in m["d1"] else None)
        if bare is not None and "alpha" not in m["d1"]:
            bare.append((name, direction, m.span()))  # the caller may consume it
        if name is None:
            continue  # no column to sort: the word stays, and is reported as not understood
        out.append((name, direction))
        scan.consume(*m.span())
    return list(dict.fromkeys(out))


@per_object
def _sortable(senses: dict[str, Sense]) -> tuple[dict[str, str], str]:
    """``_phrases`` and their alternation (longest first), built once per senses: a joined
    view has hundreds (issue #19 latency)."""
    phrases = _phrases(senses)
    return phrases, "|".join(plural(p) for p in sorted(phrases, key=len, reverse=True))


@functools.lru_cache(maxsize=512)
def _named(nouns: frozenset[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(nouns, key=len, reverse=True)
                    if n.isascii() and len(n) > 2)  # fmt: skip


def _column(phrases: dict[str, str], said: str) -> str:
    """The column a phrase names, the phrase possibly in the plural (the first phrase whose
    ``plural`` pattern matches ``said`` whole)."""
    return _said(phrases)[said]  # a KeyError is unreachable: the pattern was built from them


@per_object
def _said(phrases: dict[str, str]) -> dict[str, str]:
    """Each text a phrase's ``plural`` pattern matches whole → the column of the first such
    phrase: the phrase, and "-ies" of a consonant's "y", else "-s" and "-es" (a joined
    view has hundreds of phrases: a regex each was ~0.1 ms a sort, issue #19 latency)."""
    out: dict[str, str] = {}
    for phrase, column in phrases.items():
        if phrase.endswith("y") and len(phrase) > 2 and phrase[-2] not in "aeiou":
            forms: tuple[str, ...] = (phrase, f"{phrase[:-1]}ies")
        else:
            forms = (phrase, f"{phrase}s", f"{phrase}es")
        for form in forms:
            out.setdefault(form, column)
    return out


def _direction(word: str | None) -> str:
    if word is None:
        return "asc"
    word = re.sub(r"^from\s+(?:the\s+)?|\s+first$", "", word)
    return "desc" if re.fullmatch(rf"{_DOWN}|{_DOWN_END}", word) else "asc"


def _phrases(senses: dict[str, Sense]) -> dict[str, str]:
    """Words naming each sortable column, and each part of a column's name that no other
    column shares ("date" → Date_Payment_Made when it is the only dated name)."""
    out: dict[str, str] = {}
    parts: dict[str, set[str]] = {}
    for sense in senses.values():
        if sense.column.type == "boolean":
            continue
        for word in sense.words:
            if word.isascii() and len(word) >= 2:
                out.setdefault(word, sense.column.name)
        for part in sense.column.name.lower().split("_"):
            parts.setdefault(part, set()).add(sense.column.name)
    for part, owners in parts.items():
        if len(owners) == 1 and len(part) >= 3 and part not in ("ids", "code"):
            out.setdefault(part, next(iter(owners)))
    return out


def _nearest_before(
    scan: Scan, start: int, senses: dict[str, Sense], nouns: frozenset[str], *, alphabetical: bool
) -> str | None:
    """The column named last before ``start``; for "alphabetical", the text column named
    first: the thing listed ("the last names of faculties in building Barton in
    alphabetic order" sorts the names, not the building the condition fixes)."""
    best: tuple[tuple[int, int], str] | None = None
    before = scan.text[:start]
    for sense in senses.values():
        if alphabetical and sense.column.type != "string":
            continue
        if sense.column.type == "boolean":
            continue
        parts = [p for p in sense.column.name.lower().split("_") if p not in ("id", "ids")]
        for word in (*sense.words, *parts):
            if not word.isascii() or len(word) < 2 or word in nouns:
                continue
            for hit in re.finditer(rf"(?<![a-z]){plural(word)}(?![a-z])", before):
                if hit[0] in nouns:
                    continue  # "addresses" names the model, not other_address_details
                # Of two names ending at one word, the longer: "total points" names
                # Total_Points, not every *_points column (issue #19: a silent wrong).
                key = (-hit.start() if alphabetical else hit.end(), hit.end() - hit.start())
                if best is None or key > best[0]:
                    best = (key, sense.column.name)
    return best[1] if best else None
