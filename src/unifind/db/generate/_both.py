"""Records with related rows of *each* of two values (issue #19): an intersection.

"customers who have taken both Mortgage and Auto loans", "stations that serve both the
Ananthapuri Express and the Guruvayur Express", "authors with both fantasy and travel
books": the two values belong to the rows of a model reached by ``has_many`` (directly, or
through a link table), and each must be among them. The rules read the values as one
``in`` list on the joined column (either value); with "both" the list becomes one
``key in (select foreign from related where column = value)`` per value, AND-ed, and
the related model's permission conditions apply inside each subquery, as for any DSL.

Only "both" asks for this (a plain "poetry and travel books" stays a list: English reads
it either way), only for a list of exactly two values, and only on a ``has_many`` path.
"""

from __future__ import annotations

import re

from unifind.db.dsl import QueryDSL, SubQuery, Where
from unifind.db.generate._scan import Scan
from unifind.db.generate._view import JoinedView, joined_relations
from unifind.db.models import Model

_BOTH = re.compile(r"(?<![a-z])both(?![a-z])")


def both_span(question: str) -> tuple[int, int] | None:
    """Where "both" stands in the (normalised) question, once; None otherwise."""
    found = list(_BOTH.finditer(Scan(question).text))
    return found[0].span() if len(found) == 1 else None


def pair(dsl: QueryDSL, view: JoinedView) -> Where | None:
    """The one top-level ``in`` of two values on a has_many path's column, if any."""
    hits = [
        w
        for w in dsl.wheres
        if w.op == "in"
        and w.field is not None
        and "." in w.field
        and w.field.rsplit(".", 1)[0] in view.paths
        and view.paths[w.field.rsplit(".", 1)[0]][0].type == "has_many"
        and isinstance(w.value, list | tuple)
        and len(w.value) == 2
        and not w.or_
    ]
    return hits[0] if len(hits) == 1 else None


def split(dsl: QueryDSL, model: Model, view: JoinedView, where: Where) -> tuple[QueryDSL, str]:
    """``dsl`` with ``where`` (an ``in`` of two values) read as "a related row with each"."""
    assert where.field is not None and isinstance(where.value, list | tuple)
    path, column = where.field.rsplit(".", 1)
    first, *rest = view.paths[path]
    inner = ".".join([*(r.name for r in rest), column])
    conds = tuple(
        Where(
            field=first.foreign,
            op="in",
            value=SubQuery(
                query=QueryDSL(
                    model=first.model,
                    select=(first.key,),
                    wheres=(Where(field=inner, value=value),),
                )
            ),
        )
        for value in where.value
    )
    wheres = tuple(w for w in dsl.wheres if w is not where) + conds
    out = dsl.model_copy(update={"wheres": wheres})
    if not joined_relations(out):
        out = out.model_copy(update={"distinct": False})
    a, b = where.value
    note = (f"read 'both' as {model.name} with a {first.model} row of {inner} = {a!r} and "
            f"one of {inner} = {b!r}")  # fmt: skip
    return out, note
