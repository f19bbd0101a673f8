"""The record with the highest average (or total) of its related rows (issue #19).

"the item with the highest average rating", "the grape whose wines have the highest average
price", "the claim that has the largest total settlement amount": an average or a total
over a column of a model related by ``has_many``, ranked by "highest"/"lowest", asks for the
record whose related rows give the top value: one group per record of the model (its
columns, the key among them), the aggregate over the related rows, ordered by it, first
row. Without this, "highest" read as ``max`` of every related row and "average" as the
average of all of them: one number for the whole table.

Precision first: only when the joined reading's aggregates all read one column of one
``has_many`` path and have no groups, the direction word stands right before "average" or
"total" and the words right after those name the column ("the lowest total checking and
saving balance" adds two columns: not read so). The reading is made again with the
direction word read (so it is not also a ``max``), and kept only if it is then exactly one
average or total over that path.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Literal

from unifind.db.dsl import Aggregate, Order
from unifind.db.generate._scan import Scan, phrase_pattern
from unifind.db.generate._sense import learn
from unifind.db.generate._view import JoinedView
from unifind.db.generate.base import Generation, GenerationError
from unifind.db.models import Model

_TOP = re.compile(
    r"(?<![a-z])(?:the\s+)?(?P<dir>highest|largest|greatest|biggest|maximum|most|top|lowest"
    r"|smallest|least|minimum)\s+(?=(?P<fn>average|mean|avg|total|combined)\s+[a-z])"
)
_DOWN = frozenset(("lowest", "smallest", "least", "minimum"))
_FN = {"average": "avg", "mean": "avg", "avg": "avg", "total": "sum", "combined": "sum"}

Read = Callable[..., Generation]


def ranked_per_record(
    read: Read, question: str, model: Model, view: JoinedView, alt: Generation,
    strict: bool, models: Mapping[str, Model],
) -> Generation | None:  # fmt: skip
    """The reading ranked per record, or None when the question is not of that shape."""
    path = _one_many_path(alt, view)
    if path is None or model.primary_key not in model.columns:
        return None
    scan = Scan(question)
    m = next(scan.find(_TOP), None)
    if m is None:
        return None
    try:
        again = read(question, view.model, strict, models, m.span("dir"))
    except GenerationError:
        return None
    aggs = again.dsl.aggregates
    fn = _FN[m["fn"]]
    if _one_many_path(again, view) != path or len(aggs) != 1 or aggs[0].fn != fn:
        return None
    if not _names_right_after(aggs[0].field or "", view, scan.text, m.end("fn")):
        return None  # "the lowest total checking and saving balance": not this column alone
    name = f"{fn}_{aggs[0].field}".replace(".", "_")
    sort: Literal["asc", "desc"] = "asc" if m["dir"] in _DOWN else "desc"
    dsl = again.dsl.model_copy(update={
        "groups": tuple(model.columns),
        "aggregates": (Aggregate.model_validate({"fn": fn, "field": aggs[0].field, "as": name}),),
        "orders": (Order(field=name, sort=sort),),
        "limit": again.dsl.limit or 1,
    })  # fmt: skip
    return used_by_groups(dataclasses.replace(again, dsl=dsl), set(model.columns))


_UNUSED = re.compile(
    r"not understood: (?P<w>\S+) \(names (?P<cols>.+), which the answer does not use\)"
)


def used_by_groups(gen: Generation, shown: set[str]) -> Generation:
    """A word naming a column the groups now show is used: its note and its "not used" go."""
    words = set()
    notes = []
    for note in gen.notes:
        m = _UNUSED.fullmatch(note)
        if m and set(m["cols"].split(", ")) <= shown:
            words.add(m["w"])
        else:
            notes.append(note)
    if not words:
        return gen
    understood = tuple((w, "column shown per record" if w in words else use)
                       for w, use in gen.understood)  # fmt: skip
    used = sum(not use.startswith("not used") for _, use in understood)
    return dataclasses.replace(
        gen, notes=tuple(notes), unknown=tuple(w for w in gen.unknown if w not in words),
        understood=understood,
        confidence=round(used / len(understood), 2) if understood else gen.confidence,
    )  # fmt: skip


def _names_right_after(field: str, view: JoinedView, text: str, end: int) -> bool:
    """The words right after "average"/"total" name the aggregated column."""
    sense = learn(view.model).get(field)
    start = len(text) - len(text[end:].lstrip())
    return sense is not None and any(phrase_pattern(w).match(text, start) for w in sense.words)


def _one_many_path(gen: Generation, view: JoinedView) -> str | None:
    """The has_many path every aggregate of an ungrouped reading reads a column of."""
    dsl = gen.dsl
    fields = [a.field for a in dsl.aggregates]
    if not fields or dsl.groups:
        return None
    paths = {f.rsplit(".", 1)[0] if f and "." in f else "" for f in fields}
    path = paths.pop()
    if paths or not path:
        return None
    return path if path in view.paths and view.many(path) else None
