"""Readings the builtin generator makes but cannot vouch for (issue #19: precision first).

Each check looks at a finished reading and names, in a note, a word the answer did not
use the way the question meant it. The answer stays (it may be right), but it is
``partial``: a wrong answer with status ok and no note is the worst outcome of the leg.

* **A link to another row of the same model.** "the employee who reports to Nancy
  Edwards": ``reports_to`` points to another employee, so the name describes that other
  row; the value was bound on the rows themselves (a self-join the builtin does not write).
  Read where the value follows the link column's words, or follows a verb and its
  preposition ("who report to Payam", "managed by") and is a name.
* **Another model's name searched as text.** "musicals that have no actors" where no
  relation leads from musicals to actors: "actor" was searched (NOT LIKE) in the musicals'
  own text, which is not what the question asks.
* **A related model's column the answer does not show.** "the color descriptions of
  products": products hold color_code, and "color description" is a column of the colors
  model that color_code points to; an answer from products alone shows the code only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from unifind.db.dsl import QueryDSL
from unifind.db.generate._account import used_fields
from unifind.db.generate._cells import Cell
from unifind.db.generate._scan import plural, search
from unifind.db.models import Model


@dataclass(frozen=True, slots=True)
class Caveat:
    word: str
    """The question's word (or phrase) the answer did not use as meant."""
    note: str


def self_link(text: str, model: Model, cells: Sequence[Cell]) -> list[Caveat]:
    """A value named right after the words of a column that links the model to itself."""
    links = [r.foreign for r in model.joins.values() if r.model == model.name]
    out: list[Caveat] = []
    for column in links:
        pattern = _before_value(column)
        for cell in cells:
            before = text[: cell.span[0]]
            m = pattern.search(before) if pattern is not None else None
            if m is None and any("name" in c.lower() for c in cell.columns):
                m = _LINK_VERB.search(before)  # "employees who report to Payam"
            if m is None:
                continue
            said, value = m["link"], text[cell.span[0] : cell.span[1]]
            out.append(
                Caveat(
                    said,
                    f"not understood: {said!r} ({column} links each {model.name} row to "
                    f"another; {value!r} was matched on the rows themselves, not on the row "
                    f"{column} points to)",
                )
            )
    return out


#: A verb and its preposition right before a name: "who report to", "managed by", "work
#: for", "under" — in a model that links to itself, the name is likely the linked row's.
_LINK_VERB = re.compile(
    r"(?<![a-z])(?P<link>[a-z]+(?:s|ed|ing)?\s+(?:to|by|for|under))\s+[\"'“‘]?$"
)


@functools.lru_cache(maxsize=512)
def _before_value(column: str) -> re.Pattern[str] | None:
    """The column's name words, each in any -s form, ending right before a value."""
    parts = [p for p in column.lower().split("_") if p and p not in ("id", "ids")]
    if not parts or not all(p.isalpha() for p in parts):
        return None
    stems = [re.escape(p[:-1] if p.endswith("s") and len(p) > 3 else p) for p in parts]
    body = r"\s+".join(rf"{s}(?:e?s|ed|ing)?" for s in stems)
    return re.compile(
        rf"(?<![a-z])(?P<link>{body})\s+(?:(?:is|was|are|the|named|called|to)\s+)*"
        r"[\"'“‘]?$"
    )


def unreached(text: str, dsl: QueryDSL, models: Mapping[str, Model]) -> list[Caveat]:
    """Columns of a model one ``belongs_to`` relation away, named by their whole name of two
    words or more ("color description"), that the answer's model does not have and the
    query does not read through the relation."""
    model = models.get(dsl.model) if dsl.model else None  # a merged answer: no one model
    if model is None:
        return []
    own = {" ".join(c.lower().split("_")) for c in model.columns}
    used = used_fields(dsl) | set(dsl.select or ())
    # A phrase the query reads through another relation is accounted for ("customers with
    # the first name Kari" on orders, whose staff have a first name too).
    read = {" ".join(f.rsplit(".", 1)[-1].lower().split("_")) for f in used if "." in f}
    out: list[Caveat] = []
    for name, rel in model.joins.items():
        other = models.get(rel.model)
        if rel.type != "belongs_to" or other is None or other.name == model.name:
            continue
        for column in other.columns:
            phrase = " ".join(column.lower().split("_"))
            if column == rel.key or " " not in phrase or phrase in own or phrase in read:
                continue
            if f"{name}.{column}" in used or not _said(phrase, text):
                continue
            out.append(
                Caveat(
                    phrase,
                    f"not understood: {phrase!r} (a column of {other.name}, which "
                    f"{rel.foreign} points to; the answer shows {rel.foreign} only)",
                )
            )
    return out


