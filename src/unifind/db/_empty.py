"""Why a DB query found nothing: each condition taken out in turn and counted (issue #18).

An empty answer can be right, or a condition can be wrong: the README's example typed in
double quotes, ``"cheapest laptops under $1000"``, reaches us as ``under 000`` (the shell
expanded ``$1``), compiles to ``price < 0`` and matches no row. Reported as a bare ``ok``
with nothing, that is a silent wrong answer. So when a row query comes back empty, the
leg counts again without each top-level condition in turn — a few bounded ``COUNT(*)``
queries, the permission predicate always kept — and says which condition left nothing,
and, when that condition matches no row on its own, the column's actual range (the
sign of a mangled or implausible number: ``price < 0`` where every price is positive).

Only AND-ed conditions are probed: taking one term out of an OR would narrow, not widen.
Aggregates are not probed either (a ``count`` of 0 is itself the answer). A query along
relations is probed the same way, each count being the whole joined query with one
condition taken out (``count=``, the leg compiles it, every model's permission kept).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from unifind.db.compile import compile_wheres
from unifind.db.dsl import FieldRef, SubQuery, Where
from unifind.db.models import Model

#: Most conditions probed one by one: each probe is one COUNT(*) of the same table.
MAX_PROBES = 6
_RANGE_OPS = (">", ">=", "<", "<=", "=", "between")

#: Runs one SELECT and returns its rows (the leg's executor, with its timeout).
Fetch = Callable[[sa.Select[Any]], Awaitable[list[dict[str, Any]]]]
#: The rows a query keeps under these conditions (the joined query's own count).
Count = Callable[[Sequence[Where]], Awaitable[int]]


def and_terms(wheres: Sequence[Where]) -> list[Where] | None:
    """The conditions AND-ed at the top (AND-only groups opened up); None when OR joins them."""
    terms: list[Where] = []
    for w in wheres:
        if w.or_:
            return None
        inner = and_terms(w.wheres) if w.wheres is not None else None
        if inner is not None:
            terms.extend(inner)
        elif w.wheres is None or w.wheres:
            terms.append(w)
    return terms


async def why_empty(
    fetch: Fetch,
    model: Model,
    table: sa.TableClause,
    permission: ColumnElement[bool] | None,
    wheres: Sequence[Where],
    offset: int,
    *,
    count: Count | None = None,
) -> list[str]:
    """Notes saying what left the answer empty; [] when nothing can be said. ``count``
    replaces the one-table count (a query along relations: :data:`Count`)."""
    counter = _Counter(fetch, table, permission, count)
    who = f"{model.name} rows" + (" visible to this caller" if permission is not None else "")
    terms = and_terms(wheres)
    everything = await counter.count(list(wheres))
    if everything:  # rows after all: past the offset, or written since the query ran
        return (
            [f"{everything} {model.name} row(s) match, all before offset {offset:,}"]
            if offset
            else []
        )
    if terms is None or not terms:
        total = await counter.count([])
        if not total:
            return [f"there are no {who}"]
        return [f"no {model.name} row matches the conditions; without them: {total}"]
    notes: list[str] = []
    for i, term in enumerate(terms[:MAX_PROBES]):
        without = await counter.count(terms[:i] + terms[i + 1 :])
        if not without:
            continue
        if len(terms) > 1 and await counter.count([term]):
            # Rows have it, just none of those the other conditions keep: say exactly that,
            # not "no products with brand = Sony" when the shop sells Sony.
            notes.append(f"of the {without} {model.name} row(s) meeting the other conditions, "
                         f"none has {describe(term)}")  # fmt: skip
            continue
        span = await _span(counter, model, term)
        notes.append(f"no {model.name} with {describe(term)}{span}; "
                     f"without that condition: {without}")  # fmt: skip
    if notes:
        return notes
    total = await counter.count([])
    if not total:
        return [f"there are no {who}"]
    probed = "" if len(terms) <= MAX_PROBES else f" (the first {MAX_PROBES} probed)"
    return [f"no {model.name} row meets all {len(terms)} conditions together, and taking out "
            f"any one of them still leaves none{probed}; without any: {total}"]  # fmt: skip


async def _span(counter: _Counter, model: Model, term: Where) -> str:
    """For a comparison outside the column's actual range (``price < 0`` where every price
    is positive: a mangled or implausible number), that range; else ""."""
    if term.field is None or term.op not in _RANGE_OPS:
        return ""
    col = model.columns.get(term.field)
    if col is None or col.type not in ("integer", "number", "date", "datetime"):
        return ""
    low, high = await counter.range(term.field)
    if low is None or high is None:
        return f" (every {term.field} is empty)"
    if not _outside(term, _key(low), _key(high)):
        return ""
    return f" ({term.field} runs from {_show(low)} to {_show(high)})"


def _outside(term: Where, low: Any, high: Any) -> bool:
    """No value in ``[low, high]`` can satisfy ``term``."""
    value = [_key(v) for v in term.value] if term.op == "between" else _key(term.value)
    try:
        match term.op:
            case "<":
                return bool(value <= low)
            case "<=":
                return bool(value < low)
            case ">":
                return bool(value >= high)
            case ">=":
                return bool(value > high)
            case "=":
                return bool(value < low or value > high)
            case "between":
                return bool(value[1] < low or value[0] > high)
    except TypeError:  # a dialect returned another type than the DSL holds: say nothing
        return False
    return False


def _key(value: Any) -> Any:
    # Rows come back with dates as ISO text (execute._plain); compare the DSL's the same way.
    return value.isoformat() if isinstance(value, dt.date | dt.datetime) else value


class _Counter:
    """COUNT(*) and MIN/MAX of one table, always under the permission predicate."""

    def __init__(
        self,
        fetch: Fetch,
        table: sa.TableClause,
        permission: ColumnElement[bool] | None,
        count: Count | None = None,
    ) -> None:
        self.fetch, self.table, self.permission = fetch, table, permission
        self._count = count

    def _where(self, stmt: sa.Select[Any], terms: Sequence[Where]) -> sa.Select[Any]:
        generated = compile_wheres(terms, self.table)
        clauses = [c for c in (self.permission, generated) if c is not None]
        return stmt.where(sa.and_(*(c.self_group() for c in clauses))) if clauses else stmt

    async def count(self, terms: Sequence[Where]) -> int:
        if self._count is not None:
            return await self._count(terms)
        stmt = sa.select(sa.func.count().label("n")).select_from(self.table)
        rows = await self.fetch(self._where(stmt, terms))
        return int(rows[0]["n"]) if rows else 0

    async def range(self, field: str) -> tuple[Any, Any]:
        col = self.table.c[field]
        stmt = sa.select(sa.func.min(col).label("low"), sa.func.max(col).label("high"))
        rows = await self.fetch(self._where(stmt.select_from(self.table), []))
        return (rows[0]["low"], rows[0]["high"]) if rows else (None, None)


def describe(term: Where) -> str:
    """A condition as a person reads it: ``price < 0``, ``category = laptop``."""
    if term.wheres is not None:
        return "a group of alternatives (" + " or ".join(describe(w) for w in term.wheres) + ")"
    if term.op in ("null", "notnull"):
        return f"{term.field} {'empty' if term.op == 'null' else 'set'}"
    if term.op == "between":
        low, high = term.value
        return f"{term.field} between {_show(low)} and {_show(high)}"
    if term.op in ("in", "notin"):
        word = "in" if term.op == "in" else "not in"
        if isinstance(term.value, SubQuery):
            return f"{term.field} {word} {_subquery(term.value)}"
        shown = ", ".join(_show(v) for v in term.value)
        return f"{term.field} {word} ({shown})"
    if term.op in ("like", "notlike"):
        text = str(term.value).strip("%")
        return f"{term.field} {'containing' if term.op == 'like' else 'without'} {text!r}"
    if isinstance(term.value, FieldRef):  # a field compared with another field
        return f"{term.field} {term.op} {term.value.field}"
    return f"{term.field} {term.op} {_show(term.value)}"


def _subquery(value: SubQuery) -> str:
    """``the author_id values of books rows meeting its conditions``: what a person reads."""
    q = value.query
    shown = ", ".join(q.select) if q.select else "grouped"
    kept = " rows meeting its conditions" if q.wheres or q.havings else ""
    first = f" (its first {q.limit})" if q.limit else ""
    return f"the {shown} values of {q.model or 'the same model'}{kept}{first}"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.10g}" if abs(value) < 1e15 else f"{value:g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return str(value)
