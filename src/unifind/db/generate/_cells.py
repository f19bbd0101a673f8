"""A stored value named whole: "the phone number of Nancy Edwards", "whose gender is Male".

Words no other rule read are searched as text (LIKE in every searchable column), which
matches inside other values: "male" finds "Female", "Nancy" and "Edwards" each find any row
holding either word anywhere (issue #19: silent wrong answers). A run of the question's
words that is exactly a short stored value of a searchable column (``Model.cells``, read at
introspection) is that value of that column instead. A value stored in several columns binds
to the one the question names; named by none, it may be any of them (an OR), and the words
say so.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from unifind.db._memo import per_object
from unifind.db.dsl import Where
from unifind.db.generate._scan import Scan, plural
from unifind.db.generate._sense import Sense, model_words
from unifind.db.models import CELL_WORDS, Model

_QUOTED = re.compile(r"[\"'“‘](?P<v>[^\"'”’]{1,80})[\"'”’]")
_POSSESSIVE = re.compile(r"['’]s$")
_WORD = re.compile(r"[a-z0-9][a-z0-9+#.'&-]*[a-z0-9+#]|[a-z0-9]")


@dataclass(frozen=True, slots=True)
class Cell:
    """One value the question names, and the columns that may hold it."""

    span: tuple[int, int]
    columns: tuple[str, ...]
    where: Where
    note: str | None = None
    """How the value was bound when the question's words chose between columns."""
    doubt: bool = False
    """The note says the binding is likely not what was asked (the answer is partial)."""


def read_cells(
    scan: Scan, model: Model, senses: dict[str, Sense], skip: Callable[[str], bool]
) -> list[Cell]:
    """Consume each longest run of unread words that is a whole stored value. ``skip``:
    words that can't start or end one (function words, names of the model's columns)."""
    if not model.cells:
        return []
    text = scan.text

    def edge(word: str) -> bool:
        return skip(word) and not _own_name_value(word, model, text)

    found: list[tuple[tuple[int, int], dict[str, list[str]]]] = []
    for m in scan.find(_QUOTED):
        # A quoted value is taken whole, names of the model inside it too: "whose status
        # code is 'Good Customer'" (issue #19: "customer" stopped the run; LIKE %good%).
        quoted = model.cells.get(" ".join(m["v"].split()))
        if quoted and scan.rest[m.start("v") : m.end("v")] == scan.text[m.start("v") : m.end("v")]:
            by_column: dict[str, list[str]] = {}
            for column, stored in quoted:
                by_column.setdefault(column, []).append(stored)
            found.append((m.span(), by_column))
            scan.consume(*m.span())
    words = list(_WORD.finditer(scan.rest))
    i = 0
    while i < len(words):
        hit = _longest(scan, model, words, i, edge)
        if hit is None:
            i += 1
            continue
        j, pairs = hit
        span = (words[i].start(), words[j].end())
        found.append((span, pairs))
        scan.consume(*span)
        if len(pairs) == 1:
            _consume_joined_name(scan, span[0], senses.get(next(iter(pairs))))
        i = j + 1
    return _wheres(found, scan.text, senses)


def _own_name_value(word: str, model: Model, text: str) -> bool:
    """ "the good customers" on good_or_bad_customer ('good', 'bad'): a word of the column's
    name that is also one of its stored values is that value, unless the question names
    the whole column ("good or bad customer") (issue #19: the word was read as the column,
    and the answer kept every customer with status ok)."""
    if word in model_words(model):
        return False  # "participant ids": the model's noun, not the value 'Participant'
    for column, _ in model.cells.get(word, ()):
        parts = column.lower().split("_")
        if word in parts and len(parts) > 1 and " ".join(parts) not in text:
            return True
    return False


def _consume_joined_name(scan: Scan, start: int, sense: Sense | None) -> None:
    """A related model's column named right before its value ("customers with the first
    name Astrid", "the customer whose last name is Gruber") is that column: the words end
    one of its phrases ("customer first name"), so they are read here. A joined column's
    bare words name it nowhere else (another related model may have a "first name")."""
    if sense is None or "." not in sense.column.name:
        return
    tails = {" ".join(w.split()[k:]) for w in sense.words for k in range(1, len(w.split()))}
    before = scan.rest[:start]
    for tail in sorted(tails, key=len, reverse=True):
        m = _before_value(tail).search(before)
        if m is not None:
            scan.consume(m.start("name"), m.end("name"))
            return


@functools.lru_cache(maxsize=1024)
def _before_value(tail: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(w) for w in tail.split())
    return re.compile(rf"(?<![a-z0-9])(?P<name>{body})(?:e?s)?\s+(?:(?:is|was|are|of|named|"
                      rf"called|equal to|equals)\s+)?[\"'“‘]?\s*$")  # fmt: skip