@functools.lru_cache(maxsize=2048)
def _phrase_re(phrase: str) -> re.Pattern[str]:
    *first, last = phrase.split(" ")
    body = r"\s+".join([*(re.escape(w) for w in first), plural(last)])
    return re.compile(rf"(?<![a-z]){body}(?![a-z])")


def _said(phrase: str, text: str) -> bool:
    return bool(search(_phrase_re(phrase), text))


def model_as_text(dsl: QueryDSL, models: Mapping[str, Model]) -> list[Caveat]:
    """Words searched as text (LIKE / NOT LIKE over the searchable columns) that name another
    model of the database, one the query does not read."""
    own = models.get(dsl.model) if dsl.model else None
    searched = _searched(dsl.wheres)
    if own is None or not searched:
        return []
    via = {f.split(".", 1)[0] for f in (*used_fields(dsl), *(dsl.select or ())) if "." in f}
    reached = {own.name, *(r.model for n, r in own.joins.items() if n in via)}
    names = {
        form: name
        for name, other in models.items()
        if name not in reached
        for form in _noun_forms(other)
    }
    # A one-word column of a related model the query does not read ("the songs that have
    # result nominated" on music festivals, whose volume has a Song): issue #19, the word
    # was searched in the festivals' text and the answer was ok.
    own_columns = {c.lower() for c in own.columns}
    columns = {
        form: f"column {column} of {related.name}"
        for name, rel in own.joins.items()
        if name not in via and (related := models.get(rel.model)) is not None
        for column in related.columns
        if column.isalpha() and len(column) > 2 and column.lower() not in own_columns
        for form in _forms(column.lower())
    }  # fmt: skip
    # A whole value of a related model's column ("tracks whose genre is Rock": genres.name
    # holds "Rock"; it was searched in the tracks' names, status ok).
    one_hop = [m for name, rel in own.joins.items()
               if name not in via and (m := models.get(rel.model)) is not None]  # fmt: skip
    out: list[Caveat] = []
    for word, op in searched:
        named = f"model {names[word]}" if word in names else columns.get(word)
        if named is None and word not in own.cells:
            named = next((f"a value of {m.name}.{held[0][0]}" for m in one_hop
                          if (held := m.cells.get(word))), None)  # fmt: skip
        if named is None or any(c.word == word for c in out):
            continue
        did = "searched as text" if op == "like" else "its absence searched as text"
        note = (f"not understood: {word!r} (names {named}, which this answer does not "
                f"read; {did} in {dsl.model} instead)")  # fmt: skip
        out.append(Caveat(word, note))
    return out


def _forms(word: str) -> set[str]:
    single = word[:-1] if word.endswith("s") and not word.endswith("ss") else word
    return {single, f"{single}s"}


def _noun_forms(model: Model) -> set[str]:
    """A model's one-word name in the singular and plural ("actor", "actors")."""
    out: set[str] = set()
    for name in (model.name, model.table):
        word = name.lower()
        if word.isalpha() and len(word) > 2:
            single = word[:-1] if word.endswith("s") and not word.endswith("ss") else word
            out |= {single, f"{single}s"}
    return out


def _searched(wheres: Sequence[Any]) -> list[tuple[str, str]]:
    """(word, op) of each text search: the same ``%word%`` over several columns, either."""
    out: list[tuple[str, str]] = []
    for w in wheres:
        if w.wheres:
            out += _searched(w.wheres)
        elif w.op in ("like", "notlike") and isinstance(w.value, str):
            word = w.value.strip("%").lower()
            if word.isalpha() and (word, w.op) not in out:
                out.append((word, w.op))
    return out
