"""Records with no related row *of a value* (issue #19): a negated condition on related rows.

"students who do not play football", "dorms that do not have amenity TV Lounge",
"instructors who didn't teach in the Spring": the negated clause names a value of a column
reached through a ``has_many`` relation (directly, or through a link table). Read without
the negation, the question binds that value on the joined column; with it, the records
asked for are those with *no* related row holding it:
``key notin (select foreign from related where column = value and foreign notnull)``
(a NULL in the related keys would otherwise empty a NOT IN). The related model's
permission conditions apply inside the subquery, as for any DSL.

Precision first: exactly one negation in the question; the value read must stand inside
the negated clause (so the negation is about it); exactly one condition on a has_many path;
an ``=`` or ``in`` of values, never a text search ("not like" a loose word is left to the
rules that had it). Plain absence ("customers who never placed an order") is
:mod:`._absent`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from unifind.db.dsl import QueryDSL, SubQuery, Where, validate_dsl
from unifind.db.generate._absent import _CLAUSE_END, _NEGATION
from unifind.db.generate._scan import Scan, finditer, normalise
from unifind.db.generate._view import JoinedView, finish, joined_relations
from unifind.db.generate.base import Generation, GenerationError
from unifind.db.models import Model
from unifind.errors import InputError


@dataclass(frozen=True, slots=True)
class Negation:
    """Where the one negation stands, and the clause it governs (offsets in the text)."""

    span: tuple[int, int]
    clause: str


def read_negation(question: str) -> Negation | None:
    """The question's only negation and its clause; None with none or several."""
    scan = Scan(question)
    found = list(finditer(_NEGATION, scan.text))
    if len(found) != 1:
        return None
    neg = found[0]
    rest = scan.text[neg.end() :]
    end = _CLAUSE_END.search(rest)
    clause = rest[: end.start()] if end is not None else rest
    return Negation(neg.span(), clause.strip()) if clause.strip() else None


def negated_where(dsl: QueryDSL, view: JoinedView, negation: Negation) -> Where | None:
    """The one top-level condition on a has_many path whose value the clause names."""
    hits = [w for w in dsl.wheres if _on_many(w, view)]
    if len(hits) != 1 or hits[0].op not in ("=", "in") or hits[0].or_:
        return None
    where = hits[0]
    values = where.value if isinstance(where.value, list | tuple) else [where.value]
    if not values or not all(isinstance(v, str) and _inside(v, negation.clause) for v in values):
        return None
    return where


def _on_many(where: Where, view: JoinedView) -> bool:
    if where.field is None or "." not in where.field:
        return False
    path = where.field.rsplit(".", 1)[0]
    return path in view.paths and view.paths[path][0].type == "has_many"


def _inside(value: str, clause: str) -> bool:
    text = normalise(value)
    return bool(text) and f" {text} " in f" {clause} ".replace("'", " ").replace('"', " ")


def without(dsl: QueryDSL, model: Model, view: JoinedView, where: Where) -> tuple[QueryDSL, str]:
    """``dsl`` with ``where`` read as "no related row with it" (a notin subquery)."""
    assert where.field is not None
    path, column = where.field.rsplit(".", 1)
    first, *rest = view.paths[path]
    inner = ".".join([*(r.name for r in rest), column])
    query = QueryDSL(
        model=first.model,
        select=(first.key,),
        wheres=(
            Where(field=inner, op=where.op, value=where.value),
            Where(field=first.key, op="notnull"),
        ),
    )
    notin = Where(field=first.foreign, op="notin", value=SubQuery(query=query))
    out = dsl.model_copy(update={"wheres": (*(w for w in dsl.wheres if w is not where), notin)})
    held = f"= {where.value!r}" if where.op == "=" else f"in {list(where.value)!r}"  # type: ignore[arg-type]
    note = (f"read the negation as {model.name} with no {first.model} row where {inner} {held} "
            f"({model.name}.{first.foreign} not in {first.model}.{first.key})")  # fmt: skip
    return out, note


def negated(
    read: Callable[..., Generation], question: str, model: Model, view: JoinedView, strict: bool,
    models: Mapping[str, Model],
) -> tuple[Generation, QueryDSL, str] | None:  # fmt: skip
    """ "students who do not play football": the reading without the negation binds a value
    on a has_many path inside the negated clause; the records with no such related row
    (:func:`without`). None otherwise."""
    negation = read_negation(question)
    if negation is None:
        return None
    try:
        again = read(question, view.model, strict, models, negation.span)
    except GenerationError:
        return None
    text = Scan(question).text
    where = negated_where(again.dsl, view, negation)
    if where is None:
        return None
    out, note = without(again.dsl, model, view, where)
    if joined_relations(out):
        made = finish(out, model, view, text)
        if made is None:
            return None
        out, note = made[0], f"{made[1]}; {note}"
    else:
        out = out.model_copy(update={"model": model.name, "distinct": False})
    try:
        validate_dsl(out, model, models)
    except InputError:
        return None
    return again, out, note
