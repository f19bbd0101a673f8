"""QueryDSL → SQLAlchemy Core ``SELECT`` with bound parameters only (DESIGN §7).

Names reach SQL only after :func:`~unifind.db.dsl.validate_dsl` matched them against the
declared model, and SQLAlchemy quotes them; values are always bound parameters. The
permission predicate is AND-ed *outside* the generated conditions, so an ``or`` in the DSL
cannot widen it: ``WHERE (perm) AND ((generated...))``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from unifind.db.dsl import QueryDSL, Where
from unifind.db.models import Model, sql_table

#: LIKE escape character; ``%`` and ``_`` in keyword values are escaped with it.
LIKE_ESCAPE = "\\"


def like_pattern(text: str) -> str:
    """``%text%`` with LIKE wildcards in ``text`` escaped (so "50%" matches a literal %)."""
    escaped = text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", r"\%").replace("_", r"\_")
    return f"%{escaped}%"


def _condition(col: ColumnElement[Any], op: str, value: Any) -> ColumnElement[bool]:
    cond: ColumnElement[bool] = _operator(col, op, value)
    return cond


def _operator(col: ColumnElement[Any], op: str, value: Any) -> Any:
    match op:
        case "=":
            return col == value
        case "!=":
            # SQL's three-valued logic would drop NULLs from "not apple"; a person means
            # "anything but apple", NULL included.
            return sa.or_(col != value, col.is_(None))
        case ">":
            return col > value
        case ">=":
            return col >= value
        case "<":
            return col < value
        case "<=":
            return col <= value
        # Case-insensitive on every dialect (SQLite's LIKE already is, for ASCII;
        # PostgreSQL's is not): ILIKE there, lower(x) LIKE lower(y) elsewhere.
        case "like":
            return col.ilike(value, escape=LIKE_ESCAPE)
        case "notlike":
            return sa.or_(col.not_ilike(value, escape=LIKE_ESCAPE), col.is_(None))
        case "in":
            return col.in_(value)
        case "notin":
            return sa.or_(col.not_in(value), col.is_(None))
        case "null":
            return col.is_(None)
        case "notnull":
            return col.is_not(None)
        case "between":
            return col.between(value[0], value[1])
    raise ValueError(f"unknown op {op!r}")  # unreachable after validation


def compile_wheres(wheres: Sequence[Where], table: sa.TableClause) -> ColumnElement[bool] | None:
    """OR of AND-runs: ``or: true`` starts a new run (AND binds tighter, as in SQL)."""
    runs: list[list[ColumnElement[bool]]] = []
    for w in wheres:
        if w.wheres is not None:
            inner = compile_wheres(w.wheres, table)
            if inner is None:
                continue
            cond = inner.self_group()
        else:
            assert w.field is not None
            cond = _condition(table.c[w.field], w.op, w.value)
        if not runs or w.or_:
            runs.append([])
        runs[-1].append(cond)
    if not runs:
        return None
    groups = [sa.and_(*r).self_group() if len(r) > 1 else r[0] for r in runs]
    return sa.or_(*groups).self_group() if len(groups) > 1 else groups[0]


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled query and how to show it."""

    statement: sa.Select[Any]
    limit: int


def compile_select(
    dsl: QueryDSL,
    model: Model,
    *,
    permission: ColumnElement[bool] | None,
    limit: int,
    offset: int = 0,
    table: sa.TableClause | None = None,
) -> Compiled:
    """The SELECT for a validated ``dsl``; ``limit`` is already capped by the caller.

    Pass the ``table`` the permission predicate was built on, so both name one FROM.
    """
    table = table if table is not None else sql_table(model)
    if dsl.aggregates:
        return _compile_aggregate(dsl, table, permission, limit, offset)
    names = list(dsl.select or model.columns)
    if model.primary_key and model.primary_key not in names:
        names.insert(0, model.primary_key)  # items need a record id
    stmt = sa.select(*(table.c[n] for n in names))
    generated = compile_wheres(dsl.wheres, table)
    # Permission first and outside: (perm) AND (generated) — see module docstring.
    clauses = [c for c in (permission, generated) if c is not None]
    if clauses:
        stmt = stmt.where(sa.and_(*(c.self_group() for c in clauses)))
    orders = [
        table.c[o.field].desc() if o.sort == "desc" else table.c[o.field].asc() for o in dsl.orders
    ]
    if model.primary_key:
        orders.append(table.c[model.primary_key].asc())  # deterministic paging
    stmt = stmt.order_by(*orders).limit(limit).offset(offset + (dsl.offset or 0) or None)
    return Compiled(stmt, limit)


_FNS: dict[str, Any] = {"count": sa.func.count, "avg": sa.func.avg, "sum": sa.func.sum,
                        "min": sa.func.min, "max": sa.func.max}  # fmt: skip


def _compile_aggregate(
    dsl: QueryDSL,
    table: sa.TableClause,
    permission: ColumnElement[bool] | None,
    limit: int,
    offset: int,
) -> Compiled:
    """``SELECT groups..., fn(field)... GROUP BY groups HAVING ...``: one row per group."""
    exprs: dict[str, ColumnElement[Any]] = {}
    for agg in dsl.aggregates:
        arg = table.c[agg.field] if agg.field else None
        fn = _FNS[agg.fn]
        exprs[agg.name] = (fn(arg) if arg is not None else fn()).label(agg.name)
    groups = [table.c[g] for g in dsl.groups]
    # An explicit FROM: ``count(*)`` names no column, and without a WHERE on the table
    # SQLAlchemy would emit ``SELECT count(*)`` alone, which counts one row (issue #19).
    stmt = sa.select(*groups, *exprs.values()).select_from(table)
    generated = compile_wheres(dsl.wheres, table)
    clauses = [c for c in (permission, generated) if c is not None]
    if clauses:
        stmt = stmt.where(sa.and_(*(c.self_group() for c in clauses)))
    if groups:
        stmt = stmt.group_by(*groups)
    for h in dsl.havings:
        assert h.field is not None
        stmt = stmt.having(_operator(exprs[h.field].element, h.op, h.value))  # type: ignore[attr-defined]
    known: dict[str, ColumnElement[Any]] = {**{g.name: g for g in groups}, **exprs}
    orders = [(known[o.field] if o.field in known else table.c[o.field]) for o in dsl.orders]
    keys = [
        o.desc() if s.sort == "desc" else o.asc() for o, s in zip(orders, dsl.orders, strict=True)
    ]
    stmt = stmt.order_by(*keys, *groups).limit(limit).offset(offset + (dsl.offset or 0) or None)
    return Compiled(stmt, limit)


def render(stmt: sa.Select[Any], dialect: sa.Dialect) -> tuple[str, dict[str, Any]]:
    """The SQL text with placeholders, and the bound parameters shown separately."""
    compiled = stmt.compile(dialect=dialect)
    return str(compiled), {k: _jsonable(v) for k, v in compiled.params.items()}


def _jsonable(v: Any) -> Any:
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, int | float | str | bool) or v is None:
        return v
    return str(v)
