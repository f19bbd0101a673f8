"""Distinct values of one column, asked for by name (issue #19).

"What are the different allergy types?", "Show the distinct themes of journals", "Return all
distinct detention type codes": *distinct*, *different* or *unique* right before a column's
name asks for the set of that column's values, not for every row (which repeats a value once
per row holding it, and left the word "different" not understood). The answer selects that
column alone, each value once. Read only for a row answer (an aggregate's "how many
different X" is a count distinct, read with the aggregate), and never when the rows are
sorted by another column (a distinct list has no such column to sort by).

A column named alone, in the plural, naming no model and no condition ("Show all majors",
"What are all the payment methods?", "What are the advisors") asks for that column's values
too: no row of any model is asked for. The answer says so in a note (every row is one
question away: name the model).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from dataclasses import dataclass

from unifind.db.generate._scan import Scan, plural
from unifind.db.generate._sense import Sense

_WORD = re.compile(r"(?<![a-z])(?:distinct|different|unique)\s+")


@dataclass(frozen=True, slots=True)
class Distinct:
    column: str
    span: tuple[int, int]


def find_distinct(
    scan: Scan, senses: dict[str, Sense], nouns: frozenset[str] = frozenset()
) -> Distinct | None:
    """The column named right after "distinct/different/unique" (its longest name, after
    the model's own noun if one stands first: "institution types"), when exactly one is
    and the noun phrase ends there: a list ("different ids and names") or a longer noun
    is not read. Nothing is consumed (the caller decides)."""
    hits: list[Distinct] = []
    for m in scan.find(_WORD):
        if _OF_THE.search(scan.text[: m.start()]):
            continue  # "the codes and names of the different document types": their rows
        start = m.end()
        lead = re.match(r"([a-z]+)\s+", scan.rest[start:])
        starts = [start] + ([start + lead.end()] if lead and lead[1] in nouns else [])
        best: tuple[int, str] | None = None
        for at in starts:
            head = scan.rest[at : at + 60]
            for sense in senses.values():
                if "." in sense.column.name or sense.column.type == "boolean":
                    continue
                for word in sense.words:
                    if not word.isascii():
                        continue
                    if word in nouns:
                        continue  # "the distinct customers": the model's rows
                    hit = re.match(rf"{_phrase(word)}(?![a-z])", head)
                    if (
                        hit
                        and _ends(head[hit.end() :], scan.text[at + hit.end() :])
                        and (best is None or at + hit.end() > best[0])
                    ):
                        best = (at + hit.end(), sense.column.name)
        if best is not None:
            hits.append(Distinct(best[1], (m.start(), best[0])))
    return hits[0] if len(hits) == 1 else None


_OF_THE = re.compile(r"(?<![a-z])of\s+(?:all\s+)?(?:the\s+)?$")
#: What may follow the column's name: the end, punctuation, or a word that opens a phrase.
_END = re.compile(
    r"\s*(?:$|[?.!;:]|(?:of|for|in|on|at|from|that|which|who|with|where|are|is|do|does|we"
    r"|there|exist|exists|have|has|used|listed|recorded|sorted|ordered)(?![a-z]))"
)


def _ends(rest: str, said: str) -> bool:
    # "the distinct advisors who have more than 2 students": a count per value, not read here
    return bool(_END.match(rest)) and not _COUNTED.match(said)


_COUNTED = re.compile(r"\s*(?:who|that|which)\s+(?:have|has|had)\s+(?:[a-z]+\s+){0,2}\d")


def _phrase(word: str) -> str:
    """The phrase, its last word in any plural form ("allergy types", "card type codes")."""
    *first, last = word.split(" ")
    return r"\s+".join([*(re.escape(w) for w in first), plural(last)])


def find_listed(
    scan: Scan, senses: dict[str, Sense], function_words: Collection[str], key: str | None
) -> Distinct | None:
    """The one column the question names, in the plural, when every other word of it is a
    function word; never the key (each row has its own). Nothing is consumed."""
    best: tuple[int, int, str] | None = None
    for sense in senses.values():
        column = sense.column
        if "." in column.name or column.type == "boolean" or column.name == key:
            continue
        for word in sense.words:
            if not word.isascii() or not word[-1:].isalpha():
                continue
            for hit in scan.find(_plural_phrase(word)):
                if hit[0].split(" ")[-1] == word.split(" ")[-1]:
                    continue  # the singular: "what is the major" asks for one
                if best is None or hit.end() - hit.start() > best[1] - best[0]:
                    best = (hit.start(), hit.end(), column.name)
    if best is None:
        return None
    rest = scan.rest[: best[0]] + " " + scan.rest[best[1] :]
    if any(w not in function_words for w in re.findall(r"[a-z0-9]+", rest)):
        return None
    return Distinct(best[2], (best[0], best[1]))


@functools.lru_cache(maxsize=2048)
def _plural_phrase(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z]){_phrase(word)}(?![a-z])")
