"""Why a set operation found nothing (issue #19): ``union``, ``intersect``, ``except``.

The answer of a set operation is empty when both queries give no row (union), when they
share none (intersect), or when the second takes every row of the first away (except). One
statement counts the whole and each query's distinct rows, and the note says which; a query
that gives no row itself is then probed like any query (:func:`~unifind.db._empty.why_empty`,
one statement more), its notes prefixed ``first query:`` / ``second query:``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa

from unifind.db._empty import Fetch, Query, why_empty
from unifind.db.compile import compile_select
from unifind.db.dsl import MAX_INT, QueryDSL, Where
from unifind.db.joins import single_table
from unifind.db.models import Model, sql_table
from unifind.db.permissions import permission_clause
from unifind.types import Principal

_NTH = ("first", "second")


class Relaxed:
    """A query compiled to be counted: no order, no limit, every model's permission kept."""

    def __init__(
        self,
        model: Model,
        table: sa.TableClause,
        permission: Any,
        models: Mapping[str, Model] | None = None,
        principal: Principal | None = None,
    ) -> None:
        self.model, self.table, self.permission = model, table, permission
        self.models, self.principal = models, principal

    def over(self, name: str | None) -> Relaxed:
        """The same over another declared model (the second query of a set operation)."""
        model = (self.models or {})[name or ""]
        table = sql_table(model)
        permission = permission_clause(model, table, self.principal)
        return Relaxed(model, table, permission, self.models, self.principal)

    def select(self, dsl: QueryDSL, **update: Any) -> sa.Select[Any]:
        relaxed = dsl.model_copy(update={"orders": (), "limit": None, "offset": None, **update})
        return compile_select(
            relaxed,
            self.model,
            permission=self.permission,
            limit=MAX_INT,
            table=self.table,
            models=self.models,
            permit=lambda m, t: permission_clause(m, t, self.principal),
        ).statement.order_by(None)  # counted: the order changes nothing

    def query(self, dsl: QueryDSL) -> Query:
        """The :data:`~unifind.db._empty.Query` of ``dsl``: its rows under other conditions."""

        def under(terms: Sequence[Where]) -> sa.Select[Any]:
            return self.select(dsl, wheres=tuple(terms))

        return under


async def why_set_empty(fetch: Fetch, first: Relaxed, dsl: QueryDSL, offset: int) -> list[str]:
    """Notes saying why the set operation ``dsl`` (its first query over ``first``) found
    nothing; [] when nothing can be said."""
    part = dsl.compound[0]
    second = first.over(part.query.model)
    alone = dsl.model_copy(update={"compound": ()})
    queries = ((first, alone), (second, part.query))
    selects = [first.select(dsl), *(p.select(q, distinct=True) for p, q in queries)]
    fields = alone.select or (*alone.groups, *(a.name for a in alone.aggregates))
    names = (first.model.name, second.model.name)
    notes, empty = set_notes(part.op, names, fields, await set_counts(fetch, selects), offset)
    for i in empty:
        notes.append(f"the {_NTH[i]} query of the {part.op} ({names[i]}) gives no row")
        probe, query = queries[i]
        if query.aggregates:  # a count of 0 is itself the answer
            continue
        how = None if single_table(query) else probe.query(query)
        why = await why_empty(fetch, probe.model, probe.table, probe.permission, query.wheres,
                              0, query=how)  # fmt: skip
        notes += [f"{_NTH[i]} query: {n}" for n in why]
    return notes


async def set_counts(fetch: Fetch, selects: Sequence[sa.Select[Any]]) -> list[int]:
    """The rows of each SELECT, in one statement (scalar subqueries)."""
    counts = [sa.select(sa.func.count()).select_from(s.subquery()).correlate(None) for s in selects]
    row = (await fetch(sa.select(*(c.scalar_subquery().label(f"v{i}")
                                   for i, c in enumerate(counts)))))[0]  # fmt: skip
    return [int(row[f"v{i}"]) for i in range(len(selects))]


def set_notes(
    op: str, models: Sequence[str], fields: Sequence[str], counts: Sequence[int], offset: int
) -> tuple[list[str], list[int]]:
    """The notes from the counts of the whole and of each query's distinct rows, and the
    queries (0, 1) that give no row themselves (said and probed by the caller)."""
    whole, first, second = counts
    if whole:  # rows after all: past the offset, or written since the query ran
        return ([f"{whole} row(s) of the {op} match, all before offset {offset:,}"]
                if offset else []), []  # fmt: skip
    what = fields[0] if len(fields) == 1 else f"({', '.join(fields)})"
    if op == "intersect" and first and second:
        return [f"no {what} is in both queries of the intersect: the first ({models[0]}) "
                f"gives {first}, the second ({models[1]}) {second}"], []  # fmt: skip
    if op == "except" and first:
        return [f"every {what} the first query ({models[0]}) gives ({first}) is among the "
                f"{second} the query taken away ({models[1]}) gives"], []  # fmt: skip
    return [], [i for i, n in enumerate((first, second)) if not n and (op != "except" or i == 0)]