def _longest(
    scan: Scan, model: Model, words: list[re.Match[str]], i: int, skip: Callable[[str], bool]
) -> tuple[int, dict[str, list[str]]] | None:
    first = words[i][0]
    if not _begins_value(first, model) or skip(first):
        return None
    for j in range(min(len(words), i + CELL_WORDS) - 1, i - 1, -1):
        start, end = words[i].start(), words[j].end()
        if skip(words[j][0]) or scan.rest[start:end] != scan.text[start:end]:
            continue
        if j == i and len(words[i][0]) < 2:
            continue  # "a", "i": an article, not the stored value "A"
        said = " ".join(scan.text[start:end].split())
        # "Bob's friends": the value is Bob, its possessive ending is no part of it.
        pairs = model.cells.get(said) or model.cells.get(_POSSESSIVE.sub("", said))
        if pairs:
            by_column: dict[str, list[str]] = {}
            for column, stored in pairs:
                by_column.setdefault(column, []).append(stored)
            return j, by_column
    return None


def _begins_value(word: str, model: Model) -> bool:
    """Some stored value begins with ``word`` (or is it less a possessive "'s"): else no run
    of words from it is one. Each run tried was a few lookups; a joined view holds thousands
    of values, a question's words begin a few (issue #19 latency)."""
    keys = _sorted_cells(model)
    at = bisect.bisect_left(keys, word)
    if at < len(keys) and keys[at].startswith(word):
        return True
    return word.endswith("'s") and word[:-2] in model.cells


@per_object
def _sorted_cells(model: Model) -> list[str]:
    return sorted(model.cells)


def _wheres(
    found: list[tuple[tuple[int, int], dict[str, list[str]]]],
    text: str,
    senses: dict[str, Sense],
) -> list[Cell]:
    out: list[Cell] = []
    for span, by_column in found:
        named = [c for c in by_column if _named(senses.get(c), text)]
        columns = tuple(named if len(named) == 1 else by_column)
        owned = [c for c in by_column if _possessed(senses.get(c), text, span)]
        note = None
        if len(by_column) == 2 and len(owned) == 1:
            # "the friends of Bob", "Bob's friends", "how many friends does Dan have": the
            # column named is what the question asks about Bob; Bob is in the other one.
            columns = tuple(c for c in by_column if c not in owned)
            note = (f"{by_column[columns[0]][0]!r} is a value of {' and '.join(by_column)}: "
                    f"read as {columns[0]}, the question asking for its {owned[0]}")  # fmt: skip
        doubt = len(by_column) == 1 and bool(owned)
        if doubt:
            note = (f"not understood: {text[span[0]:span[1]]!r} (a value only of {owned[0]}, "
                    f"which the question asks about it: matched in {owned[0]} anyway)")  # fmt: skip
        conds = [_equal(c, by_column[c]) for c in columns]
        if len(conds) == 1:
            where = conds[0]
        else:
            either = [c.model_copy(update={"or_": i > 0}) for i, c in enumerate(conds)]
            where = Where(wheres=tuple(either))
        out.append(Cell(span, columns, where, note, doubt))
    return _merge(out)


def _equal(column: str, stored: list[str]) -> Where:
    values = list(dict.fromkeys(stored))
    if len(values) == 1:
        return Where(field=column, op="=", value=values[0])
    return Where(field=column, op="in", value=values)


def _merge(cells: list[Cell]) -> list[Cell]:
    """Several values of one column ("Marketing or Finance", "Punk or Orton") are any of
    them: a row holds one value per column."""
    out: list[Cell] = []
    for cell in cells:
        prev = next((c for c in out if c.columns == cell.columns and len(c.columns) == 1), None)
        if prev is None:
            out.append(cell)
            continue
        values = [*_values(prev.where), *_values(cell.where)]
        merged = Where(field=cell.columns[0], op="in", value=list(dict.fromkeys(values)))
        out[out.index(prev)] = Cell(prev.span, prev.columns, merged, prev.note or cell.note,
                                    prev.doubt or cell.doubt)  # fmt: skip
    return out


def _values(where: Where) -> list[str]:
    return list(where.value) if isinstance(where.value, list) else [str(where.value)]


def _possessed(sense: Sense | None, text: str, span: tuple[int, int]) -> bool:
    """The column's word stands as what the value has: "<friends> of Bob", "Bob's
    <friends>", "how many <friends> does Bob have"."""
    if sense is None:
        return False
    before, said, after = text[: span[0]], text[span[0] : span[1]], text[span[1] :]
    owner = bool(_POSSESSIVE.search(said)) or bool(re.match(r"['’]s(?![a-z])", after))
    for word in sense.words:
        if not word.isascii():
            continue
        w = plural(word)
        # A plural only: "the friends of Bob"; "the county of Los Angeles" names the county.
        many = re.sub(r"\(\?:e\?s\)\?$", "e?s", re.sub(r"\(\?:y\|ies\)$", "ies", w))
        if re.search(rf"(?<![a-z]){many}\s+(?:of|does|do|did)\s+(?:the\s+)?$", before):
            return True
        if owner and re.match(rf"(?:['’]s)?\s+(?:[a-z]+\s+){{0,2}}?{w}(?![a-z])", after):
            return True
    return False


def _named(sense: Sense | None, text: str) -> bool:
    if sense is None:
        return False
    parts = [p for p in sense.column.name.lower().split("_") if len(p) > 2]
    return any(re.search(rf"(?<![a-z]){re.escape(w)}", text) for w in (*sense.words, *parts))
