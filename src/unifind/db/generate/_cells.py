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

import re
from collections.abc import Callable
from dataclasses import dataclass

from unifind.db.dsl import Where
from unifind.db.generate._scan import Scan
from unifind.db.generate._sense import Sense
from unifind.db.models import CELL_WORDS, Model

_WORD = re.compile(r"[a-z0-9][a-z0-9+#.'&-]*[a-z0-9+#]|[a-z0-9]")


@dataclass(frozen=True, slots=True)
class Cell:
    """One value the question names, and the columns that may hold it."""

    span: tuple[int, int]
    columns: tuple[str, ...]
    where: Where


def read_cells(
    scan: Scan, model: Model, senses: dict[str, Sense], skip: Callable[[str], bool]
) -> list[Cell]:
    """Consume each longest run of unread words that is a whole stored value. ``skip``:
    words that can't start or end one (function words, names of the model's columns)."""
    if not model.cells:
        return []
    words = list(_WORD.finditer(scan.rest))
    found: list[tuple[tuple[int, int], dict[str, list[str]]]] = []
    i = 0
    while i < len(words):
        hit = _longest(scan, model, words, i, skip)
        if hit is None:
            i += 1
            continue
        j, pairs = hit
        span = (words[i].start(), words[j].end())
        found.append((span, pairs))
        scan.consume(*span)
        i = j + 1
    return _wheres(found, scan.text, senses)


def _longest(
    scan: Scan, model: Model, words: list[re.Match[str]], i: int, skip: Callable[[str], bool]
) -> tuple[int, dict[str, list[str]]] | None:
    if skip(words[i][0]):
        return None
    for j in range(min(len(words), i + CELL_WORDS) - 1, i - 1, -1):
        start, end = words[i].start(), words[j].end()
        if skip(words[j][0]) or scan.rest[start:end] != scan.text[start:end]:
            continue
        if j == i and len(words[i][0]) < 2:
            continue  # "a", "i": an article, not the stored value "A"
        pairs = model.cells.get(" ".join(scan.text[start:end].split()))
        if pairs:
            by_column: dict[str, list[str]] = {}
            for column, stored in pairs:
                by_column.setdefault(column, []).append(stored)
            return j, by_column
    return None


def _wheres(
    found: list[tuple[tuple[int, int], dict[str, list[str]]]],
    text: str,
    senses: dict[str, Sense],
) -> list[Cell]:
    out: list[Cell] = []
    for span, by_column in found:
        named = [c for c in by_column if _named(senses.get(c), text)]
        columns = tuple(named if len(named) == 1 else by_column)
        conds = [_equal(c, by_column[c]) for c in columns]
        if len(conds) == 1:
            where = conds[0]
        else:
            either = [c.model_copy(update={"or_": i > 0}) for i, c in enumerate(conds)]
            where = Where(wheres=tuple(either))
        out.append(Cell(span, columns, where))
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
        out[out.index(prev)] = Cell(prev.span, prev.columns, merged)
    return out


def _values(where: Where) -> list[str]:
    return list(where.value) if isinstance(where.value, list) else [str(where.value)]


def _named(sense: Sense | None, text: str) -> bool:
    if sense is None:
        return False
    parts = [p for p in sense.column.name.lower().split("_") if len(p) > 2]
    return any(re.search(rf"(?<![a-z]){re.escape(w)}", text) for w in (*sense.words, *parts))
